// The CPU backend: one device made of the host's cores, or several virtual
// ones (CUDAKIT_CPU_DEVICES) sharing them. Memory is aligned host memory, streams are queues with
// their own threads, kernels are shared objects built by the host compiler and run block by block
// on a thread pool.
#include "backend/cpu/cpu_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
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
#include "backend/cpu/host_access.hpp"
#include "backend/cpu/host_compiler.hpp"
#include "backend/cpu/host_registry.hpp"
#include "backend/cpu/launch_task.hpp"
#include "backend/cpu/printf_fifo.hpp"
#include "backend/cpu/thread_pool.hpp"
#include "backend/graph_backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace cpu {
namespace {

// The device made current on this thread (make_current); -1: none yet.
thread_local int t_current_device = -1;

// What the CUDA backend's hint says for a handle of another context.
const char* const kOtherDeviceHint =
    "mixing devices? a kernel (module) or stream belongs to the device it was made on; make that "
    "device current first (Device::make_current, a DeviceScope, `with cuda.gpus[i]:`, "
    "Context.push), as a GPU requires";

// False once the backend is gone: memory freed during static destruction
// after it (a pool's cached blocks) has no queued work left to wait for.
std::atomic<bool> backend_alive{false};

void run_one_block(void* context, unsigned long long index) {
  run_block(*static_cast<const BlockLaunch*>(context), index);
}

class CpuBackend final : public Backend, public GraphBackend {
 public:
  CpuBackend() : pool_(configured_thread_count()) {
    const int count = configured_device_count();
    const std::vector<int> visible = visible_devices();
    for (std::size_t i = 0; i < visible.size(); ++i)
      devices_.push_back(std::make_unique<CpuDevice>(
          static_cast<int>(i),
          cpu_device_properties(visible[i], count, static_cast<unsigned>(pool_.size()))));
    backend_alive.store(true);
  }

  ~CpuBackend() override {
    backend_alive.store(false);
    std::lock_guard lock(streams_mutex_);
    streams_.clear();
  }

  BackendKind kind() const noexcept override { return BackendKind::cpu; }

  // ---- devices ----------------------------------------------------------------
  int device_count() override { return static_cast<int>(devices_.size()); }
  DeviceProperties properties(int ordinal) override {
    return device(ordinal, "reading device properties").properties;
  }
  std::int64_t attribute(int ordinal, DeviceAttribute a) override {
    return cpu_device_attribute(device(ordinal, "reading a device attribute").properties, ordinal,
                                a);
  }
  void make_current(int ordinal) override {
    device(ordinal, "selecting a device");
    t_current_device = ordinal;
    mark_used(ordinal);
  }
  // As on a GPU: 0 on a thread that has not chosen a device.
  int current_device() override { return t_current_device < 0 ? 0 : t_current_device; }
  void synchronize(int ordinal) override {
    device(ordinal, "synchronizing the device");
    std::exception_ptr first;
    for (auto& s : wait_all(ordinal, WaitMode::interruptible))
      if (auto e = s->take_error(); e && !first) first = e;
    if (first) std::rethrow_exception(first);
  }
  MemoryInfo memory_info(int ordinal) override {
    device(ordinal, "reading memory information");  // one host's, shared by all devices
    DeviceMemory& memory = DeviceMemory::instance();
    return {memory.free_bytes(), memory.limit()};
  }
  std::size_t limit(int ordinal, ContextLimit which) override {
    return device(ordinal, "reading a context limit").limits[static_cast<int>(which)].load();
  }
  void set_limit(int ordinal, ContextLimit which, std::size_t value) override {
    CpuDevice& d = device(ordinal, "setting a context limit");
    // The printf FIFO bounds each launch's printf output as on a GPU; the
    // others are kept for the API's sake: fiber stacks are sized by
    // CUDAKIT_CPU_STACK_SIZE, and device malloc is host malloc.
    d.limits[static_cast<int>(which)].store(value);
  }
  // Recorded so they read back as on a GPU; the CPU has no split to choose.
  void set_cache_preference(int ordinal, CachePreference preference) override {
    device(ordinal, "setting the cache preference").cache_preference.store(preference);
  }
  CachePreference cache_preference(int ordinal) override {
    return device(ordinal, "reading the cache preference").cache_preference.load();
  }
  void set_shared_memory_bank_size(int ordinal, SharedMemoryBankSize size) override {
    device(ordinal, "setting the shared memory bank size").bank_size.store(size);
  }
  SharedMemoryBankSize shared_memory_bank_size(int ordinal) override {
    return device(ordinal, "reading the shared memory bank size").bank_size.load();
  }
  // One host: every device's memory is every other device's.
  bool can_access_peer(int ordinal, int peer) override {
    device(ordinal, "asking about peer access");
    device(peer, "asking about peer access");
    return ordinal != peer;
  }
  int driver_version() override { return 0; }

