// The CPU backend: one device made of the host's cores, or several virtual
// ones (CUDAKIT_CPU_DEVICES) sharing them. Memory is aligned host memory, streams are queues with
// their own threads, kernels are shared objects built by the host compiler and run block by block
// on a thread pool.
#include "backend/cpu/cpu_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <csetjmp>
#include <cstdio>

#include "backend/cpu/cpu_backend_impl.hpp"
#include "backend/cpu/host_access.hpp"

namespace cudakit::detail {
namespace cpu {

thread_local int t_current_device = -1;

std::atomic<bool> backend_alive{false};

CpuBackend::CpuBackend() : pool_(configured_thread_count()) {
  const int count = configured_device_count();
  const std::vector<int> visible = visible_devices();
  for (std::size_t i = 0; i < visible.size(); ++i)
    devices_.push_back(std::make_unique<CpuDevice>(
        static_cast<int>(i),
        cpu_device_properties(visible[i], count, static_cast<unsigned>(pool_.size()))));
  backend_alive.store(true);
}

CpuBackend::~CpuBackend() {
  backend_alive.store(false);
  std::lock_guard lock(streams_mutex_);
  streams_.clear();
}

DeviceProperties CpuBackend::properties(int ordinal) {
  return device(ordinal, "reading device properties").properties;
}

std::int64_t CpuBackend::attribute(int ordinal, DeviceAttribute a) {
  return cpu_device_attribute(device(ordinal, "reading a device attribute").properties, ordinal, a);
}

void CpuBackend::make_current(int ordinal) {
  device(ordinal, "selecting a device");
  t_current_device = ordinal;
  mark_used(ordinal);
}

void CpuBackend::synchronize(int ordinal) {
  device(ordinal, "synchronizing the device");
  std::exception_ptr first;
  for (auto& s : wait_all(ordinal, WaitMode::interruptible))
    if (auto e = s->take_error(); e && !first) first = e;
  if (first) std::rethrow_exception(first);
}

MemoryInfo CpuBackend::memory_info(int ordinal) {
  device(ordinal, "reading memory information");  // one host's, shared by all devices
  DeviceMemory& memory = DeviceMemory::instance();
  return {memory.free_bytes(), memory.limit()};
}

std::size_t CpuBackend::limit(int ordinal, ContextLimit which) {
  return device(ordinal, "reading a context limit").limits[static_cast<int>(which)].load();
}

void CpuBackend::set_limit(int ordinal, ContextLimit which, std::size_t value) {
  CpuDevice& d = device(ordinal, "setting a context limit");
  // The printf FIFO bounds each launch's printf output as on a GPU; the
  // others are kept for the API's sake: fiber stacks are sized by
  // CUDAKIT_CPU_STACK_SIZE, and device malloc is host malloc.
  d.limits[static_cast<int>(which)].store(value);
}

void CpuBackend::set_cache_preference(int ordinal, CachePreference preference) {
  device(ordinal, "setting the cache preference").cache_preference.store(preference);
}

CachePreference CpuBackend::cache_preference(int ordinal) {
  return device(ordinal, "reading the cache preference").cache_preference.load();
}

void CpuBackend::set_shared_memory_bank_size(int ordinal, SharedMemoryBankSize size) {
  device(ordinal, "setting the shared memory bank size").bank_size.store(size);
}

SharedMemoryBankSize CpuBackend::shared_memory_bank_size(int ordinal) {
  return device(ordinal, "reading the shared memory bank size").bank_size.load();
}

bool CpuBackend::can_access_peer(int ordinal, int peer) {
  device(ordinal, "asking about peer access");
  device(peer, "asking about peer access");
  return ordinal != peer;
}

DevicePtr CpuBackend::allocate(int ordinal, std::size_t bytes) {
  device(ordinal, "allocating device memory");
  mark_used(ordinal);
  return reinterpret_cast<DevicePtr>(
      DeviceMemory::instance().allocate(bytes, exact_allocations(), "allocating device memory"));
}

void CpuBackend::deallocate(int, DevicePtr ptr) noexcept {
  // As cuMemFree does, wait for queued work first: a launch still queued
  // may use the memory.
  if (backend_alive.load()) wait_all(-1, WaitMode::patient);
  DeviceMemory::instance().free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr)));
}

