// A Backend that forwards every call to another one: the base of wrappers
// that add something around a few calls (nvtx_ranges.cpp's ranges). Every
// virtual is forwarded, the optional ones (cooperative launches, gemm)
// included, so a wrapped backend behaves exactly as the bare one; the graph
// interface too, when the wrapped backend has it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "backend/graph_backend.hpp"

namespace cudakit::detail {

class ForwardingBackend : public Backend, public GraphBackend {
 public:
  explicit ForwardingBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

  BackendKind kind() const noexcept override { return inner_->kind(); }
  int device_count() override { return inner_->device_count(); }
  DeviceProperties properties(int o) override { return inner_->properties(o); }
  std::int64_t attribute(int o, DeviceAttribute a) override { return inner_->attribute(o, a); }
  void make_current(int o) override { inner_->make_current(o); }
  int current_device() override { return inner_->current_device(); }
  void synchronize(int o) override { inner_->synchronize(o); }
  MemoryInfo memory_info(int o) override { return inner_->memory_info(o); }
  std::size_t limit(int o, ContextLimit w) override { return inner_->limit(o, w); }
  void set_limit(int o, ContextLimit w, std::size_t v) override { inner_->set_limit(o, w, v); }
  void set_cache_preference(int o, CachePreference p) override {
    inner_->set_cache_preference(o, p);
  }
  CachePreference cache_preference(int o) override { return inner_->cache_preference(o); }
  void set_shared_memory_bank_size(int o, SharedMemoryBankSize s) override {
    inner_->set_shared_memory_bank_size(o, s);
  }
  SharedMemoryBankSize shared_memory_bank_size(int o) override {
    return inner_->shared_memory_bank_size(o);
  }
  bool can_access_peer(int o, int peer) override { return inner_->can_access_peer(o, peer); }
  int driver_version() override { return inner_->driver_version(); }
  DevicePtr allocate(int o, std::size_t b) override { return inner_->allocate(o, b); }
  void deallocate(int o, DevicePtr p) noexcept override { inner_->deallocate(o, p); }
  void set_usable_bytes(DevicePtr p, std::size_t u, std::size_t c) noexcept override {
    inner_->set_usable_bytes(p, u, c);
  }
  void* allocate_pinned(std::size_t b) override { return inner_->allocate_pinned(b); }
  void deallocate_pinned(void* p) noexcept override { inner_->deallocate_pinned(p); }
  void register_host(void* p, std::size_t b, unsigned f) override {
    inner_->register_host(p, b, f);
  }
  void unregister_host(void* p) override { inner_->unregister_host(p); }
  DevicePtr host_device_pointer(void* p) override { return inner_->host_device_pointer(p); }
  DevicePtr allocate_managed(int o, std::size_t b, unsigned f) override {
    return inner_->allocate_managed(o, b, f);
  }
  void attach_managed(NativeStream s, DevicePtr p, std::size_t b, unsigned f) override {
    inner_->attach_managed(s, p, b, f);
  }
  std::pair<DevicePtr, std::size_t> address_range(DevicePtr p) override {
    return inner_->address_range(p);
  }
  IpcHandleBytes ipc_get_handle(int o, DevicePtr p) override {
    return inner_->ipc_get_handle(o, p);
  }
  DevicePtr ipc_open(int o, const IpcHandleBytes& h, unsigned f) override {
    return inner_->ipc_open(o, h, f);
  }
  void ipc_close(int o, DevicePtr p) override { inner_->ipc_close(o, p); }
  void copy(void* d, const void* s, std::size_t b, NativeStream st, bool a) override {
    inner_->copy(d, s, b, st, a);
  }
  void fill(DevicePtr d, std::uint32_t v, unsigned e, std::size_t c, NativeStream s,
            bool a) override {
    inner_->fill(d, v, e, c, s, a);
  }
  NativeArray create_array(int o, const CudaArrayDescriptor& d) override {
    return inner_->create_array(o, d);
  }
  void destroy_array(NativeArray a) noexcept override { inner_->destroy_array(a); }
  void copy_3d(const BoxCopy& c, NativeStream s, bool a) override { inner_->copy_3d(c, s, a); }
  std::uint64_t create_texture_object(int o, const TextureRequest& r) override {
    return inner_->create_texture_object(o, r);
  }
  void destroy_texture_object(std::uint64_t h) noexcept override {
    inner_->destroy_texture_object(h);
  }
  std::uint64_t create_surface_object(int o, NativeArray a, const CudaArrayDescriptor& d) override {
    return inner_->create_surface_object(o, a, d);
  }
  void destroy_surface_object(std::uint64_t h) noexcept override {
    inner_->destroy_surface_object(h);
  }
  void bind_texture_reference(DevicePtr r, const TextureRequest* q, bool s) override {
    inner_->bind_texture_reference(r, q, s);
  }
  NativeStream create_stream(int o, bool nb) override { return inner_->create_stream(o, nb); }
  void destroy_stream(NativeStream s) noexcept override { inner_->destroy_stream(s); }
  void synchronize_stream(NativeStream s) override { inner_->synchronize_stream(s); }
  bool query_stream(NativeStream s) override { return inner_->query_stream(s); }
  void stream_wait_event(NativeStream s, NativeEvent e) override {
    inner_->stream_wait_event(s, e);
  }
  NativeEvent create_event(int o, bool t) override { return inner_->create_event(o, t); }
  void destroy_event(NativeEvent e) noexcept override { inner_->destroy_event(e); }
  void record_event(NativeEvent e, NativeStream s) override { inner_->record_event(e, s); }
  void synchronize_event(NativeEvent e) override { inner_->synchronize_event(e); }
  bool query_event(NativeEvent e) override { return inner_->query_event(e); }
  float elapsed_ms(NativeEvent a, NativeEvent b) override { return inner_->elapsed_ms(a, b); }
  std::string compiler_identity() override { return inner_->compiler_identity(); }
  GpuCompilerInfo gpu_compiler_info() override { return inner_->gpu_compiler_info(); }
  std::string default_arch(int o) override { return inner_->default_arch(o); }
  CompiledCode compile(const CompileRequest& r) override { return inner_->compile(r); }
  NativeModule load_module(int o, const CompiledCode& c) override {
    return inner_->load_module(o, c);
  }
  void unload_module(NativeModule m) noexcept override { inner_->unload_module(m); }
  std::vector<std::string> kernel_symbols(NativeModule m) override {
    return inner_->kernel_symbols(m);
  }
  NativeKernel get_kernel(NativeModule m, const std::string& s) override {
    return inner_->get_kernel(m, s);
  }
  ParamLayout param_layout(NativeModule m, const std::string& s) override {
    return inner_->param_layout(m, s);
  }
  KernelAttributes kernel_attributes(NativeKernel k) override {
    return inner_->kernel_attributes(k);
  }
  void set_max_dynamic_shared_memory(NativeKernel k, std::size_t b) override {
    inner_->set_max_dynamic_shared_memory(k, b);
  }
  void set_kernel_shared_memory_carveout(NativeKernel k, int percent) override {
    inner_->set_kernel_shared_memory_carveout(k, percent);
  }
  void set_kernel_cache_preference(NativeKernel k, CachePreference p) override {
    inner_->set_kernel_cache_preference(k, p);
  }
  CompiledCode link(int o, const std::vector<LinkInput>& inputs,
                    const LinkOptions& options) override {
    return inner_->link(o, inputs, options);
  }
  std::pair<DevicePtr, std::size_t> get_global(NativeModule m, const std::string& n) override {
    return inner_->get_global(m, n);
  }
  int max_active_blocks_per_multiprocessor(NativeKernel k, int b, std::size_t s) override {
    return inner_->max_active_blocks_per_multiprocessor(k, b, s);
  }
  std::pair<int, int> suggest_block_size(NativeKernel k, std::size_t s) override {
    return inner_->suggest_block_size(k, s);
  }
  void launch(NativeKernel k, const char* name, Dim3 grid, Dim3 block, unsigned shared,
              NativeStream stream, void** args) override {
    inner_->launch(k, name, grid, block, shared, stream, args);
  }
  void launch_cooperative(NativeKernel k, const char* name, Dim3 grid, Dim3 block, unsigned shared,
                          NativeStream stream, void** args) override {
    inner_->launch_cooperative(k, name, grid, block, shared, stream, args);
  }
  long long max_cooperative_grid_blocks(int o, NativeKernel k, int block_size,
                                        std::size_t shared) override {
    return inner_->max_cooperative_grid_blocks(o, k, block_size, shared);
  }
  bool gemm_available(ScalarType type) override { return inner_->gemm_available(type); }
  void gemm(int o, NativeStream stream, const GemmRequest& request) override {
    inner_->gemm(o, stream, request);
  }

