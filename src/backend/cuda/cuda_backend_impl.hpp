// The CUDA backend's class, visible to its own files and tests. Creating one
// needs no driver: compile() works with NVRTC alone (compile-only machines,
// CI), and the driver is loaded and initialised on the first call that needs
// a device. make_cuda_backend() (cuda_backend.hpp) is the checked factory the
// registry uses.
#pragma once

#include <cuda.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/comm_backend.hpp"
#include "backend/cuda/launch_history.hpp"
#include "backend/cuda/ptx_entry_parser.hpp"
#include "backend/cuda/stream_faults.hpp"
#include "backend/graph_backend.hpp"

namespace cudakit::detail {

struct CudaDriver;

// An optional entry point of the driver table (graphs, managed memory), or
// NotSupported naming it, with `hint` saying what to do.
template <class F>
F require_driver_entry(F entry, const char* name, const std::string& doing, const char* hint) {
  if (!entry)
    throw NotSupported(doing, std::string("the CUDA driver does not export ") + name, hint);
  return entry;
}

// "0x7f00..." for messages about an address.
inline std::string hex_address(DevicePtr ptr) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(ptr));
  return text;
}

// What NativeModule points to: the driver's module plus what was learned
// when compiling it (the PTX holds the parameter layouts).
struct CudaModule {
  CUmodule handle = nullptr;
  int ordinal = 0;
  std::string ptx;
  std::string arch;
  std::once_flag entries_once;
  std::vector<PtxEntry> entries;  // parsed from ptx on first use
};

class CudaBackend final : public Backend, public GraphBackend {
 public:
  CudaBackend() = default;
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  // Loads libcuda and runs cuInit once; throws DriverNotFound / CudaError.
  // A machine with a driver but no GPU is fine (device_count() == 0).
  const CudaDriver& driver();

  BackendKind kind() const noexcept override { return BackendKind::cuda; }

  int device_count() override;
  DeviceProperties properties(int ordinal) override;
  std::int64_t attribute(int ordinal, DeviceAttribute attribute) override;
  void make_current(int ordinal) override;
  int current_device() override;
  void synchronize(int ordinal) override;
  MemoryInfo memory_info(int ordinal) override;
  std::size_t limit(int ordinal, ContextLimit which) override;
  void set_limit(int ordinal, ContextLimit which, std::size_t value) override;
  void set_cache_preference(int ordinal, CachePreference preference) override;  // cuda_config.cpp
  CachePreference cache_preference(int ordinal) override;
  void set_shared_memory_bank_size(int ordinal, SharedMemoryBankSize size) override;
  SharedMemoryBankSize shared_memory_bank_size(int ordinal) override;
  bool can_access_peer(int ordinal, int peer) override;
  int driver_version() override;

  DevicePtr allocate(int ordinal, std::size_t bytes) override;
  void deallocate(int ordinal, DevicePtr ptr) noexcept override;
  void* allocate_pinned(std::size_t bytes) override;
  void deallocate_pinned(void* ptr) noexcept override;
  void register_host(void* ptr, std::size_t bytes, unsigned flags) override;  // cuda_config.cpp
  void unregister_host(void* ptr) override;
  DevicePtr host_device_pointer(void* ptr) override;
  DevicePtr allocate_managed(int ordinal, std::size_t bytes,
                             unsigned attach_flags) override;  // cuda_managed.cpp
  void attach_managed(NativeStream stream, DevicePtr ptr, std::size_t bytes,
                      unsigned attach_flags) override;
  std::pair<DevicePtr, std::size_t> address_range(DevicePtr ptr) override;
  IpcHandleBytes ipc_get_handle(int ordinal, DevicePtr base) override;  // cuda_ipc.cpp
  DevicePtr ipc_open(int ordinal, const IpcHandleBytes& handle, unsigned flags) override;
  void ipc_close(int ordinal, DevicePtr ptr) override;
  void copy(void* dst, const void* src, std::size_t bytes, NativeStream stream,
            bool async) override;
  void fill(DevicePtr dst, std::uint32_t value, unsigned element_bytes, std::size_t count,
            NativeStream stream, bool async) override;

  NativeArray create_array(int ordinal,
                           const CudaArrayDescriptor& descriptor) override;  // cuda_array.cpp
  void destroy_array(NativeArray array) noexcept override;
  void copy_3d(const BoxCopy& copy, NativeStream stream, bool async) override;
  std::uint64_t create_texture_object(int ordinal,
                                      const TextureRequest& request) override;  // cuda_texture.cpp
  void destroy_texture_object(std::uint64_t handle) noexcept override;
  std::uint64_t create_surface_object(int ordinal, NativeArray array,
                                      const CudaArrayDescriptor& layout) override;
  void destroy_surface_object(std::uint64_t handle) noexcept override;

