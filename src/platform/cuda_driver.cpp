#include "platform/cuda_driver.hpp"

#include <dlfcn.h>

#include <exception>
#include <mutex>

#include "cudakit/error.hpp"

// Two-level stringification expands cuda.h's macros first, so
// CUDAKIT_SYMBOL(cuMemAlloc) is "cuMemAlloc_v2": the name cuda.h binds to.
#define CUDAKIT_SYMBOL_TEXT(name) #name
#define CUDAKIT_SYMBOL(name) CUDAKIT_SYMBOL_TEXT(name)

namespace cudakit::detail {
namespace {

const char* const kInstallHint =
    "install the NVIDIA driver (nvidia-smi must work); in a container, run it with the GPU "
    "exposed (docker --gpus all); or set CUDAKIT_LIBCUDA to libcuda.so.1 or its directory; "
    "without a GPU, use the CPU backend (CUDAKIT_BACKEND=cpu)";

struct KnownName {
  CUresult result;
  const char* name;
  const char* text;
};

// Used when the driver is not loaded (or does not know a code), so that error
// mapping and its tests work everywhere.
constexpr KnownName kKnownNames[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR",
     "an illegal memory access was encountered (hardware stack error)"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "an illegal instruction was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE",
     "operation not supported on global/shared address space"},
    {CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", "invalid program counter"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
     "forward compatibility was attempted on non supported HW"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
     "PTX JIT compiler library not found"},
    {CUDA_ERROR_JIT_COMPILATION_DISABLED, "CUDA_ERROR_JIT_COMPILATION_DISABLED",
     "PTX JIT compilation was disabled"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const KnownName* find_known(CUresult result) {
  for (const auto& known : kKnownNames)
    if (known.result == result) return &known;
  return nullptr;
}

struct DriverSlot {
  std::once_flag once;
  CudaDriver table;
  std::exception_ptr failure;
  bool loaded = false;
};

DriverSlot& driver_slot() {
  static DriverSlot slot;
  std::call_once(slot.once, [] {
    try {
      slot.table = load_cuda_driver(cuda_driver_search_plan());
      slot.loaded = true;
    } catch (...) {
      slot.failure = std::current_exception();
    }
  });
  return slot;
}

}  // namespace

CudaDriver load_cuda_driver(const SearchPlan& plan) {
  OpenedLibrary lib = open_first(plan, RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) {
    std::string hint = kInstallHint;
    if (plan.explicit_location)
      hint =
          "CUDAKIT_LIBCUDA is set but no libcuda.so.1 loads from it: point it at the "
          "driver's libcuda.so.1 or its directory, or unset it; " +
          hint;
    throw DriverNotFound("libcuda.so.1 (the NVIDIA driver)", lib.tried, hint);
  }
  CudaDriver table;
  std::vector<std::string> missing;
#define CUDAKIT_LOAD_REQUIRED(name)                                                               \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(lib.handle, CUDAKIT_SYMBOL(name))); \
  if (!table.name) missing.push_back(CUDAKIT_SYMBOL(name));
#define CUDAKIT_LOAD_OPTIONAL(name) \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(lib.handle, CUDAKIT_SYMBOL(name)));
  CUDAKIT_DRIVER_REQUIRED(CUDAKIT_LOAD_REQUIRED)
  CUDAKIT_DRIVER_OPTIONAL(CUDAKIT_LOAD_OPTIONAL)
  table.cuCtxSetSharedMemConfig = reinterpret_cast<decltype(table.cuCtxSetSharedMemConfig)>(
      ::dlsym(lib.handle, "cuCtxSetSharedMemConfig"));
  table.cuCtxGetSharedMemConfig = reinterpret_cast<decltype(table.cuCtxGetSharedMemConfig)>(
      ::dlsym(lib.handle, "cuCtxGetSharedMemConfig"));
#undef CUDAKIT_LOAD_REQUIRED
#undef CUDAKIT_LOAD_OPTIONAL
  if (!missing.empty()) {
    std::string list;
    for (const auto& name : missing) list += (list.empty() ? "" : ", ") + name;
    std::vector<std::string> tried = lib.tried;
    tried.back() = lib.path + " (loaded, but lacks " + list + ")";
    throw DriverNotFound("libcuda.so.1 (the NVIDIA driver)", tried,
                         "this driver is too old for cudakit (it needs the CUDA 12 driver API "
                         "or newer): update the NVIDIA driver");
  }
  table.path = loaded_path(lib.handle, "cuInit");
  if (table.path.empty()) table.path = lib.path;
  return table;
}

const CudaDriver& cuda_driver() {
  DriverSlot& slot = driver_slot();
  if (slot.failure) std::rethrow_exception(slot.failure);
  return slot.table;
}

const CudaDriver* cuda_driver_if_available() noexcept {
  DriverSlot& slot = driver_slot();
  return slot.loaded ? &slot.table : nullptr;
}

std::string cu_error_name(CUresult result) {
  if (const CudaDriver* driver = cuda_driver_if_available()) {
    const char* name = nullptr;
    if (driver->cuGetErrorName(result, &name) == CUDA_SUCCESS && name) return name;
  }
  if (const KnownName* known = find_known(result)) return known->name;
  return "CUresult " + std::to_string(static_cast<int>(result));
}

std::string cu_error_string(CUresult result) {
  if (const CudaDriver* driver = cuda_driver_if_available()) {
    const char* text = nullptr;
    if (driver->cuGetErrorString(result, &text) == CUDA_SUCCESS && text) return text;
  }
  if (const KnownName* known = find_known(result)) return known->text;
  return "unknown CUDA error";
}

int cuda_driver_version() noexcept {
  const CudaDriver* driver = cuda_driver_if_available();
  int version = 0;
  if (driver && driver->cuDriverGetVersion(&version) != CUDA_SUCCESS) version = 0;
  return version;
}

}  // namespace cudakit::detail