  CommBackend* collectives() override { return inner_->collectives(); }
  void launch_host_function(NativeStream s, HostFunction f, void* data) override {
    graphs().launch_host_function(s, f, data);
  }
  void begin_capture(NativeStream s, CaptureMode mode) override { graphs().begin_capture(s, mode); }
  NativeGraph end_capture(NativeStream s) override { return graphs().end_capture(s); }
  bool is_capturing(NativeStream s) override { return graphs().is_capturing(s); }
  std::size_t graph_node_count(NativeGraph g) override { return graphs().graph_node_count(g); }
  NativeGraphExec instantiate_graph(NativeGraph g) override {
    return graphs().instantiate_graph(g);
  }
  void upload_graph(NativeGraphExec e, NativeStream s) override { graphs().upload_graph(e, s); }
  void launch_graph(NativeGraphExec e, NativeStream s) override { graphs().launch_graph(e, s); }
  bool update_graph_exec(NativeGraphExec e, NativeGraph g) override {
    return graphs().update_graph_exec(e, g);
  }
  void record_event_in_capture(NativeEvent e, NativeStream s) override {
    graphs().record_event_in_capture(e, s);
  }
  bool is_pageable_host(const void* address) override { return graphs().is_pageable_host(address); }
  // The graph and its executable form exist only if the inner backend made them.
  void destroy_graph(NativeGraph g) noexcept override {
    if (auto* inner = dynamic_cast<GraphBackend*>(inner_.get())) inner->destroy_graph(g);
  }
  void destroy_graph_exec(NativeGraphExec e) noexcept override {
    if (auto* inner = dynamic_cast<GraphBackend*>(inner_.get())) inner->destroy_graph_exec(e);
  }

 protected:
  Backend& inner() { return *inner_; }
  GraphBackend& graphs() { return graph_backend_of(*inner_); }
  // Gives up the inner backend without destroying it (a forked child must
  // not join threads that exist only in its parent).
  void abandon_inner() noexcept { (void)inner_.release(); }

 private:
  std::unique_ptr<Backend> inner_;
};

}  // namespace cudakit::detail