  NativeStream create_stream(int ordinal, bool non_blocking) override;
  void destroy_stream(NativeStream stream) noexcept override;
  void synchronize_stream(NativeStream stream) override;
  bool query_stream(NativeStream stream) override;
  void stream_wait_event(NativeStream stream, NativeEvent event) override;
  NativeEvent create_event(int ordinal, bool timing) override;
  void destroy_event(NativeEvent event) noexcept override;
  void record_event(NativeEvent event, NativeStream stream) override;
  void synchronize_event(NativeEvent event) override;
  bool query_event(NativeEvent event) override;
  float elapsed_ms(NativeEvent start, NativeEvent stop) override;

  std::string compiler_identity() override;
  GpuCompilerInfo gpu_compiler_info() override;
  std::string default_arch(int ordinal) override;
  CompiledCode compile(const CompileRequest& request) override;
  NativeModule load_module(int ordinal, const CompiledCode& code) override;
  void unload_module(NativeModule module) noexcept override;
  CompiledCode link(int ordinal, const std::vector<LinkInput>& inputs,
                    const LinkOptions& options) override;  // cuda_linker.cpp
  std::vector<std::string> kernel_symbols(NativeModule module) override;
  NativeKernel get_kernel(NativeModule module, const std::string& symbol) override;
  ParamLayout param_layout(NativeModule module, const std::string& symbol) override;
  KernelAttributes kernel_attributes(NativeKernel kernel) override;
  void set_max_dynamic_shared_memory(NativeKernel kernel, std::size_t bytes) override;
  void set_kernel_cache_preference(NativeKernel kernel, CachePreference preference) override;
  void set_kernel_shared_memory_carveout(NativeKernel kernel, int percent) override;
  std::pair<DevicePtr, std::size_t> get_global(NativeModule module,
                                               const std::string& name) override;
  int max_active_blocks_per_multiprocessor(NativeKernel kernel, int block_size,
                                           std::size_t dynamic_shared_bytes) override;
  std::pair<int, int> suggest_block_size(NativeKernel kernel,
                                         std::size_t dynamic_shared_bytes) override;

  void launch(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
              unsigned dynamic_shared_bytes, NativeStream stream, void** args) override;
  void launch_cooperative(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
                          unsigned dynamic_shared_bytes, NativeStream stream, void** args) override;

  // cuda_graph.cpp
  void launch_host_function(NativeStream stream, HostFunction function, void* user_data) override;
  void begin_capture(NativeStream stream, CaptureMode mode) override;
  NativeGraph end_capture(NativeStream stream) override;
  bool is_capturing(NativeStream stream) override;
  std::size_t graph_node_count(NativeGraph graph) override;
  NativeGraphExec instantiate_graph(NativeGraph graph) override;
  void upload_graph(NativeGraphExec exec, NativeStream stream) override;
  void launch_graph(NativeGraphExec exec, NativeStream stream) override;
  bool update_graph_exec(NativeGraphExec exec, NativeGraph graph) override;
  void record_event_in_capture(NativeEvent event, NativeStream stream) override;
  bool is_pageable_host(const void* address) override;
  void destroy_graph(NativeGraph graph) noexcept override;
  void destroy_graph_exec(NativeGraphExec exec) noexcept override;

  bool gemm_available(ScalarType type) override;  // cuda_gemm.cpp
  void gemm(int ordinal, NativeStream stream, const GemmRequest& request) override;

  CommBackend* collectives() override;  // cuda_collectives.cpp: NCCL
  // Errors the NCCL watchdog filed for streams: synchronize throws them.
  StreamFaults& stream_faults() noexcept { return stream_faults_; }

  // Throws the mapped exception for `result`; for kernel faults it names the
  // kernels recorded on `stream` (or, with no stream known, the latest ones).
  [[noreturn]] void fail(CUresult result, const std::string& context, NativeStream stream,
                         bool stream_known);

 private:
  static constexpr int kMaxDevices = 64;

  void check_ordinal(int ordinal, const char* doing);
  CUcontext primary_context(int ordinal);
  // Makes some context current when none is (a thread that never chose a
  // device works on device 0, as the runtime API does).
  void ensure_context();
  // On a thread with no current context: makes the one context cudakit has
  // retained current and returns true; false when there are none or several.
  bool adopt_only_context();
  [[noreturn]] void fail_launch(CUresult result, CUfunction kernel, const char* kernel_name,
                                Dim3 grid, Dim3 block, unsigned dynamic_shared_bytes,
                                NativeStream stream);

  std::once_flag init_once_;
  std::exception_ptr init_failure_;
  const CudaDriver* driver_ = nullptr;
  int device_count_ = 0;

  std::mutex context_mutex_;
  std::array<std::atomic<CUcontext>, kMaxDevices> contexts_{};

  LaunchHistory history_;
  // The bank size as set, for drivers that no longer export the call.
  std::atomic<SharedMemoryBankSize> bank_size_{SharedMemoryBankSize::default_size};

  StreamFaults stream_faults_;
  std::once_flag collectives_once_;
  std::unique_ptr<CommBackend> collectives_;
};

}  // namespace cudakit::detail
