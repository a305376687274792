// The CUDA backend's host memory registration (cuMemHostRegister) and cache
// configuration of contexts and kernels (cuCtxSetCacheConfig,
// cuCtxSetSharedMemConfig, cuFuncSetCacheConfig).
#include <cstdio>
#include <string>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "cudakit/error.hpp"
#include "platform/cuda_driver.hpp"

namespace cudakit::detail {
namespace {

std::string describe_range(const void* data, std::size_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%zu bytes at %p", bytes, data);
  return text;
}

}  // namespace

// ---- host memory registration ---------------------------------------------------

void CudaBackend::register_host(void* ptr, std::size_t bytes, unsigned flags) {
  ensure_context();
  CUresult result = driver_->cuMemHostRegister(ptr, bytes, flags);
  if (result == CUDA_SUCCESS) return;
  const std::string context = "page-locking host memory (" + describe_range(ptr, bytes) + ")";
  if (result == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    throw ArgumentError(
        context,
        "the range overlaps memory that is already registered (or allocated page-locked) [" +
            cu_error_name(result) + "]",
        "register each array once and keep the returned registration, unregister it before "
        "registering the memory again; memory from pagelocked_empty needs no registration");
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    throw OutOfMemory(context, bytes, 0, 0, static_cast<int>(result), cu_error_name(result));
  fail(result, context, nullptr, false);
}

void CudaBackend::unregister_host(void* ptr) {
  ensure_context();
  CUresult result = driver_->cuMemHostUnregister(ptr);
  if (result == CUDA_SUCCESS) return;
  char where[32];
  std::snprintf(where, sizeof where, "%p", ptr);
  const std::string context = std::string("unregistering host memory at ") + where;
  if (result == CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
    throw ArgumentError(
        context,
        "the address does not start registered host memory [" + cu_error_name(result) + "]",
        "unregister only what register_host_memory returned, once");
  fail(result, context, nullptr, false);
}

DevicePtr CudaBackend::host_device_pointer(void* ptr) {
  ensure_context();
  CUdeviceptr device = 0;
  CUresult result = driver_->cuMemHostGetDevicePointer(&device, ptr, 0);
  if (result == CUDA_SUCCESS) return device;
  char where[32];
  std::snprintf(where, sizeof where, "%p", ptr);
  if (result == CUDA_ERROR_INVALID_VALUE)
    throw ArgumentError(std::string("the device address of host memory at ") + where,
                        "the memory is not page-locked, or not mapped into the device's "
                        "address space [" +
                            cu_error_name(result) + "]",
                        "use pagelocked_empty(), or register_host_memory(array, "
                        "mem_host_register_flags.DEVICEMAP)");
  fail(result, std::string("reading the device address of host memory at ") + where, nullptr,
       false);
}

// ---- cache configuration -----------------------------------------------------------

void CudaBackend::set_cache_preference(int ordinal, CachePreference preference) {
  make_current(ordinal);
  CUresult result = driver_->cuCtxSetCacheConfig(static_cast<CUfunc_cache>(preference));
  if (result != CUDA_SUCCESS)
    fail(result,
         std::string("setting the cache preference of device ") + std::to_string(ordinal) + " to " +
             to_string(preference),
         nullptr, false);
}

CachePreference CudaBackend::cache_preference(int ordinal) {
  make_current(ordinal);
  CUfunc_cache value = CU_FUNC_CACHE_PREFER_NONE;
  CUresult result = driver_->cuCtxGetCacheConfig(&value);
  if (result != CUDA_SUCCESS)
    fail(result, "reading the cache preference of device " + std::to_string(ordinal), nullptr,
         false);
  return static_cast<CachePreference>(value);
}

void CudaBackend::set_shared_memory_bank_size(int ordinal, SharedMemoryBankSize size) {
  make_current(ordinal);
  if (driver_->cuCtxSetSharedMemConfig == nullptr) {
    // A driver that dropped the call: banks are fixed at 4 bytes there.
    bank_size_.store(size);
    return;
  }
  CUresult result = driver_->cuCtxSetSharedMemConfig(static_cast<CUsharedconfig>(size));
  // A driver that keeps the call but refuses it: the banks are fixed there
  // too, and the setting is only a preference.
  if (result == CUDA_ERROR_NOT_SUPPORTED) result = CUDA_SUCCESS;
  if (result != CUDA_SUCCESS)
    fail(result,
         std::string("setting the shared memory bank size of device ") + std::to_string(ordinal) +
             " to " + to_string(size),
         nullptr, false);
  bank_size_.store(size);
}

SharedMemoryBankSize CudaBackend::shared_memory_bank_size(int ordinal) {
  make_current(ordinal);
  if (driver_->cuCtxGetSharedMemConfig == nullptr) return bank_size_.load();
  CUsharedconfig value = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
  CUresult result = driver_->cuCtxGetSharedMemConfig(&value);
  if (result == CUDA_ERROR_NOT_SUPPORTED) return bank_size_.load();
  if (result != CUDA_SUCCESS)
    fail(result, "reading the shared memory bank size of device " + std::to_string(ordinal),
         nullptr, false);
  return static_cast<SharedMemoryBankSize>(value);
}

void CudaBackend::set_kernel_cache_preference(NativeKernel kernel, CachePreference preference) {
  const CudaDriver& d = driver();
  CUresult result = d.cuFuncSetCacheConfig(static_cast<CUfunction>(kernel),
                                           static_cast<CUfunc_cache>(preference));
  if (result != CUDA_SUCCESS)
    fail(result, std::string("setting a kernel's cache preference to ") + to_string(preference),
         nullptr, false);
}

void CudaBackend::set_kernel_shared_memory_carveout(NativeKernel kernel, int percent) {
  const CudaDriver& d = driver();
  CUresult result = d.cuFuncSetAttribute(
      static_cast<CUfunction>(kernel), CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent);
  if (result != CUDA_SUCCESS)
    fail(result,
         "setting a kernel's preferred shared memory carveout to " + std::to_string(percent) + "%",
         nullptr, false);
}

}  // namespace cudakit::detail
