#include "backend/cuda/cuda_error.hpp"

#include "cudakit/error.hpp"
#include "platform/cuda_driver.hpp"
#include "platform/nvrtc_library.hpp"

namespace cudakit::detail {
namespace {

const char* const kFaultHint =
    "find the faulting line with CUDAKIT_CPU_DEBUG=1 (runs the kernel on the CPU backend with "
    "bounds checks) or compute-sanitizer; the CUDA context is unusable after this error, so "
    "restart the process";

const char* const kContextHint =
    "mixing contexts? a stream, event, module or pointer from another context (or one already "
    "destroyed) was used; cudakit uses each device's primary context, as CuPy and PyTorch do, so "
    "handles made with cuCtxCreate elsewhere do not mix with it";

// The NVRTC that compiled our code is the toolkit the driver must support.
int toolkit_version() noexcept {
  try {
    const Nvrtc& compiler = nvrtc();
    return compiler.major * 1000 + compiler.minor * 10;
  } catch (...) {
    return 0;
  }
}

std::string hint_for(CUresult result) {
  switch (result) {
    case CUDA_ERROR_NOT_INITIALIZED:
      return "the CUDA driver was not initialised (cuInit); this is a cudakit bug if it comes "
             "from cudakit's own calls";
    case CUDA_ERROR_DEINITIALIZED:
      return "the CUDA driver is shutting down: do not use cudakit objects from static "
             "destructors or atexit handlers";
    case CUDA_ERROR_STUB_LIBRARY:
      return "the loaded libcuda is the CUDA toolkit's stub, not the driver: install the NVIDIA "
             "driver, or point CUDAKIT_LIBCUDA at the real libcuda.so.1";
    case CUDA_ERROR_NO_DEVICE:
      return "no GPU is visible: check nvidia-smi, CUDA_VISIBLE_DEVICES, and (in a container) "
             "that it was started with the GPU exposed";
    case CUDA_ERROR_INVALID_DEVICE:
      return "the device ordinal is out of range (cudakit::Device::count() tells how many)";
    case CUDA_ERROR_INVALID_CONTEXT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_INVALID_HANDLE:
      return kContextHint;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_PTX:
      return "the module image is corrupt or was built for another platform; recompile it "
             "(a stale cache entry is recompiled automatically)";
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_JIT_COMPILATION_DISABLED:
      return "the driver cannot JIT-compile PTX here: compile to a cubin for the device's arch "
             "(the default) instead of PTX";
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return "the block needs more registers than a multiprocessor has: use a smaller block, "
             "or limit registers (__launch_bounds__ / -maxrregcount)";
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      return "the user-space driver (libcuda) and the kernel module differ in version: "
             "reinstall the NVIDIA driver or reboot after an update";
    case CUDA_ERROR_NOT_SUPPORTED:
      return "this device or driver does not support the operation";
    default:
      return {};
  }
}

}  // namespace

bool is_kernel_fault(CUresult result) noexcept {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(CUresult result, const std::string& context,
                      const std::vector<std::string>& kernels) {
  const int code = static_cast<int>(result);
  const std::string name = cu_error_name(result);
  const std::string text = cu_error_string(result);

  if (is_kernel_fault(result)) {
    std::string message = "a kernel faulted: " + text;
    std::string hint = kFaultHint;
    if (result == CUDA_ERROR_LAUNCH_TIMEOUT)
      hint =
          "the kernel ran longer than the display watchdog allows: split the work into "
          "shorter launches or use a GPU without a display attached; " +
          hint;
    if (kernels.empty()) message += " (no cudakit launch recorded on this stream)";
    throw KernelFault(context, message, kernels, hint, code, name);
  }
  switch (result) {
    case CUDA_ERROR_OUT_OF_MEMORY:
      throw OutOfMemory(context, 0, 0, 0, code, name);
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
      throw NoKernelImage(context, text,
                          "the module holds no code for this GPU's arch: compile for the "
                          "device's own arch (cudakit does so when CompileOptions::arch is "
                          "empty), or include PTX (compute_XX) so the driver can JIT it",
                          code, name);
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
      throw DriverTooOld(context, cuda_driver_version(), toolkit_version());
    case CUDA_ERROR_NOT_FOUND:
      throw ArgumentError(context, text, {}, code, name);
    default:
      throw CudaError(context, text, hint_for(result), code, name);
  }
}

}  // namespace cudakit::detail
