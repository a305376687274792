// One place that turns a CUresult into the right cudakit exception, with the
// driver's name for the code, what cudakit was doing, and the hint users need
// for the failures seen in the field (wrong arch, old driver, out of memory,
// a kernel fault, mixed contexts).
#pragma once

#include <cuda.h>

#include <string>
#include <vector>

namespace cudakit::detail {

// True for the codes that mean a kernel faulted and the context is lost
// (illegal address, misaligned address, trap, assert, ...).
bool is_kernel_fault(CUresult result) noexcept;

// Throws the exception class for `result`:
//   kernel faults -> KernelFault naming `kernels` (the ones in flight);
//   CUDA_ERROR_OUT_OF_MEMORY -> OutOfMemory; NO_BINARY_FOR_GPU -> NoKernelImage;
//   UNSUPPORTED_PTX_VERSION -> DriverTooOld; NOT_FOUND -> ArgumentError;
//   everything else -> CudaError with a hint where one helps.
// `context` says what was being done ("copying 4096 bytes device to host").
[[noreturn]] void throw_cuda_error(CUresult result, const std::string& context,
                                   const std::vector<std::string>& kernels = {});

// The common call site: nothing on success, throw_cuda_error otherwise.
inline void check_cuda(CUresult result, const char* context) {
  if (result != CUDA_SUCCESS) [[unlikely]]
    throw_cuda_error(result, context);
}

}  // namespace cudakit::detail
