// The CUDA backend's interprocess memory: the handle of an allocation
// (cuIpcGetMemHandle), its mapping in another process (cuIpcOpenMemHandle_v2)
// and the unmapping (cuIpcCloseMemHandle). The driver's codes are mapped to
// what went wrong in IPC terms: the driver's own words ("invalid device
// context") do not say that a handle was opened in the process that made it.
#include <cstring>
#include <string>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/cuda_error.hpp"
#include "cudakit/error.hpp"
#include "platform/cuda_driver.hpp"

namespace cudakit::detail {
namespace {

constexpr const char* kNoIpc =
    "update the NVIDIA driver; CUDA IPC needs Linux (or Windows) and a device with unified "
    "addressing";

static_assert(sizeof(CUipcMemHandle) == sizeof(IpcHandleBytes),
              "IpcHandleBytes must hold a CUipcMemHandle exactly");

}  // namespace

IpcHandleBytes CudaBackend::ipc_get_handle(int ordinal, DevicePtr base) {
  const std::string context = "exporting the device memory at " + hex_address(base) +
                              " of device " + std::to_string(ordinal) + " to another process";
  make_current(ordinal);
  auto get = require_driver_entry(driver_->cuIpcGetMemHandle, "cuIpcGetMemHandle", context, kNoIpc);
  CUipcMemHandle handle{};
  const CUresult result = get(&handle, base);
  if (result == CUDA_SUCCESS) {
    IpcHandleBytes bytes{};
    std::memcpy(bytes.data(), &handle, bytes.size());
    return bytes;
  }
  if (result == CUDA_ERROR_INVALID_VALUE || result == CUDA_ERROR_INVALID_HANDLE)
    throw ArgumentError(context,
                        "the driver refused the address: it is not memory from cuMemAlloc "
                        "(managed, pinned or pool memory of another library cannot be "
                        "exported this way) [" +
                            cu_error_name(result) + "]",
                        "export memory from mem_alloc / a GPUArray / a DeviceBuffer");
  if (result == CUDA_ERROR_NOT_SUPPORTED)
    throw NotSupported(context,
                       "the device or the platform has no CUDA IPC [" + cu_error_name(result) + "]",
                       kNoIpc);
  fail(result, context, nullptr, false);
}

DevicePtr CudaBackend::ipc_open(int ordinal, const IpcHandleBytes& handle, unsigned flags) {
  const std::string context = "opening an IPC memory handle on device " + std::to_string(ordinal);
  make_current(ordinal);
  auto open =
      require_driver_entry(driver_->cuIpcOpenMemHandle, "cuIpcOpenMemHandle", context, kNoIpc);
  CUipcMemHandle native{};
  std::memcpy(&native, handle.data(), handle.size());
  CUdeviceptr ptr = 0;
  const CUresult result = open(&ptr, native, flags);
  if (result == CUDA_SUCCESS) return ptr;
  if (result == CUDA_ERROR_INVALID_CONTEXT)
    // What the driver answers for a handle exported by this very process.
    throw ArgumentError(context,
                        "the driver refused the handle in this process [" + cu_error_name(result) +
                            "]: CUDA cannot open a handle in the process that exported it",
                        "open it in another process (multiprocessing with the 'spawn' start "
                        "method, or a subprocess); in the exporting process, use the "
                        "allocation itself");
  if (result == CUDA_ERROR_INVALID_VALUE || result == CUDA_ERROR_INVALID_HANDLE ||
      result == CUDA_ERROR_MAP_FAILED)
    throw ArgumentError(context,
                        "the driver cannot map the handle [" + cu_error_name(result) +
                            "]: it is not a handle from mem_get_ipc_handle, or the memory it "
                            "names was freed, or its process has exited",
                        "send the 64 bytes mem_get_ipc_handle returned, unchanged, and keep the "
                        "exporting process and its allocation alive until the handle is closed");
  if (result == CUDA_ERROR_TOO_MANY_PEERS)
    throw CudaError(context, "too many peer mappings [" + cu_error_name(result) + "]",
                    "close handles you no longer use (IPCMemoryHandle.close())",
                    static_cast<int>(result), cu_error_name(result));
  fail(result, context, nullptr, false);
}

void CudaBackend::ipc_close(int ordinal, DevicePtr ptr) {
  const std::string context = "closing the IPC memory mapping at " + hex_address(ptr);
  make_current(ordinal);
  auto close =
      require_driver_entry(driver_->cuIpcCloseMemHandle, "cuIpcCloseMemHandle", context, kNoIpc);
  const CUresult result = close(ptr);
  if (result == CUDA_SUCCESS) return;
  if (result == CUDA_ERROR_INVALID_VALUE || result == CUDA_ERROR_INVALID_HANDLE)
    throw ArgumentError(
        context,
        "the address is not a mapping from an opened IPC handle [" + cu_error_name(result) + "]",
        "close only what ipc_open returned, once");
  fail(result, context, nullptr, false);
}

}  // namespace cudakit::detail
