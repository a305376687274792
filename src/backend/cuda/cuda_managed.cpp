// The CUDA backend's managed (unified) memory: cuMemAllocManaged,
// cuStreamAttachMemAsync, and the allocation an address lies in
// (cuMemGetAddressRange).
#include <string>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "backend/cuda/relaxed_capture_mode.hpp"
#include "cudakit/error.hpp"
#include "platform/cuda_driver.hpp"

namespace cudakit::detail {
namespace {

constexpr const char* kUpdateDriver = "update the NVIDIA driver";

}  // namespace

DevicePtr CudaBackend::allocate_managed(int ordinal, std::size_t bytes, unsigned attach_flags) {
  if (bytes == 0) return 0;  // as allocate(): the driver rejects empty allocations
  make_current(ordinal);
  const std::string context = "allocating " + std::to_string(bytes) +
                              " bytes of managed memory on device " + std::to_string(ordinal);
  auto allocate =
      require_driver_entry(driver_->cuMemAllocManaged, "cuMemAllocManaged", context, kUpdateDriver);
  RelaxedCaptureMode relaxed(*driver_);
  CUdeviceptr ptr = 0;
  CUresult result = allocate(&ptr, bytes, attach_flags);
  if (result == CUDA_SUCCESS) return ptr;
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    std::size_t free_bytes = 0, total_bytes = 0;
    driver_->cuMemGetInfo(&free_bytes, &total_bytes);
    throw OutOfMemory(context, bytes, free_bytes, total_bytes, static_cast<int>(result),
                      cu_error_name(result));
  }
  if (result == CUDA_ERROR_NOT_SUPPORTED)
    throw NotSupported(
        context, "the device does not support managed memory [" + cu_error_name(result) + "]");
  fail(result, context, nullptr, false);
}

void CudaBackend::attach_managed(NativeStream stream, DevicePtr ptr, std::size_t bytes,
                                 unsigned attach_flags) {
  const std::string context = "attaching managed memory at " + hex_address(ptr) + " to a stream";
  auto attach = require_driver_entry(driver_->cuStreamAttachMemAsync, "cuStreamAttachMemAsync",
                                     context, kUpdateDriver);
  ensure_context();
  CUresult result = attach(static_cast<CUstream>(stream), ptr, bytes, attach_flags);
  if (result == CUDA_SUCCESS) return;
  if (result == CUDA_ERROR_INVALID_VALUE)
    throw ArgumentError(
        context, "the driver refused the memory, length or flags [" + cu_error_name(result) + "]",
        "attach a whole allocation from managed_empty (length 0), with "
        "mem_attach_flags.GLOBAL, HOST or SINGLE (SINGLE needs a stream)");
  fail(result, context, stream, true);
}

std::pair<DevicePtr, std::size_t> CudaBackend::address_range(DevicePtr ptr) {
  const std::string context = "finding the allocation that contains " + hex_address(ptr);
  auto range = require_driver_entry(driver_->cuMemGetAddressRange, "cuMemGetAddressRange", context,
                                    kUpdateDriver);
  ensure_context();
  CUdeviceptr base = 0;
  std::size_t bytes = 0;
  CUresult result = range(&base, &bytes, ptr);
  if (result == CUDA_SUCCESS) return {base, bytes};
  if (result == CUDA_ERROR_NOT_FOUND || result == CUDA_ERROR_INVALID_VALUE)
    throw ArgumentError(context,
                        "no device allocation contains the address [" + cu_error_name(result) + "]",
                        "pass an address inside memory from mem_alloc or managed_empty");
  fail(result, context, nullptr, false);
}

}  // namespace cudakit::detail
