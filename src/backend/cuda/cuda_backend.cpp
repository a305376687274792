// Devices, contexts, memory, streams and events of the CUDA backend.
#include "backend/cuda/cuda_backend.hpp"

#include <cstdint>
#include <cstdio>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/relaxed_capture_mode.hpp"
#include "cudakit/error.hpp"
#include "platform/cuda_driver.hpp"

namespace cudakit::detail {

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

// Primary contexts are deliberately not released: the backend lives until
// process exit, when the driver may already be tearing itself down, and
// buffers or modules destroyed later in static destruction would otherwise
// reach a released context. The driver reclaims everything at exit, as it
// does for the runtime API.
CudaBackend::~CudaBackend() = default;

const CudaDriver& CudaBackend::driver() {
  std::call_once(init_once_, [this] {
    try {
      const CudaDriver& table = cuda_driver();
      CUresult result = table.cuInit(0);
      if (result == CUDA_ERROR_NO_DEVICE) {
        device_count_ = 0;  // a driver without a GPU is a usable, empty backend
      } else if (result != CUDA_SUCCESS) {
        throw_cuda_error(result, "initialising the CUDA driver (cuInit) from " + table.path);
      } else {
        int count = 0;
        check_cuda(table.cuDeviceGetCount(&count), "counting CUDA devices");
        device_count_ = count < kMaxDevices ? count : kMaxDevices;
      }
      driver_ = &table;
    } catch (...) {
      init_failure_ = std::current_exception();
    }
  });
  if (init_failure_) std::rethrow_exception(init_failure_);
  return *driver_;
}

void CudaBackend::fail(CUresult result, const std::string& context, NativeStream stream,
                       bool stream_known) {
  std::vector<std::string> kernels;
  if (is_kernel_fault(result)) {
    if (stream_known) kernels = history_.on_stream(stream);
    if (kernels.empty()) kernels = history_.recent();
  }
  throw_cuda_error(result, context, kernels);
}

// ---- devices and contexts ---------------------------------------------------

int CudaBackend::device_count() {
  driver();
  return device_count_;
}

void CudaBackend::check_ordinal(int ordinal, const char* doing) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw ArgumentError(
        std::string(doing) + " on device " + std::to_string(ordinal),
        "no such CUDA device: " + std::to_string(count) + " device(s) present" +
            (count ? " (ordinals 0.." + std::to_string(count - 1) + ")" : ""),
        count ? "" : "no GPU is visible: check nvidia-smi and CUDA_VISIBLE_DEVICES");
}

CUcontext CudaBackend::primary_context(int ordinal) {
  if (ordinal >= 0 && ordinal < kMaxDevices)
    if (CUcontext ctx = contexts_[ordinal].load(std::memory_order_acquire)) return ctx;
  check_ordinal(ordinal, "retaining the primary context");
  std::lock_guard lock(context_mutex_);
  CUcontext ctx = contexts_[ordinal].load(std::memory_order_relaxed);
  if (!ctx) {
    CUresult result = driver_->cuDevicePrimaryCtxRetain(&ctx, ordinal);
    if (result != CUDA_SUCCESS)
      fail(result, "retaining the primary context of device " + std::to_string(ordinal), nullptr,
           false);
    contexts_[ordinal].store(ctx, std::memory_order_release);
  }
  return ctx;
}

void CudaBackend::make_current(int ordinal) {
  CUcontext ctx = primary_context(ordinal);
  // The driver's own per-thread current context is the cache: reading it is a
  // thread-local load, and unlike a cache of our own it stays right when
  // other libraries on this thread switch contexts.
  CUcontext current = nullptr;
  driver_->cuCtxGetCurrent(&current);
  if (current == ctx) return;
  CUresult result = driver_->cuCtxSetCurrent(ctx);
  if (result != CUDA_SUCCESS)
    fail(result, "making device " + std::to_string(ordinal) + "'s context current", nullptr, false);
}

void CudaBackend::ensure_context() {
  const CudaDriver& d = driver();
  CUcontext current = nullptr;
  if (d.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) return;
  make_current(0);
}

