// The CUDA driver API (libcuda.so.1), loaded with dlopen on first use. One
// table of function pointers, resolved under the versioned names cuda.h maps
// each call to (cuMemAlloc -> cuMemAlloc_v2, ...), so a call through the table
// behaves exactly as a call compiled against cuda.h would. cuda.h is included
// for its types only; cudakit never links libcuda.
#pragma once

#include <cuda.h>

#include <string>
#include <string_view>

#include "platform/library_loader.hpp"
#include "platform/library_search.hpp"

namespace cudakit::detail {

// X-macro: every driver entry point cudakit uses. Optional ones (newer
// drivers only) are null when the driver lacks them.
#define CUDAKIT_DRIVER_REQUIRED(X)               \
  X(cuInit)                                      \
  X(cuDriverGetVersion)                          \
  X(cuGetErrorName)                              \
  X(cuGetErrorString)                            \
  X(cuDeviceGetCount)                            \
  X(cuDeviceGet)                                 \
  X(cuDeviceGetName)                             \
  X(cuDeviceGetAttribute)                        \
  X(cuDeviceTotalMem)                            \
  X(cuDeviceGetPCIBusId)                         \
  X(cuDevicePrimaryCtxRetain)                    \
  X(cuDevicePrimaryCtxRelease)                   \
  X(cuCtxSetCurrent)                             \
  X(cuCtxGetCurrent)                             \
  X(cuCtxGetDevice)                              \
  X(cuCtxSynchronize)                            \
  X(cuCtxSetLimit)                               \
  X(cuCtxGetLimit)                               \
  X(cuCtxSetCacheConfig)                         \
  X(cuCtxGetCacheConfig)                         \
  X(cuMemGetInfo)                                \
  X(cuMemAlloc)                                  \
  X(cuMemFree)                                   \
  X(cuMemAllocHost)                              \
  X(cuMemFreeHost)                               \
  X(cuMemHostRegister)                           \
  X(cuMemHostUnregister)                         \
  X(cuMemHostGetDevicePointer)                   \
  X(cuMemcpy)                                    \
  X(cuMemcpyAsync)                               \
  X(cuMemsetD8Async)                             \
  X(cuMemsetD16Async)                            \
  X(cuMemsetD32Async)                            \
  X(cuStreamCreate)                              \
  X(cuStreamDestroy)                             \
  X(cuStreamSynchronize)                         \
  X(cuStreamQuery)                               \
  X(cuStreamWaitEvent)                           \
  X(cuEventCreate)                               \
  X(cuEventDestroy)                              \
  X(cuEventRecord)                               \
  X(cuEventSynchronize)                          \
  X(cuEventQuery)                                \
  X(cuEventElapsedTime)                          \
  X(cuModuleLoadDataEx)                          \
  X(cuModuleUnload)                              \
  X(cuModuleGetFunction)                         \
  X(cuModuleGetGlobal)                           \
  X(cuFuncGetAttribute)                          \
  X(cuFuncSetAttribute)                          \
  X(cuFuncSetCacheConfig)                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuOccupancyMaxPotentialBlockSize)            \
  X(cuLaunchKernel)                              \
  X(cuLinkCreate)                                \
  X(cuLinkAddData)                               \
  X(cuLinkAddFile)                               \
  X(cuLinkComplete)                              \
  X(cuLinkDestroy)

#define CUDAKIT_DRIVER_OPTIONAL(X)     \
  X(cuModuleGetFunctionCount)          \
  X(cuModuleEnumerateFunctions)        \
  X(cuFuncGetName)                     \
  X(cuFuncGetParamInfo)                \
  X(cuLaunchCooperativeKernel)         \
  X(cuDeviceCanAccessPeer)             \
  X(cuLaunchHostFunc)                  \
  X(cuStreamBeginCapture)              \
  X(cuStreamEndCapture)                \
  X(cuStreamIsCapturing)               \
  X(cuGraphGetNodes)                   \
  X(cuGraphInstantiateWithFlags)       \
  X(cuGraphUpload)                     \
  X(cuGraphLaunch)                     \
  X(cuGraphExecUpdate)                 \
  X(cuGraphDestroy)                    \
  X(cuGraphExecDestroy)                \
  X(cuThreadExchangeStreamCaptureMode) \
  X(cuEventRecordWithFlags)            \
  X(cuPointerGetAttributes)            \
  X(cuMemAllocManaged)                 \
  X(cuStreamAttachMemAsync)            \
  X(cuMemGetAddressRange)              \
  X(cuIpcGetMemHandle)                 \
  X(cuIpcOpenMemHandle)                \
  X(cuIpcCloseMemHandle)               \
  X(cuArray3DCreate)                   \
  X(cuArrayDestroy)                    \
  X(cuMemcpy3DAsync)                   \
  X(cuMemcpy3DPeerAsync)               \
  X(cuTexObjectCreate)                 \
  X(cuTexObjectDestroy)                \
  X(cuSurfObjectCreate)                \
  X(cuSurfObjectDestroy)

struct CudaDriver {
#define CUDAKIT_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  CUDAKIT_DRIVER_REQUIRED(CUDAKIT_DRIVER_MEMBER)
  CUDAKIT_DRIVER_OPTIONAL(CUDAKIT_DRIVER_MEMBER)
#undef CUDAKIT_DRIVER_MEMBER
  // Deprecated in cuda.h (every GPU since Maxwell has fixed 4-byte banks)
  // but still exported; typed here so that naming them warns of nothing.
  // Null when the driver lacks them.
  CUresult (*cuCtxSetSharedMemConfig)(CUsharedconfig) = nullptr;
  CUresult (*cuCtxGetSharedMemConfig)(CUsharedconfig*) = nullptr;
  std::string path;  // the file it was loaded from
};

// Loads a driver table from a plan; throws DriverNotFound listing every path
// tried when none opens or a required symbol is missing.
CudaDriver load_cuda_driver(const SearchPlan& plan);
// The process-wide table, loaded once (thread-safe); throws DriverNotFound.
const CudaDriver& cuda_driver();
// The process-wide table if it is already loaded or loads now; null if not.
const CudaDriver* cuda_driver_if_available() noexcept;

// "CUDA_ERROR_ILLEGAL_ADDRESS" for a result, through the driver when loaded
// and a built-in table otherwise (so errors are named even with no driver).
std::string cu_error_name(CUresult result);
// The driver's sentence for a result ("an illegal memory access was encountered").
std::string cu_error_string(CUresult result);

// Driver version as CUDA encodes it (13000 = 13.0); 0 when no driver loads.
int cuda_driver_version() noexcept;

}  // namespace cudakit::detail