  // ---- memory -------------------------------------------------------------------
  DevicePtr allocate(int ordinal, std::size_t bytes) override {
    device(ordinal, "allocating device memory");
    mark_used(ordinal);
    return reinterpret_cast<DevicePtr>(
        DeviceMemory::instance().allocate(bytes, exact_allocations(), "allocating device memory"));
  }
  void deallocate(int, DevicePtr ptr) noexcept override {
    // As cuMemFree does, wait for queued work first: a launch still queued
    // may use the memory.
    if (backend_alive.load()) wait_all(-1, WaitMode::patient);
    DeviceMemory::instance().free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr)));
  }
  void set_usable_bytes(DevicePtr block, std::size_t used, std::size_t capacity) noexcept override {
    if (used > capacity) return;
    const AsanRegionFn poison = asan_poison(), unpoison = asan_unpoison();
    if (!poison || !unpoison) return;
    // Work queued before this block changed hands runs against the block's
    // old size first: poisoning under its legitimate use would report a false
    // overflow, and unpoisoning would hide its real overruns.
    if (backend_alive.load()) wait_all(-1, WaitMode::patient);
    // A block reused at a larger size than its last use: what the new use
    // may touch is unpoisoned first, then the rest is poisoned.
    char* const base = reinterpret_cast<char*>(static_cast<std::uintptr_t>(block));
    unpoison(base, used);
    if (used < capacity) poison(base + used, capacity - used);
  }
  void* allocate_pinned(std::size_t bytes) override {
    return DeviceMemory::instance().allocate_pinned(bytes, "allocating pinned host memory");
  }
  void deallocate_pinned(void* ptr) noexcept override {
    if (backend_alive.load()) wait_all(-1, WaitMode::patient);  // an async copy may still use it
    DeviceMemory::instance().free_pinned(ptr);
  }

  // Host memory is the device's memory here: registering locks nothing, but
  // the range is recorded so misuse fails as it does on a GPU.
  void register_host(void* ptr, std::size_t bytes, unsigned) override {
    host_registry_.add(ptr, bytes);
  }
  void unregister_host(void* ptr) override {
    // As the driver: queued copies may use it.
    if (backend_alive.load()) wait_all(-1, WaitMode::patient);
    host_registry_.remove(ptr);
  }
  DevicePtr host_device_pointer(void* ptr) override { return reinterpret_cast<DevicePtr>(ptr); }

  // Managed memory is device memory here (which the host reaches anyway);
  // attaching it to a stream changes nothing a host thread can see.
  DevicePtr allocate_managed(int ordinal, std::size_t bytes, unsigned) override {
    return allocate(ordinal, bytes);
  }
  void attach_managed(NativeStream, DevicePtr ptr, std::size_t bytes, unsigned) override {
    if (bytes != 0) known(reinterpret_cast<void*>(ptr), bytes, "attaching managed memory");
  }
  std::pair<DevicePtr, std::size_t> address_range(DevicePtr ptr) override {
    KnownRange range;
    if (!DeviceMemory::instance().find(static_cast<std::uintptr_t>(ptr), range) ||
        range.kind != MemoryKind::device)
      throw ArgumentError(
          "finding the allocation that contains " + hex(reinterpret_cast<const void*>(ptr)),
          "no device allocation contains the address",
          "pass an address inside memory from mem_alloc or managed_empty");
    return {static_cast<DevicePtr>(range.begin), range.bytes};
  }

  // An async copy is queued only when both sides are memory the backend
  // handed out (device, page-locked, registered, a module's globals); with
  // pageable host memory on either side it completes before returning, as
  // CUDA's does, so the caller may reuse or free that memory at once.
  void copy(void* dst, const void* src, std::size_t bytes, NativeStream stream,
            bool async) override {
    if (bytes == 0) return;
    const char* what = "copying memory";
    const bool queueable = queueable_copy(dst, bytes, src, bytes, stream, what);
    run_on(
        stream, async && queueable,
        [dst, src, bytes, what] {
          guarded_host_access(what, dst, src, bytes, [&] { std::memmove(dst, src, bytes); });
        },
        &kCopyOp);
  }
  void fill(DevicePtr dst, std::uint32_t value, unsigned element_bytes, std::size_t count,
            NativeStream stream, bool async) override {
    if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4)
      throw ArgumentError(
          "filling device memory on the CPU backend",
          "element size " + std::to_string(element_bytes) + " is not 1, 2 or 4 bytes");
    if (count == 0) return;
    void* p = reinterpret_cast<void*>(static_cast<std::uintptr_t>(dst));
    const char* what = "filling device memory";
    if (count > SIZE_MAX / element_bytes)
      throw ArgumentError(std::string(what) + " on the CPU backend",
                          std::to_string(count) + " elements of " + std::to_string(element_bytes) +
                              " bytes are more bytes than the address space has");
    known(p, count * element_bytes, what);
    run_on(stream, async, [p, value, element_bytes, count, what] {
      guarded_host_access(what, p, nullptr, count * element_bytes, [&] {
        if (element_bytes == 1) {
          std::memset(p, static_cast<int>(value & 0xff), count);
        } else if (element_bytes == 2) {
          auto* q = static_cast<std::uint16_t*>(p);
          for (std::size_t i = 0; i < count; ++i) q[i] = static_cast<std::uint16_t>(value);
        } else {
          auto* q = static_cast<std::uint32_t*>(p);
          for (std::size_t i = 0; i < count; ++i) q[i] = value;
        }
      });
    });
  }

  // ---- CUDA arrays: records over device memory (cpu_array.hpp) ------------------------
  NativeArray create_array(int ordinal, const CudaArrayDescriptor& descriptor) override {
    device(ordinal, "creating a CUDA array");
    mark_used(ordinal);
    return create_cpu_array(descriptor);
  }
  void destroy_array(NativeArray array) noexcept override {
    if (backend_alive.load()) wait_all(-1, WaitMode::patient);  // queued copies may use it
    destroy_cpu_array(static_cast<CpuArray*>(array));
  }
  std::uint64_t create_texture_object(int ordinal, const TextureRequest& request) override {
    device(ordinal, "creating a texture object");
    return create_cpu_texture(request);
  }
  // Kernels queued before may still read it.
  void destroy_texture_object(std::uint64_t handle) noexcept override {
    if (backend_alive.load()) wait_all(-1, WaitMode::patient);
    destroy_cpu_texture(handle);
  }
  std::uint64_t create_surface_object(int ordinal, NativeArray array,
                                      const CudaArrayDescriptor&) override {
    device(ordinal, "creating a surface object");
    return create_cpu_surface(array);
  }
  void destroy_surface_object(std::uint64_t handle) noexcept override {
    destroy_texture_object(handle);
  }
  void bind_texture_reference(DevicePtr record, const TextureRequest* request,
                              bool surface) override {
    if (record) write_cpu_reference(record, request, surface);
  }
  // As copy(): queued only when both ends are memory the backend handed out.
  void copy_3d(const BoxCopy& box, NativeStream stream, bool async) override {
    const char* what = "copying a box (Memcpy3D)";
    char* const src_first = box_row(box.src, 0, 0);
    char* const dst_first = box_row(box.dst, 0, 0);
    const std::size_t src_bytes = box_bytes(box, box.src), dst_bytes = box_bytes(box, box.dst);
    const bool queueable = queueable_copy(dst_first, dst_bytes, src_first, src_bytes, stream, what);
    run_on(
        stream, async && queueable,
        [box, what, src_first, dst_first, bytes = std::max(src_bytes, dst_bytes)] {
          guarded_host_access(what, dst_first, src_first, bytes, [&] { copy_box(box); });
        },
        &kCopyOp);
  }

  // ---- streams and events -----------------------------------------------------------
  NativeStream create_stream(int ordinal, bool non_blocking) override {
    device(ordinal, "creating a stream");
    mark_used(ordinal);
    auto s = std::make_shared<CpuStream>(non_blocking, ordinal);
    std::lock_guard lock(streams_mutex_);
    streams_[s.get()] = s;
    return s.get();
  }
  void destroy_stream(NativeStream stream) noexcept override {
    std::shared_ptr<CpuStream> s;
    {
      std::lock_guard lock(streams_mutex_);
      auto it = streams_.find(stream);
      if (it == streams_.end()) return;
      s = std::move(it->second);
      streams_.erase(it);
    }
    // Work already queued still runs (as cuStreamDestroy promises); the
    // stream's thread ends when the last reference goes.
  }
  void synchronize_stream(NativeStream stream) override {
    auto s = stream_of(stream);
    s->wait(s->last_ticket(), WaitMode::interruptible);
    rethrow(*s);
  }
  bool query_stream(NativeStream stream) override { return stream_of(stream)->idle(); }
  void stream_wait_event(NativeStream stream, NativeEvent event) override {
    auto e = event_of(event);
    const std::uint64_t sequence = e->latest();
    if (stream_of(stream)->capturing()) {  // waits for the recording latest at replay
      submit(
          stream, [e = std::move(e)] { e->wait_for(e->latest()); }, {}, &kWaitOp);
      return;
    }
    if (sequence == 0) return;  // never recorded: nothing to wait for
    // The task owns a reference: the event may be destroyed before the
    // stream reaches the wait, as cuEventDestroy allows.
    submit(stream, [e = std::move(e), sequence] { e->wait_for(sequence); });
  }
  NativeEvent create_event(int ordinal, bool timing) override {
    device(ordinal, "creating an event");
    auto e = std::make_shared<CpuEvent>(timing);
    std::lock_guard lock(events_mutex_);
    events_[e.get()] = e;
    return e.get();
  }
  void destroy_event(NativeEvent event) noexcept override {
    // Queued recordings and waits hold their own references.
    std::lock_guard lock(events_mutex_);
    events_.erase(event);
  }
  void record_event(NativeEvent event, NativeStream stream) override {
    auto e = event_of(event);
    if (stream_of(stream)->capture_event_record(e)) return;  // recorded at each replay
    const std::uint64_t sequence = e->begin_record();
    // Marked once the stream counts everything before it as done, so a
    // completed event implies an idle stream when it was the last work.
    submit(stream, {}, [e = std::move(e), sequence] { e->mark(sequence); });
  }
  void synchronize_event(NativeEvent event) override {
    static_cast<CpuEvent*>(event)->wait(WaitMode::interruptible);
  }
  bool query_event(NativeEvent event) override { return static_cast<CpuEvent*>(event)->complete(); }
  float elapsed_ms(NativeEvent start, NativeEvent stop) override {
    auto* a = static_cast<CpuEvent*>(start);
    auto* b = static_cast<CpuEvent*>(stop);
    const char* context = "measuring the time between two events on the CPU backend";
    if (!a->timing() || !b->timing())
      throw ArgumentError(context, "an event was created without timing",
                          "create both events with timing enabled");
    std::chrono::steady_clock::time_point ta, tb;
    if (!a->time(ta) || !b->time(tb))
      throw CudaError(context, "an event has not been recorded, or has not completed yet",
                      "synchronize the stop event before asking for the elapsed time", 600,
                      "CUDA_ERROR_NOT_READY");
    return std::chrono::duration<float, std::milli>(tb - ta).count();
  }

  // ---- compile and load ----------------------------------------------------------------
  std::string compiler_identity() override { return host_compiler_identity(); }
  std::string default_arch(int) override { return "cpu"; }
  CompiledCode compile(const CompileRequest& request) override {
    return compile_host_module(request);
  }
  NativeModule load_module(int ordinal, const CompiledCode& code) override {
    device(ordinal, "loading a module");
    mark_used(ordinal);
    auto* module = new CpuModule(code);
    for (const auto& k : module->kernels()) k->device = ordinal;
    return module;
  }
  void unload_module(NativeModule module) noexcept override {
    // Work queued with this module's kernels must finish before its code
    // goes; failures stay recorded for the streams' next synchronization.
    wait_all(-1, WaitMode::patient);
    delete static_cast<CpuModule*>(module);
  }
  std::vector<std::string> kernel_symbols(NativeModule module) override {
    std::vector<std::string> out;
    for (const auto& k : static_cast<CpuModule*>(module)->kernels()) out.push_back(k->symbol);
    return out;
  }
  NativeKernel get_kernel(NativeModule module, const std::string& symbol) override {
    auto* m = static_cast<CpuModule*>(module);
    if (CpuKernel* k = m->find(symbol)) return k;
    std::string list;
    for (const auto& k : m->kernels()) list += (list.empty() ? "" : ", ") + k->name;
    throw ArgumentError("looking up kernel '" + symbol + "' on the CPU backend",
                        "no such kernel; the module has: " + (list.empty() ? "none" : list),
                        "templates need a name expression (CompileOptions::name_expressions)");
  }
  ParamLayout param_layout(NativeModule module, const std::string& symbol) override {
    return static_cast<CpuKernel*>(get_kernel(module, symbol))->layout;
  }
  KernelAttributes kernel_attributes(NativeKernel kernel) override {
    auto* k = static_cast<CpuKernel*>(kernel);
    KernelAttributes a;
    a.max_threads_per_block = 1024;
    a.max_dynamic_shared_bytes = k->max_dynamic_shared;
    a.static_shared_bytes = k->static_shared;
    return a;
  }
  void set_max_dynamic_shared_memory(NativeKernel kernel, std::size_t bytes) override {
    if (bytes > kOptInSharedLimit)
      throw LaunchConfigError(
          "setting the dynamic shared memory limit of a kernel on the CPU backend",
          "max dynamic shared memory per block (opt-in)", static_cast<long long>(bytes),
          static_cast<long long>(kOptInSharedLimit));
    auto* k = static_cast<CpuKernel*>(kernel);
    // As the driver does: the static part and the raised dynamic limit
    // together must fit the opt-in maximum.
    if (bytes + k->static_shared > kOptInSharedLimit)
      throw LaunchConfigError(
          "setting the dynamic shared memory limit of a kernel on the CPU backend",
          "max dynamic shared memory per block (opt-in) less the kernel's " +
              std::to_string(k->static_shared) + " static bytes",
          static_cast<long long>(bytes),
          static_cast<long long>(kOptInSharedLimit -
                                 std::min(kOptInSharedLimit, k->static_shared)));
    k->max_dynamic_shared = bytes;
    k->dynamic_shared_raised = true;
  }
  void set_kernel_cache_preference(NativeKernel kernel, CachePreference preference) override {
    static_cast<CpuKernel*>(kernel)->cache_preference.store(preference);
  }
  // The CPU's caches have no shared memory / L1 split to prefer: a hint that
  // changes nothing here, as the preference is only a hint to the driver.
  void set_kernel_shared_memory_carveout(NativeKernel, int) override {}
  std::pair<DevicePtr, std::size_t> get_global(NativeModule module,
                                               const std::string& name) override {
    auto [address, size] = static_cast<CpuModule*>(module)->global(name);
    if (!address)
      throw ArgumentError("looking up global '" + name + "' on the CPU backend",
                          "the module defines no __device__ or __constant__ variable of that name",
                          "globals are found when defined at namespace scope in the source");
    return {reinterpret_cast<DevicePtr>(address), size};
  }
  // The model of a GPU's multiprocessor the CPU device describes in its
  // properties: warps (2048 threads), blocks (32) and shared memory (228
  // KiB, the kernel's static part plus the launch's dynamic part) each
  // limit the resident blocks; registers do not (the host has no such limit).
  int max_active_blocks_per_multiprocessor(NativeKernel kernel, int block_size,
                                           std::size_t dynamic_shared_bytes) override {
    if (block_size <= 0) return 0;
    const DeviceProperties& p = devices_.front()->properties;  // the same on every device
    const int warp = p.warp_size;
    const int warps_per_block = (block_size + warp - 1) / warp;
    int blocks = std::min(p.max_blocks_per_multiprocessor,
                          p.max_threads_per_multiprocessor / warp / warps_per_block);
    const std::size_t shared =
        static_cast<CpuKernel*>(kernel)->static_shared + dynamic_shared_bytes;
    if (shared > 0)
      blocks = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(blocks),
                                                      p.shared_memory_per_multiprocessor / shared));
    return blocks;
  }
  std::pair<int, int> suggest_block_size(NativeKernel, std::size_t) override {
    return {static_cast<int>(pool_.size()) * 8, 256};
  }

  // ---- launch -----------------------------------------------------------------------------
  void launch(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
              unsigned dynamic_shared_bytes, NativeStream stream, void** args) override {
    auto task = make_task(kernel, kernel_name, grid, block, dynamic_shared_bytes, stream, args);
    submit(
        stream,
        [this, task] {
          task->run_checked([&] {
            pool_.parallel_for(task->launch.grid.volume(), &run_one_block, &task->launch);
          });
        },
        {}, kernel);
  }

  // Every block on its own OS thread (all resident at once, as a GPU
  // guarantees for a cooperative launch), so a grid barrier can complete.
  void launch_cooperative(NativeKernel kernel, const char* kernel_name, Dim3 grid, Dim3 block,
                          unsigned dynamic_shared_bytes, NativeStream stream,
                          void** args) override {
    const long long max_blocks =
        max_cooperative_grid_blocks(static_cast<CpuKernel*>(kernel)->device, kernel,
                                    static_cast<int>(block.volume()), dynamic_shared_bytes);
    if (static_cast<long long>(grid.volume()) > max_blocks)
      throw LaunchConfigError(
          std::string("launching kernel ") + (kernel_name ? kernel_name : "(unnamed)") +
              " cooperatively on the CPU backend (grid " + grid.to_string() + ", block " +
              block.to_string() + ")",
          "max co-resident blocks for a cooperative launch", static_cast<long long>(grid.volume()),
          max_blocks, "launch fewer blocks (Kernel::max_cooperative_grid_blocks)");
    auto task = make_task(kernel, kernel_name, grid, block, dynamic_shared_bytes, stream, args);
    submit(
        stream, [task] { task->run_checked([&] { run_cooperative_grid(task->launch); }); }, {},
        kernel);
  }

  // ---- collectives (cpu_collectives.hpp) --------------------------------------------------
  CommBackend* collectives() override { return &collectives_; }

  // ---- host functions and graphs (cpu_graph.hpp) ---------------------------------------------
  void launch_host_function(NativeStream stream, HostFunction f, void* data) override {
    submit(
        stream, [f, data] { f(data); }, {}, &kHostOp);
  }
  void begin_capture(NativeStream stream, CaptureMode) override {
    auto s = stream_of(stream);
    if (s == null_stream_of(*s))
      throw ArgumentError("beginning a stream capture on the CPU backend",
                          "the legacy default stream cannot be captured");
    s->begin_capture(std::make_shared<CpuGraph>(CpuGraph{s->device(), {}}));
  }
  NativeGraph end_capture(NativeStream stream) override {
    std::shared_ptr<CpuGraph> graph = stream_of(stream)->end_capture();
    if (!graph)
      throw ArgumentError("ending a stream capture on the CPU backend",
                          "the stream is not capturing");
    return new CpuGraph(std::move(*graph));
  }
  bool is_capturing(NativeStream stream) override { return stream_of(stream)->capturing(); }
  std::size_t graph_node_count(NativeGraph graph) override {
    return static_cast<CpuGraph*>(graph)->ops.size();
  }
  NativeGraphExec instantiate_graph(NativeGraph graph) override {
    return new std::shared_ptr<CpuGraphExec>(
        std::make_shared<CpuGraphExec>(*static_cast<CpuGraph*>(graph)));
  }
  void upload_graph(NativeGraphExec, NativeStream) override {}
  void launch_graph(NativeGraphExec exec, NativeStream stream) override {
    auto e = *static_cast<std::shared_ptr<CpuGraphExec>*>(exec);  // the replay owns a reference
    EventRecordings recordings = e->begin_event_recordings();
    submit(
        stream, [e = std::move(e), recordings = std::move(recordings)] { e->run(recordings); }, {},
        &kGraphOp);
  }
  bool update_graph_exec(NativeGraphExec exec, NativeGraph graph) override {
    return (*static_cast<std::shared_ptr<CpuGraphExec>*>(exec))
        ->update(*static_cast<CpuGraph*>(graph));
  }
  void record_event_in_capture(NativeEvent event, NativeStream stream) override {
    record_event(event, stream);  // a capturing stream records it into the graph
  }
  bool is_pageable_host(const void* address) override { return !handed_out(address, 1); }
  void destroy_graph(NativeGraph graph) noexcept override { delete static_cast<CpuGraph*>(graph); }
  void destroy_graph_exec(NativeGraphExec exec) noexcept override {
    delete static_cast<std::shared_ptr<CpuGraphExec>*>(exec);
  }

  // Occupancy x "multiprocessors" (the pool's threads), as on a GPU, and at
  // most kMaxCooperativeBlocks: each block of a cooperative launch takes an
  // OS thread.
  long long max_cooperative_grid_blocks(int ordinal, NativeKernel kernel, int block_size,
                                        std::size_t dynamic_shared_bytes) override {
    device(ordinal, "computing the largest cooperative grid");
    const long long per_sm =
        max_active_blocks_per_multiprocessor(kernel, block_size, dynamic_shared_bytes);
    return std::min<long long>(kMaxCooperativeBlocks,
                               per_sm * static_cast<long long>(pool_.size()));
  }

 private:
  static constexpr long long kMaxCooperativeBlocks = 1024;

  // The launch as it will run later on the stream's thread: the argument
  // values are copied now (the caller's array lives on its stack).
  std::shared_ptr<LaunchTask> make_task(NativeKernel kernel, const char* kernel_name, Dim3 grid,
                                        Dim3 block, unsigned dynamic_shared_bytes,
                                        NativeStream stream, void** args) {
    auto* k = static_cast<CpuKernel*>(kernel);
    check_launch(*k, kernel_name, grid, block, dynamic_shared_bytes);
    if (devices_.size() > 1) check_launch_device(*k, kernel_name, stream);
    auto task = std::make_shared<LaunchTask>();
    task->name = kernel_name ? kernel_name : k->name;
    std::size_t bytes = 0;
    for (const auto& p : k->layout.params) bytes = std::max(bytes, p.offset + p.size);
    task->storage.resize(bytes / sizeof(std::max_align_t) + 1);
    task->argument_bytes = bytes;
    auto* base = reinterpret_cast<unsigned char*>(task->storage.data());
    task->args.resize(k->layout.params.size() + 1);
    for (std::size_t i = 0; i < k->layout.params.size(); ++i) {
      const Param& p = k->layout.params[i];
      std::memcpy(base + p.offset, args[i], p.size);
      task->args[i] = base + p.offset;
    }
    task->launch = BlockLaunch{
        k->entry,          k->module, task->name.c_str(), grid, block, dynamic_shared_bytes,
        task->args.data(), nullptr};
    task->printf_fifo.emplace(devices_[static_cast<std::size_t>(k->device)]
                                  ->limits[static_cast<int>(ContextLimit::printf_fifo_size)]
                                  .load());
    task->launch.printf_fifo = &*task->printf_fifo;
    return task;
  }

  void check_launch(const CpuKernel& k, const char* name, Dim3 grid, Dim3 block,
                    unsigned dynamic_shared) {
    // The message is built only when a check fails: this runs on every launch.
    auto context = [&] {
      return std::string("launching kernel ") + (name ? name : k.name.c_str()) + " (grid " +
             grid.to_string() + ", block " + block.to_string() + ") on the CPU backend";
    };
    if (block.volume() == 0 || grid.volume() == 0)
      throw LaunchConfigError(context(), "non-empty grid and block", 0, 1);
    if (block.volume() > 1024)
      throw LaunchConfigError(context(), "max threads per block",
                              static_cast<long long>(block.volume()), 1024);
    if (block.x > 1024 || block.y > 1024 || block.z > 64)
      throw LaunchConfigError(context(), "max block dimensions (1024x1024x64)",
                              std::max({block.x, block.y, block.z * 16}), 1024);
    if (grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u)
      throw LaunchConfigError(context(), "max grid dimensions (2147483647x65535x65535)",
                              std::max(grid.y, grid.z), 65535);
    // Without an opt-in, static and dynamic shared memory share the 48 KiB a
    // GPU gives a block; the same launch must fail here as it would there.
    if (!k.dynamic_shared_raised && k.static_shared + dynamic_shared > kStaticSharedLimit)
      throw LaunchConfigError(context(),
                              "max shared memory per block (" + std::to_string(k.static_shared) +
                                  " bytes static + dynamic)",
                              static_cast<long long>(k.static_shared + dynamic_shared),
                              static_cast<long long>(kStaticSharedLimit),
                              "raise the kernel's limit first (set_max_dynamic_shared_memory), "
                              "as a GPU requires above 48 KiB, or use less shared memory");
    if (dynamic_shared > k.max_dynamic_shared)
      throw LaunchConfigError(context(), "max dynamic shared memory per block", dynamic_shared,
                              static_cast<long long>(k.max_dynamic_shared),
                              dynamic_shared <= kOptInSharedLimit
                                  ? "raise the kernel's limit first (set_max_dynamic_shared_memory)"
                                  : "");
  }

  // Whether the CPU backend handed out [p, p + bytes) (device or page-locked
  // memory, a registered range, a module's globals): ArgumentError when it
  // starts inside such memory and runs past its end.
  // Whether a copy between the two ranges may be queued (both are memory the
  // backend handed out); CudaError when not while `stream` is being captured.
  bool queueable_copy(const void* dst, std::size_t dst_bytes, const void* src,
                      std::size_t src_bytes, NativeStream stream, const char* what) {
    const bool dst_known = known(dst, dst_bytes, what);
    const bool src_known = known(src, src_bytes, what);
    if (!(dst_known && src_known) && stream_of(stream)->capturing())
      throw CudaError("a copy to or from pageable host memory while a stream is being captured",
                      "host memory that is not page-locked cannot be copied in a graph (reading "
                      "results to the host waits for work that is only recorded)",
                      "end the capture and replay the graph first; or copy from or to "
                      "page-locked memory (PinnedBuffer, drv.pagelocked_empty)",
                      900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
    return dst_known && src_known;
  }
  bool known(const void* p, std::size_t bytes, const char* what) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    DeviceMemory& memory = DeviceMemory::instance();
    memory.check_range(address, bytes,
                       std::string(what) + " on the CPU backend (" + std::to_string(bytes) +
                           " bytes at " + hex(p) + ")");
    return handed_out(p, bytes);
  }
  // Memory the backend handed out: device, page-locked, registered, a module's globals.
  bool handed_out(const void* p, std::size_t bytes) {
    KnownRange range;
    return DeviceMemory::instance().find(reinterpret_cast<std::uintptr_t>(p), range) ||
           host_registry_.contains(p, bytes);
  }

  // Waits for everything queued so far on every stream of device `ordinal`
  // (every device: -1); returns the streams.
  // `unless_parked`: not for a collective waiting for its other ranks.
  std::vector<std::shared_ptr<CpuStream>> wait_all(int ordinal = -1,
                                                   WaitMode mode = WaitMode::plain,
                                                   bool unless_parked = false) {
    std::vector<std::shared_ptr<CpuStream>> all;
    {
      std::lock_guard lock(streams_mutex_);
      for (auto& d : devices_)
        if (ordinal < 0 || d->null_stream->device() == ordinal) all.push_back(d->null_stream);
      for (auto& [raw, s] : streams_)
        if (ordinal < 0 || s->device() == ordinal) all.push_back(s);
    }
    for (auto& s : all)
      unless_parked ? s->wait_unless_parked(s->last_ticket(), mode)
                    : s->wait(s->last_ticket(), mode);
    return all;
  }

  void wait_other_devices(int ordinal) {
    for (int other = 0; other < static_cast<int>(devices_.size()); ++other)
      if (other != ordinal) wait_all(other, WaitMode::interruptible, true);
  }

  CpuDevice& device(int ordinal, const char* what) {
    const int count = static_cast<int>(devices_.size());
    if (ordinal < 0 || ordinal >= count)
      throw ArgumentError(std::string(what) + " on the CPU backend",
                          "no device " + std::to_string(ordinal) + "; the CPU backend has " +
                              std::to_string(count) +
                              (count == 1 ? " (0)" : " (0.." + std::to_string(count - 1) + ")"),
                          "CUDAKIT_CPU_DEVICES=N presents N virtual devices (1 to " +
                              std::to_string(kMaxCpuDevices) + ")");
    return *devices_[static_cast<std::size_t>(ordinal)];
  }

  // The devices whose context a GPU would have retained by now (made
  // current, or memory, streams or modules made on them): one bit each.
  void mark_used(int ordinal) {
    used_devices_.fetch_or(std::uint64_t{1} << ordinal, std::memory_order_relaxed);
  }

  // The device whose legacy default stream a null stream handle means on
  // this thread: the current one.
  int current_or_adopted(int kernel_device) {
    if (t_current_device >= 0) return t_current_device;
    // A thread that never chose a device: as the CUDA backend does, the only
    // device used so far is adopted; otherwise device 0 is current, as
    // Device::current() reports.
    const std::uint64_t used = used_devices_.load(std::memory_order_relaxed);
    if (used == (std::uint64_t{1} << kernel_device)) t_current_device = kernel_device;
    return current_device();
  }

  // A GPU refuses a kernel of one device's module, or a stream of one
  // device, while another device is current ("invalid resource handle");
  // so does the CPU backend when it presents several devices.
  void check_launch_device(const CpuKernel& k, const char* name, NativeStream stream) {
    const int current = current_or_adopted(k.device);
    const int stream_device = stream ? stream_of(stream)->device() : current;
    if (k.device == current && stream_device == current) return;
    const std::string kernel = name ? name : k.name;
    const std::string what = k.device != current
                                 ? "invalid resource handle: kernel " + kernel +
                                       " was loaded on cpu device " + std::to_string(k.device) +
                                       " but cpu device " + std::to_string(current) +
                                       " is current on this thread"
                                 : "invalid resource handle: the stream belongs to cpu device " +
                                       std::to_string(stream_device) + " but cpu device " +
                                       std::to_string(current) + " is current on this thread";
    throw CudaError("launching kernel " + kernel + " on the CPU backend", what, kOtherDeviceHint,
                    400, "CUDA_ERROR_INVALID_HANDLE");
  }

  std::shared_ptr<CpuEvent> event_of(NativeEvent event) {
    std::lock_guard lock(events_mutex_);
    auto it = events_.find(event);
    if (it == events_.end())
      throw ArgumentError("using an event on the CPU backend", "the event does not exist",
                          "it may have been destroyed already");
    return it->second;
  }

  std::shared_ptr<CpuStream> stream_of(NativeStream stream) {
    if (!stream) return devices_[static_cast<std::size_t>(current_device())]->null_stream;
    std::lock_guard lock(streams_mutex_);
    auto it = streams_.find(stream);
    if (it == streams_.end())
      throw ArgumentError("using a stream on the CPU backend", "the stream does not exist",
                          "it may have been destroyed already");
    return it->second;
  }

  static void rethrow(CpuStream& s) {
    if (auto e = s.take_error()) std::rethrow_exception(e);
  }

  // Queues `task` on `stream` with the legacy default stream's ordering:
  // work on the null stream waits for all blocking streams, and work on a
  // blocking stream waits for the null stream.
  std::pair<std::shared_ptr<CpuStream>, std::uint64_t> submit(NativeStream stream,
                                                              std::function<void()> task,
                                                              std::function<void()> after = {},
                                                              const void* key = nullptr) {
    std::shared_ptr<CpuStream> target = stream_of(stream);
    const std::shared_ptr<CpuStream>& null_stream = null_stream_of(*target);
    std::vector<std::pair<std::shared_ptr<CpuStream>, std::uint64_t>> waits;
    {
      std::lock_guard lock(streams_mutex_);
      if (target == null_stream) {
        for (auto& [raw, s] : streams_)
          if (!s->non_blocking() && s->device() == target->device())
            if (auto t = s->last_ticket(); !s->reached(t)) waits.emplace_back(s, t);
      } else if (!target->non_blocking()) {
        if (auto t = null_stream->last_ticket(); !null_stream->reached(t))
          waits.emplace_back(null_stream, t);
      }
    }
    if (!waits.empty())
      task = [waits = std::move(waits), inner = std::move(task)] {
        for (const auto& [s, t] : waits) s->wait(t);
        if (inner) inner();
      };
    std::uint64_t ticket = target->enqueue(std::move(task), std::move(after), key);
    return {target, ticket};
  }

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

  bool quiet(NativeStream stream) {
    auto target = stream_of(stream);
    if (!target->idle()) return false;
    const std::shared_ptr<CpuStream>& null_stream = null_stream_of(*target);
    if (target != null_stream) return target->non_blocking() || null_stream->idle();
    std::lock_guard lock(streams_mutex_);
    for (auto& [raw, s] : streams_)
      if (!s->non_blocking() && s->device() == target->device() && !s->idle()) return false;
    return true;
  }

  const std::shared_ptr<CpuStream>& null_stream_of(const CpuStream& stream) const {
    return devices_[static_cast<std::size_t>(stream.device())]->null_stream;
  }

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

}  // namespace
}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }

}  // namespace cudakit::detail