int CudaBackend::current_device() {
  const CudaDriver& d = driver();
  CUcontext current = nullptr;
  if (d.cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current) return 0;
  CUdevice device = 0;
  if (d.cuCtxGetDevice(&device) != CUDA_SUCCESS) return 0;
  return static_cast<int>(device);
}

std::int64_t CudaBackend::attribute(int ordinal, DeviceAttribute which) {
  check_ordinal(ordinal, "reading a device attribute");
  int value = 0;
  CUresult result = driver_->cuDeviceGetAttribute(
      &value, static_cast<CUdevice_attribute>(static_cast<int>(which)), ordinal);
  if (result != CUDA_SUCCESS)
    fail(result,
         "reading attribute " + std::string(to_string(which)) + " (" +
             std::to_string(static_cast<int>(which)) + ") of device " + std::to_string(ordinal),
         nullptr, false);
  return value;
}

DeviceProperties CudaBackend::properties(int ordinal) {
  check_ordinal(ordinal, "reading device properties");
  const CudaDriver& d = *driver_;
  DeviceProperties p;
  char name[256] = {};
  check_cuda(d.cuDeviceGetName(name, sizeof name, ordinal), "reading the device name");
  p.name = name;
  std::size_t total = 0;
  check_cuda(d.cuDeviceTotalMem(&total, ordinal), "reading the device's total memory");
  p.total_memory = total;
  auto get = [&](DeviceAttribute which) { return static_cast<int>(attribute(ordinal, which)); };
  using A = DeviceAttribute;
  p.compute_major = get(A::compute_capability_major);
  p.compute_minor = get(A::compute_capability_minor);
  p.multiprocessor_count = get(A::multiprocessor_count);
  p.max_threads_per_block = get(A::max_threads_per_block);
  p.max_block_dim = Dim3(static_cast<unsigned>(get(A::max_block_dim_x)),
                         static_cast<unsigned>(get(A::max_block_dim_y)),
                         static_cast<unsigned>(get(A::max_block_dim_z)));
  p.max_grid_dim = Dim3(static_cast<unsigned>(get(A::max_grid_dim_x)),
                        static_cast<unsigned>(get(A::max_grid_dim_y)),
                        static_cast<unsigned>(get(A::max_grid_dim_z)));
  p.shared_memory_per_block = static_cast<std::size_t>(get(A::max_shared_memory_per_block));
  p.shared_memory_per_block_optin =
      static_cast<std::size_t>(get(A::max_shared_memory_per_block_optin));
  p.shared_memory_per_multiprocessor =
      static_cast<std::size_t>(get(A::max_shared_memory_per_multiprocessor));
  p.registers_per_block = get(A::max_registers_per_block);
  p.warp_size = get(A::warp_size);
  p.max_threads_per_multiprocessor = get(A::max_threads_per_multiprocessor);
  p.max_blocks_per_multiprocessor = get(A::max_blocks_per_multiprocessor);
  p.memory_bus_width_bits = get(A::global_memory_bus_width);
  p.l2_cache_bytes = get(A::l2_cache_size);
  p.async_engine_count = get(A::async_engine_count);
  p.unified_addressing = get(A::unified_addressing) != 0;
  p.concurrent_kernels = get(A::concurrent_kernels) != 0;
  char bus[64] = {};
  if (d.cuDeviceGetPCIBusId(bus, sizeof bus, ordinal) == CUDA_SUCCESS) p.pci_bus_id = bus;
  return p;
}

void CudaBackend::synchronize(int ordinal) {
  make_current(ordinal);
  CUresult result = driver_->cuCtxSynchronize();
  if (result != CUDA_SUCCESS)
    fail(result, "synchronizing device " + std::to_string(ordinal), nullptr, false);
  stream_faults_.take_on_device(ordinal);
}

MemoryInfo CudaBackend::memory_info(int ordinal) {
  make_current(ordinal);
  MemoryInfo info;
  CUresult result = driver_->cuMemGetInfo(&info.free, &info.total);
  if (result != CUDA_SUCCESS)
    fail(result, "reading free memory of device " + std::to_string(ordinal), nullptr, false);
  return info;
}

