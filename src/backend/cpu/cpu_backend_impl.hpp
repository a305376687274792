// The CPU backend's class (cpu_backend.hpp makes it), visible to its own
// files: devices, memory (box copies included), streams, events and graphs
// (cpu_backend.cpp), CUDA arrays, textures and surfaces
// (cpu_backend_arrays.cpp), modules and launches (cpu_backend_kernels.cpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/cpu/block_runner.hpp"
#include "backend/cpu/cpu_array.hpp"
#include "backend/cpu/cpu_collectives.hpp"
#include "backend/cpu/cpu_devices.hpp"
#include "backend/cpu/cpu_graph.hpp"
#include "backend/cpu/cpu_module.hpp"
#include "backend/cpu/cpu_stream.hpp"
#include "backend/cpu/cpu_texture.hpp"
#include "backend/cpu/device_memory.hpp"
#include "backend/cpu/fault_guard.hpp"
#include "backend/cpu/host_compiler.hpp"
#include "backend/cpu/host_registry.hpp"
#include "backend/cpu/launch_task.hpp"
#include "backend/cpu/printf_fifo.hpp"
#include "backend/cpu/thread_pool.hpp"
#include "backend/graph_backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail::cpu {

// The device made current on this thread (make_current); -1: none yet.
extern thread_local int t_current_device;

// False once the backend is gone: memory freed during static destruction
// after it (a pool's cached blocks) has no queued work left to wait for.
extern std::atomic<bool> backend_alive;

class CpuBackend final : public Backend, public GraphBackend {
 public:
  CpuBackend();

  ~CpuBackend() override;

  BackendKind kind() const noexcept override { return BackendKind::cpu; }

  // ---- devices ----------------------------------------------------------------
  int device_count() override { return static_cast<int>(devices_.size()); }
  DeviceProperties properties(int ordinal) override;
  std::int64_t attribute(int ordinal, DeviceAttribute a) override;
  void make_current(int ordinal) override;
  // As on a GPU: 0 on a thread that has not chosen a device.
  int current_device() override { return t_current_device < 0 ? 0 : t_current_device; }
  void synchronize(int ordinal) override;
  MemoryInfo memory_info(int ordinal) override;
  std::size_t limit(int ordinal, ContextLimit which) override;
  void set_limit(int ordinal, ContextLimit which, std::size_t value) override;
  // Recorded so they read back as on a GPU; the CPU has no split to choose.
  void set_cache_preference(int ordinal, CachePreference preference) override;
  CachePreference cache_preference(int ordinal) override;
  void set_shared_memory_bank_size(int ordinal, SharedMemoryBankSize size) override;
  SharedMemoryBankSize shared_memory_bank_size(int ordinal) override;
  // One host: every device's memory is every other device's.
  bool can_access_peer(int ordinal, int peer) override;
  int driver_version() override { return 0; }

  // ---- memory -------------------------------------------------------------------
  DevicePtr allocate(int ordinal, std::size_t bytes) override;
  void deallocate(int, DevicePtr ptr) noexcept override;
  void set_usable_bytes(DevicePtr block, std::size_t used, std::size_t capacity) noexcept override;
  void* allocate_pinned(std::size_t bytes) override;
  void deallocate_pinned(void* ptr) noexcept override;

  // Host memory is the device's memory here: registering locks nothing, but
  // the range is recorded so misuse fails as it does on a GPU.
  void register_host(void* ptr, std::size_t bytes, unsigned) override;
  void unregister_host(void* ptr) override;
  DevicePtr host_device_pointer(void* ptr) override { return reinterpret_cast<DevicePtr>(ptr); }

  // Managed memory is device memory here (which the host reaches anyway);
  // attaching it to a stream changes nothing a host thread can see.
  DevicePtr allocate_managed(int ordinal, std::size_t bytes, unsigned) override;
  void attach_managed(NativeStream, DevicePtr ptr, std::size_t bytes, unsigned) override;
  std::pair<DevicePtr, std::size_t> address_range(DevicePtr ptr) override;

  // An async copy is queued only when both sides are memory the backend
  // handed out (device, page-locked, registered, a module's globals); with
  // pageable host memory on either side it completes before returning, as
  // CUDA's does, so the caller may reuse or free that memory at once.
  void copy(void* dst, const void* src, std::size_t bytes, NativeStream stream,
            bool async) override;
  void fill(DevicePtr dst, std::uint32_t value, unsigned element_bytes, std::size_t count,
            NativeStream stream, bool async) override;