void CpuBackend::set_usable_bytes(DevicePtr block, std::size_t used,
                                  std::size_t capacity) noexcept {
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

void* CpuBackend::allocate_pinned(std::size_t bytes) {
  return DeviceMemory::instance().allocate_pinned(bytes, "allocating pinned host memory");
}

void CpuBackend::deallocate_pinned(void* ptr) noexcept {
  if (backend_alive.load()) wait_all(-1, WaitMode::patient);  // an async copy may still use it
  DeviceMemory::instance().free_pinned(ptr);
}

void CpuBackend::register_host(void* ptr, std::size_t bytes, unsigned) {
  host_registry_.add(ptr, bytes);
}

void CpuBackend::unregister_host(void* ptr) {
  // As the driver: queued copies may use it.
  if (backend_alive.load()) wait_all(-1, WaitMode::patient);
  host_registry_.remove(ptr);
}

DevicePtr CpuBackend::allocate_managed(int ordinal, std::size_t bytes, unsigned) {
  return allocate(ordinal, bytes);
}

void CpuBackend::attach_managed(NativeStream, DevicePtr ptr, std::size_t bytes, unsigned) {
  if (bytes != 0) known(reinterpret_cast<void*>(ptr), bytes, "attaching managed memory");
}

std::pair<DevicePtr, std::size_t> CpuBackend::address_range(DevicePtr ptr) {
  KnownRange range;
  if (!DeviceMemory::instance().find(static_cast<std::uintptr_t>(ptr), range) ||
      range.kind != MemoryKind::device)
    throw ArgumentError(
        "finding the allocation that contains " + hex(reinterpret_cast<const void*>(ptr)),
        "no device allocation contains the address",
        "pass an address inside memory from mem_alloc or managed_empty");
  return {static_cast<DevicePtr>(range.begin), range.bytes};
}

void CpuBackend::copy(void* dst, const void* src, std::size_t bytes, NativeStream stream,
                      bool async) {
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

void CpuBackend::fill(DevicePtr dst, std::uint32_t value, unsigned element_bytes, std::size_t count,
                      NativeStream stream, bool async) {
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

void CpuBackend::copy_3d(const BoxCopy& box, NativeStream stream, bool async) {
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

NativeStream CpuBackend::create_stream(int ordinal, bool non_blocking) {
  device(ordinal, "creating a stream");
  mark_used(ordinal);
  auto s = std::make_shared<CpuStream>(non_blocking, ordinal);
  std::lock_guard lock(streams_mutex_);
  streams_[s.get()] = s;
  return s.get();
}

void CpuBackend::destroy_stream(NativeStream stream) noexcept {
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

void CpuBackend::synchronize_stream(NativeStream stream) {
  auto s = stream_of(stream);
  s->wait(s->last_ticket(), WaitMode::interruptible);
  rethrow(*s);
}

void CpuBackend::stream_wait_event(NativeStream stream, NativeEvent event) {
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

NativeEvent CpuBackend::create_event(int ordinal, bool timing) {
  device(ordinal, "creating an event");
  auto e = std::make_shared<CpuEvent>(timing);
  std::lock_guard lock(events_mutex_);
  events_[e.get()] = e;
  return e.get();
}

void CpuBackend::destroy_event(NativeEvent event) noexcept {
  // Queued recordings and waits hold their own references.
  std::lock_guard lock(events_mutex_);
  events_.erase(event);
}

void CpuBackend::record_event(NativeEvent event, NativeStream stream) {
  auto e = event_of(event);
  if (stream_of(stream)->capture_event_record(e)) return;  // recorded at each replay
  const std::uint64_t sequence = e->begin_record();
  // Marked once the stream counts everything before it as done, so a
  // completed event implies an idle stream when it was the last work.
  submit(stream, {}, [e = std::move(e), sequence] { e->mark(sequence); });
}

void CpuBackend::synchronize_event(NativeEvent event) {
  static_cast<CpuEvent*>(event)->wait(WaitMode::interruptible);
}

float CpuBackend::elapsed_ms(NativeEvent start, NativeEvent stop) {
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

void CpuBackend::launch_host_function(NativeStream stream, HostFunction f, void* data) {
  submit(
      stream, [f, data] { f(data); }, {}, &kHostOp);
}

void CpuBackend::begin_capture(NativeStream stream, CaptureMode) {
  auto s = stream_of(stream);
  if (s == null_stream_of(*s))
    throw ArgumentError("beginning a stream capture on the CPU backend",
                        "the legacy default stream cannot be captured");
  s->begin_capture(std::make_shared<CpuGraph>(CpuGraph{s->device(), {}}));
}

NativeGraph CpuBackend::end_capture(NativeStream stream) {
  std::shared_ptr<CpuGraph> graph = stream_of(stream)->end_capture();
  if (!graph)
    throw ArgumentError("ending a stream capture on the CPU backend",
                        "the stream is not capturing");
  return new CpuGraph(std::move(*graph));
}

std::size_t CpuBackend::graph_node_count(NativeGraph graph) {
  return static_cast<CpuGraph*>(graph)->ops.size();
}

NativeGraphExec CpuBackend::instantiate_graph(NativeGraph graph) {
  return new std::shared_ptr<CpuGraphExec>(
      std::make_shared<CpuGraphExec>(*static_cast<CpuGraph*>(graph)));
}

void CpuBackend::launch_graph(NativeGraphExec exec, NativeStream stream) {
  auto e = *static_cast<std::shared_ptr<CpuGraphExec>*>(exec);  // the replay owns a reference
  EventRecordings recordings = e->begin_event_recordings();
  submit(
      stream, [e = std::move(e), recordings = std::move(recordings)] { e->run(recordings); }, {},
      &kGraphOp);
}

bool CpuBackend::update_graph_exec(NativeGraphExec exec, NativeGraph graph) {
  return (*static_cast<std::shared_ptr<CpuGraphExec>*>(exec))
      ->update(*static_cast<CpuGraph*>(graph));
}

void CpuBackend::record_event_in_capture(NativeEvent event, NativeStream stream) {
  record_event(event, stream);  // a capturing stream records it into the graph
}

void CpuBackend::destroy_graph_exec(NativeGraphExec exec) noexcept {
  delete static_cast<std::shared_ptr<CpuGraphExec>*>(exec);
}

bool CpuBackend::queueable_copy(const void* dst, std::size_t dst_bytes, const void* src,
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

bool CpuBackend::known(const void* p, std::size_t bytes, const char* what) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  DeviceMemory& memory = DeviceMemory::instance();
  memory.check_range(address, bytes,
                     std::string(what) + " on the CPU backend (" + std::to_string(bytes) +
                         " bytes at " + hex(p) + ")");
  return handed_out(p, bytes);
}

bool CpuBackend::handed_out(const void* p, std::size_t bytes) {
  KnownRange range;
  return DeviceMemory::instance().find(reinterpret_cast<std::uintptr_t>(p), range) ||
         host_registry_.contains(p, bytes);
}

std::vector<std::shared_ptr<CpuStream>> CpuBackend::wait_all(int ordinal, WaitMode mode,
                                                             bool unless_parked) {
  std::vector<std::shared_ptr<CpuStream>> all;
  {
    std::lock_guard lock(streams_mutex_);
    for (auto& d : devices_)
      if (ordinal < 0 || d->null_stream->device() == ordinal) all.push_back(d->null_stream);
    for (auto& [raw, s] : streams_)
      if (ordinal < 0 || s->device() == ordinal) all.push_back(s);
  }
  for (auto& s : all)
    unless_parked ? s->wait_unless_parked(s->last_ticket(), mode) : s->wait(s->last_ticket(), mode);
  return all;
}

void CpuBackend::wait_other_devices(int ordinal) {
  for (int other = 0; other < static_cast<int>(devices_.size()); ++other)
    if (other != ordinal) wait_all(other, WaitMode::interruptible, true);
}

CpuDevice& CpuBackend::device(int ordinal, const char* what) {
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

void CpuBackend::mark_used(int ordinal) {
  used_devices_.fetch_or(std::uint64_t{1} << ordinal, std::memory_order_relaxed);
}

int CpuBackend::current_or_adopted(int kernel_device) {
  if (t_current_device >= 0) return t_current_device;
  // A thread that never chose a device: as the CUDA backend does, the only
  // device used so far is adopted; otherwise device 0 is current, as
  // Device::current() reports.
  const std::uint64_t used = used_devices_.load(std::memory_order_relaxed);
  if (used == (std::uint64_t{1} << kernel_device)) t_current_device = kernel_device;
  return current_device();
}

std::shared_ptr<CpuEvent> CpuBackend::event_of(NativeEvent event) {
  std::lock_guard lock(events_mutex_);
  auto it = events_.find(event);
  if (it == events_.end())
    throw ArgumentError("using an event on the CPU backend", "the event does not exist",
                        "it may have been destroyed already");
  return it->second;
}

std::shared_ptr<CpuStream> CpuBackend::stream_of(NativeStream stream) {
  if (!stream) return devices_[static_cast<std::size_t>(current_device())]->null_stream;
  std::lock_guard lock(streams_mutex_);
  auto it = streams_.find(stream);
  if (it == streams_.end())
    throw ArgumentError("using a stream on the CPU backend", "the stream does not exist",
                        "it may have been destroyed already");
  return it->second;
}

std::pair<std::shared_ptr<CpuStream>, std::uint64_t> CpuBackend::submit(NativeStream stream,
                                                                        std::function<void()> task,
                                                                        std::function<void()> after,
                                                                        const void* key) {
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

bool CpuBackend::quiet(NativeStream stream) {
  auto target = stream_of(stream);
  if (!target->idle()) return false;
  const std::shared_ptr<CpuStream>& null_stream = null_stream_of(*target);
  if (target != null_stream) return target->non_blocking() || null_stream->idle();
  std::lock_guard lock(streams_mutex_);
  for (auto& [raw, s] : streams_)
    if (!s->non_blocking() && s->device() == target->device() && !s->idle()) return false;
  return true;
}

const std::shared_ptr<CpuStream>& CpuBackend::null_stream_of(const CpuStream& stream) const {
  return devices_[static_cast<std::size_t>(stream.device())]->null_stream;
}

}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }

}  // namespace cudakit::detail