namespace {
CUlimit to_cu_limit(ContextLimit which) {
  switch (which) {
    case ContextLimit::stack_size:
      return CU_LIMIT_STACK_SIZE;
    case ContextLimit::printf_fifo_size:
      return CU_LIMIT_PRINTF_FIFO_SIZE;
    case ContextLimit::malloc_heap_size:
      return CU_LIMIT_MALLOC_HEAP_SIZE;
    case ContextLimit::dev_runtime_sync_depth:
      return CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH;
    case ContextLimit::dev_runtime_pending_launch_count:
      return CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT;
    case ContextLimit::max_l2_fetch_granularity:
      return CU_LIMIT_MAX_L2_FETCH_GRANULARITY;
    case ContextLimit::persisting_l2_cache_size:
      return CU_LIMIT_PERSISTING_L2_CACHE_SIZE;
  }
  return CU_LIMIT_STACK_SIZE;
}
const char* limit_name(ContextLimit which) {
  switch (which) {
    case ContextLimit::stack_size:
      return "stack size";
    case ContextLimit::printf_fifo_size:
      return "printf FIFO size";
    case ContextLimit::malloc_heap_size:
      return "malloc heap size";
    case ContextLimit::dev_runtime_sync_depth:
      return "device runtime synchronize depth";
    case ContextLimit::dev_runtime_pending_launch_count:
      return "device runtime pending launch count";
    case ContextLimit::max_l2_fetch_granularity:
      return "L2 fetch granularity";
    case ContextLimit::persisting_l2_cache_size:
      return "persisting L2 cache size";
  }
  return "limit";
}
}  // namespace

std::size_t CudaBackend::limit(int ordinal, ContextLimit which) {
  make_current(ordinal);
  std::size_t value = 0;
  CUresult result = driver_->cuCtxGetLimit(&value, to_cu_limit(which));
  if (result != CUDA_SUCCESS)
    fail(result,
         std::string("reading the ") + limit_name(which) + " of device " + std::to_string(ordinal),
         nullptr, false);
  return value;
}

void CudaBackend::set_limit(int ordinal, ContextLimit which, std::size_t value) {
  make_current(ordinal);
  CUresult result = driver_->cuCtxSetLimit(to_cu_limit(which), value);
  if (result != CUDA_SUCCESS) {
    std::string context = std::string("setting the ") + limit_name(which) + " of device " +
                          std::to_string(ordinal) + " to " + std::to_string(value) +
                          (which == ContextLimit::dev_runtime_sync_depth ||
                                   which == ContextLimit::dev_runtime_pending_launch_count
                               ? ""
                               : " bytes");
    // The driver refuses these two once a kernel that uses them has run in
    // the context (the primary context, which PyTorch and CuPy share).
    if (result == CUDA_ERROR_INVALID_VALUE &&
        (which == ContextLimit::printf_fifo_size || which == ContextLimit::malloc_heap_size))
      context +=
          " (the printf FIFO and malloc heap sizes can only change before the first "
          "kernel launch in this process's context: set them at start-up)";
    fail(result, context, nullptr, false);
  }
}

bool CudaBackend::can_access_peer(int ordinal, int peer) {
  check_ordinal(ordinal, "asking about peer access");
  check_ordinal(peer, "asking about peer access");
  const CudaDriver& d = driver();
  if (ordinal == peer || !d.cuDeviceCanAccessPeer) return false;
  int can_access = 0;
  check_cuda(d.cuDeviceCanAccessPeer(&can_access, ordinal, peer),
             "asking whether a device can access another device's memory");
  return can_access != 0;
}

int CudaBackend::driver_version() {
  int version = 0;
  check_cuda(driver().cuDriverGetVersion(&version), "reading the CUDA driver version");
  return version;
}

// ---- memory -----------------------------------------------------------------