  // ---- CUDA arrays: records over device memory (cpu_array.hpp) ------------------------
  NativeArray create_array(int ordinal, const CudaArrayDescriptor& descriptor) override;
  void destroy_array(NativeArray array) noexcept override;
  std::uint64_t create_texture_object(int ordinal, const TextureRequest& request) override;
  // Kernels queued before may still read it.
  void destroy_texture_object(std::uint64_t handle) noexcept override;
  std::uint64_t create_surface_object(int ordinal, NativeArray array,
                                      const CudaArrayDescriptor&) override;
  void destroy_surface_object(std::uint64_t handle) noexcept override;
  void bind_texture_reference(DevicePtr record, const TextureRequest* request,
                              bool surface) override;
  // As copy(): queued only when both ends are memory the backend handed out.
  void copy_3d(const BoxCopy& box, NativeStream stream, bool async) override;

  // ---- streams and events -----------------------------------------------------------
  NativeStream create_stream(int ordinal, bool non_blocking) override;
  void destroy_stream(NativeStream stream) noexcept override;
  void synchronize_stream(NativeStream stream) override;
  bool query_stream(NativeStream stream) override { return stream_of(stream)->idle(); }
  void stream_wait_event(NativeStream stream, NativeEvent event) override;
  NativeEvent create_event(int ordinal, bool timing) override;
  void destroy_event(NativeEvent event) noexcept override;
  void record_event(NativeEvent event, NativeStream stream) override;
  void synchronize_event(NativeEvent event) override;
  bool query_event(NativeEvent event) override { return static_cast<CpuEvent*>(event)->complete(); }
  float elapsed_ms(NativeEvent start, NativeEvent stop) override;

  // ---- compile and load ----------------------------------------------------------------
  std::string compiler_identity() override { return host_compiler_identity(); }
  std::string default_arch(int) override { return "cpu"; }
  CompiledCode compile(const CompileRequest& request) override;
  NativeModule load_module(int ordinal, const CompiledCode& code) override;
  void unload_module(NativeModule module) noexcept override;
  std::vector<std::string> kernel_symbols(NativeModule module) override;
  NativeKernel get_kernel(NativeModule module, const std::string& symbol) override;
  ParamLayout param_layout(NativeModule module, const std::string& symbol) override;
  KernelAttributes kernel_attributes(NativeKernel kernel) override;
  void set_max_dynamic_shared_memory(NativeKernel kernel, std::size_t bytes) override;
  void set_kernel_cache_preference(NativeKernel kernel, CachePreference preference) override;
  // The CPU's caches have no shared memory / L1 split to prefer: a hint that
  // changes nothing here, as the preference is only a hint to the driver.
  void set_kernel_shared_memory_carveout(NativeKernel, int) override {}
  std::pair<DevicePtr, std::size_t> get_global(NativeModule module,
                                               const std::string& name) override;
  // The model of a GPU's multiprocessor the CPU device describes in its
  // properties: warps (2048 threads), blocks (32) and shared memory (228
  // KiB, the kernel's static part plus the launch's dynamic part) each
  // limit the resident blocks; registers do not (the host has no such limit).
  int max_active_blocks_per_multiprocessor(NativeKernel kernel, int block_size,
                                           std::size_t dynamic_shared_bytes) override;
  std::pair<int, int> suggest_block_size(NativeKernel, std::size_t) override;

  // ---- launch -----------------------------------------------------------------------------
  void launch(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
              unsigned dynamic_shared_bytes, NativeStream stream, void** args) override;

  // Every block on its own OS thread (all resident at once, as a GPU
  // guarantees for a cooperative launch), so a grid barrier can complete.
  void launch_cooperative(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
                          unsigned dynamic_shared_bytes, NativeStream stream, void** args) override;

  // ---- collectives (cpu_collectives.hpp) --------------------------------------------------
  CommBackend* collectives() override { return &collectives_; }

  // ---- host functions and graphs (cpu_graph.hpp) ---------------------------------------------
  void launch_host_function(NativeStream stream, HostFunction f, void* data) override;
  void begin_capture(NativeStream stream, CaptureMode) override;
  NativeGraph end_capture(NativeStream stream) override;
  bool is_capturing(NativeStream stream) override { return stream_of(stream)->capturing(); }
  std::size_t graph_node_count(NativeGraph graph) override;
  NativeGraphExec instantiate_graph(NativeGraph graph) override;
  void upload_graph(NativeGraphExec, NativeStream) override {}
  void launch_graph(NativeGraphExec exec, NativeStream stream) override;
  bool update_graph_exec(NativeGraphExec exec, NativeGraph graph) override;
  void record_event_in_capture(NativeEvent event, NativeStream stream) override;
  bool is_pageable_host(const void* address) override { return !handed_out(address, 1); }
  void destroy_graph(NativeGraph graph) noexcept override { delete static_cast<CpuGraph*>(graph); }
  void destroy_graph_exec(NativeGraphExec exec) noexcept override;

  // Occupancy x "multiprocessors" (the pool's threads), as on a GPU, and at
  // most kMaxCooperativeBlocks: each block of a cooperative launch takes an
  // OS thread.
  long long max_cooperative_grid_blocks(int ordinal, NativeKernel kernel, int block_size,
                                        std::size_t dynamic_shared_bytes) override;

 private:
  static constexpr long long kMaxCooperativeBlocks = 1024;

  // The launch as it will run later on the stream's thread: the argument
  // values are copied now (the caller's array lives on its stack).
  std::shared_ptr<LaunchTask> make_task(NativeKernel kernel, const char* kernel_name, Dim3 grid,
                                        Dim3 block, unsigned dynamic_shared_bytes,
                                        NativeStream stream, void** args);

  void check_launch(const CpuKernel& k, const char* name, Dim3 grid, Dim3 block,
                    unsigned dynamic_shared);

  // Whether the CPU backend handed out [p, p + bytes) (device or page-locked
  // memory, a registered range, a module's globals): ArgumentError when it
  // starts inside such memory and runs past its end.
  // Whether a copy between the two ranges may be queued (both are memory the
  // backend handed out); CudaError when not while `stream` is being captured.
  bool queueable_copy(const void* dst, std::size_t dst_bytes, const void* src,
                      std::size_t src_bytes, NativeStream stream, const char* what);
  bool known(const void* p, std::size_t bytes, const char* what);
  // Memory the backend handed out: device, page-locked, registered, a module's globals.
  bool handed_out(const void* p, std::size_t bytes);

  // Waits for everything queued so far on every stream of device `ordinal`
  // (every device: -1); returns the streams.
  // `unless_parked`: not for a collective waiting for its other ranks.
  std::vector<std::shared_ptr<CpuStream>> wait_all(int ordinal = -1,
                                                   WaitMode mode = WaitMode::plain,
                                                   bool unless_parked = false);

  void wait_other_devices(int ordinal);

  CpuDevice& device(int ordinal, const char* what);

  // The devices whose context a GPU would have retained by now (made
  // current, or memory, streams or modules made on them): one bit each.
  void mark_used(int ordinal);

  // The device whose legacy default stream a null stream handle means on
  // this thread: the current one.
  int current_or_adopted(int kernel_device);

  // A GPU refuses a kernel of one device's module, or a stream of one
  // device, while another device is current ("invalid resource handle");
  // so does the CPU backend when it presents several devices.
  void check_launch_device(const CpuKernel& k, const char* name, NativeStream stream);

  std::shared_ptr<CpuEvent> event_of(NativeEvent event);

  std::shared_ptr<CpuStream> stream_of(NativeStream stream);

  static void rethrow(CpuStream& s) {
    if (auto e = s.take_error()) std::rethrow_exception(e);
  }

  // Queues `task` on `stream` with the legacy default stream's ordering:
  // work on the null stream waits for all blocking streams, and work on a
  // blocking stream waits for the null stream.
  std::pair<std::shared_ptr<CpuStream>, std::uint64_t> submit(NativeStream stream,
                                                              std::function<void()> task,
                                                              std::function<void()> after = {},
                                                              const void* key = nullptr);

  // A copy or fill: queued when async; otherwise done at once when nothing
  // it must follow is pending, else queued and waited for.
  template <class F>
  void run_on(NativeStream stream, bool async, F work, const void* key = &kFillOp) {
    if (async) {
      submit(stream, std::move(work), {}, key);
      return;
    }
    // The memory may be another device's, with work still queued there:
    // one host cannot tell whose an address is, so a synchronous copy
    // waits for the other devices too (deterministic, if stricter than a GPU).
    if (devices_.size() > 1) wait_other_devices(stream_of(stream)->device());
    if (quiet(stream)) {
      // A fault of work that has already finished is reported now, as the
      // waiting path below would (a GPU's error is sticky too).
      rethrow(*stream_of(stream));
      work();
      return;
    }
    auto [s, ticket] = submit(stream, std::move(work));
    s->wait(ticket, WaitMode::interruptible);
    rethrow(*s);
  }

  bool quiet(NativeStream stream);

  const std::shared_ptr<CpuStream>& null_stream_of(const CpuStream& stream) const;

  ThreadPool pool_;
  std::vector<std::unique_ptr<CpuDevice>> devices_;
  std::atomic<std::uint64_t> used_devices_{0};
  std::mutex streams_mutex_;
  std::map<void*, std::shared_ptr<CpuStream>> streams_;
  std::mutex events_mutex_;
  std::map<void*, std::shared_ptr<CpuEvent>> events_;
  HostRegistry host_registry_;
  // A null stream is the default stream of the communicator's device,
  // whichever device is current on the calling thread.
  CpuCollectives collectives_{[this](int ordinal, NativeStream stream, std::function<void()> task) {
    const int current = t_current_device;
    t_current_device = ordinal;
    try {
      submit(stream, std::move(task));
    } catch (...) {
      t_current_device = current;
      throw;
    }
    t_current_device = current;
  }};
};

}  // namespace cudakit::detail::cpu