DevicePtr CudaBackend::allocate(int ordinal, std::size_t bytes) {
  if (bytes == 0) return 0;  // the driver rejects empty allocations; nothing to hold
  make_current(ordinal);
  RelaxedCaptureMode relaxed(*driver_);
  CUdeviceptr ptr = 0;
  CUresult result = driver_->cuMemAlloc(&ptr, bytes);
  if (result == CUDA_SUCCESS) return ptr;
  const std::string context =
      "allocating " + std::to_string(bytes) + " bytes on device " + std::to_string(ordinal);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    std::size_t free_bytes = 0, total_bytes = 0;
    driver_->cuMemGetInfo(&free_bytes, &total_bytes);
    throw OutOfMemory(context, bytes, free_bytes, total_bytes, static_cast<int>(result),
                      cu_error_name(result));
  }
  fail(result, context, nullptr, false);
}

void CudaBackend::deallocate(int ordinal, DevicePtr ptr) noexcept {
  if (ptr == 0 || !driver_) return;
  // cuMemFree needs no particular current context (the pointer knows its
  // own), but one must be current; errors in a destructor path are dropped
  // because a lost context has already been reported by the call that saw it.
  try {
    make_current(ordinal);
  } catch (...) {
    return;
  }
  RelaxedCaptureMode relaxed(*driver_);
  driver_->cuMemFree(ptr);
}

void* CudaBackend::allocate_pinned(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  ensure_context();
  RelaxedCaptureMode relaxed(*driver_);
  void* ptr = nullptr;
  CUresult result = driver_->cuMemAllocHost(&ptr, bytes);
  if (result == CUDA_SUCCESS) return ptr;
  const std::string context =
      "allocating " + std::to_string(bytes) + " bytes of pinned host memory";
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    throw OutOfMemory(context, bytes, 0, 0, static_cast<int>(result), cu_error_name(result));
  fail(result, context, nullptr, false);
}

void CudaBackend::deallocate_pinned(void* ptr) noexcept {
  if (!ptr || !driver_) return;
  RelaxedCaptureMode relaxed(*driver_);
  driver_->cuMemFreeHost(ptr);
}

void CudaBackend::copy(void* dst, const void* src, std::size_t bytes, NativeStream stream,
                       bool async) {
  if (bytes == 0) return;
  ensure_context();
  auto stream_handle = static_cast<CUstream>(stream);
  // Unified addressing lets the driver tell host from device by address.
  // Even the "synchronous" form goes through the stream and waits for it,
  // because cuMemcpy returns before a device-to-device copy completes.
  CUresult result = driver_->cuMemcpyAsync(
      reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes, stream_handle);
  if (result == CUDA_SUCCESS && !async) result = driver_->cuStreamSynchronize(stream_handle);
  if (result != CUDA_SUCCESS) {
    char where[96];
    std::snprintf(where, sizeof where, "%p to %p", src, dst);
    fail(result,
         std::string(async ? "queueing a copy of " : "copying ") + std::to_string(bytes) +
             " bytes from " + where,
         stream, true);
  }
}

void CudaBackend::fill(DevicePtr dst, std::uint32_t value, unsigned element_bytes,
                       std::size_t count, NativeStream stream, bool async) {
  if (count == 0) return;
  ensure_context();
  auto stream_handle = static_cast<CUstream>(stream);
  CUresult result = CUDA_SUCCESS;
  switch (element_bytes) {
    case 1:
      result =
          driver_->cuMemsetD8Async(dst, static_cast<unsigned char>(value), count, stream_handle);
      break;
    case 2:
      result =
          driver_->cuMemsetD16Async(dst, static_cast<unsigned short>(value), count, stream_handle);
      break;
    case 4:
      result = driver_->cuMemsetD32Async(dst, value, count, stream_handle);
      break;
    default:
      throw ArgumentError("filling device memory", "element size must be 1, 2 or 4 bytes, not " +
                                                       std::to_string(element_bytes));
  }
  if (result == CUDA_SUCCESS && !async) result = driver_->cuStreamSynchronize(stream_handle);
  if (result != CUDA_SUCCESS)
    fail(result,
         "filling " + std::to_string(count) + " elements of " + std::to_string(element_bytes) +
             " bytes at device address " + std::to_string(dst),
         stream, true);
}

// ---- streams and events -----------------------------------------------------

NativeStream CudaBackend::create_stream(int ordinal, bool non_blocking) {
  make_current(ordinal);
  CUstream stream = nullptr;
  CUresult result =
      driver_->cuStreamCreate(&stream, non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT);
  if (result != CUDA_SUCCESS)
    fail(result, "creating a stream on device " + std::to_string(ordinal), nullptr, false);
  return stream;
}

void CudaBackend::destroy_stream(NativeStream stream) noexcept {
  // The launch history keeps the stream's kernels: a fault from them can
  // still surface after the stream is gone.
  if (stream && driver_) driver_->cuStreamDestroy(static_cast<CUstream>(stream));
  stream_faults_.forget(stream);
}

void CudaBackend::synchronize_stream(NativeStream stream) {
  CUresult result = driver().cuStreamSynchronize(static_cast<CUstream>(stream));
  if (result != CUDA_SUCCESS) fail(result, "synchronizing a stream", stream, true);
  if (stream_faults_.size() == 0) return;
  // The default stream's handle (null, or the legacy / per-thread values)
  // is the current device's; any other names one stream of one device.
  const bool device_default = reinterpret_cast<std::uintptr_t>(stream) <= 2;
  stream_faults_.take(stream, device_default ? current_device() : -1);
}

bool CudaBackend::query_stream(NativeStream stream) {
  CUresult result = driver().cuStreamQuery(static_cast<CUstream>(stream));
  if (result == CUDA_SUCCESS) return true;  // a fault waits for synchronize, as on the CPU
  if (result == CUDA_ERROR_NOT_READY) return false;
  fail(result, "querying a stream", stream, true);
}

void CudaBackend::stream_wait_event(NativeStream stream, NativeEvent event) {
  CUresult result =
      driver().cuStreamWaitEvent(static_cast<CUstream>(stream), static_cast<CUevent>(event), 0);
  if (result != CUDA_SUCCESS) fail(result, "making a stream wait for an event", stream, true);
}

NativeEvent CudaBackend::create_event(int ordinal, bool timing) {
  make_current(ordinal);
  CUevent event = nullptr;
  CUresult result =
      driver_->cuEventCreate(&event, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING);
  if (result != CUDA_SUCCESS)
    fail(result, "creating an event on device " + std::to_string(ordinal), nullptr, false);
  return event;
}

void CudaBackend::destroy_event(NativeEvent event) noexcept {
  if (event && driver_) driver_->cuEventDestroy(static_cast<CUevent>(event));
}

void CudaBackend::record_event(NativeEvent event, NativeStream stream) {
  CUresult result =
      driver().cuEventRecord(static_cast<CUevent>(event), static_cast<CUstream>(stream));
  if (result != CUDA_SUCCESS) fail(result, "recording an event on a stream", stream, true);
}

void CudaBackend::synchronize_event(NativeEvent event) {
  CUresult result = driver().cuEventSynchronize(static_cast<CUevent>(event));
  if (result != CUDA_SUCCESS) fail(result, "waiting for an event", nullptr, false);
}

bool CudaBackend::query_event(NativeEvent event) {
  CUresult result = driver().cuEventQuery(static_cast<CUevent>(event));
  if (result == CUDA_SUCCESS) return true;
  if (result == CUDA_ERROR_NOT_READY) return false;
  fail(result, "querying an event", nullptr, false);
}

float CudaBackend::elapsed_ms(NativeEvent start, NativeEvent stop) {
  float ms = 0.0f;
  CUresult result =
      driver().cuEventElapsedTime(&ms, static_cast<CUevent>(start), static_cast<CUevent>(stop));
  if (result == CUDA_ERROR_INVALID_HANDLE)
    throw ArgumentError("measuring the time between two events",
                        "an event was created without timing, or not recorded",
                        "create both events with timing enabled and record both before asking",
                        static_cast<int>(result), cu_error_name(result));
  if (result == CUDA_ERROR_NOT_READY)
    throw ArgumentError("measuring the time between two events", "an event has not completed yet",
                        "synchronize the stop event before reading the elapsed time",
                        static_cast<int>(result), cu_error_name(result));
  if (result != CUDA_SUCCESS) fail(result, "measuring the time between two events", nullptr, false);
  return ms;
}

}  // namespace cudakit::detail
