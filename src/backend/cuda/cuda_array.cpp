// CUDA arrays and box copies on the CUDA backend: cuArray3DCreate_v2,
// cuArrayDestroy, cuMemcpy3DAsync_v2 and, between two devices,
// cuMemcpy3DPeerAsync, through the dlopen'ed driver table (a synchronous copy
// is the queued one waited for, as copy() does).
#include <cstring>
#include <string>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/relaxed_capture_mode.hpp"
#include "platform/cuda_driver.hpp"

namespace cudakit::detail {
namespace {

const char* const kArrayHint = "update the NVIDIA driver";

CUmemorytype memory_type(CopyEnd::Kind kind) {
  switch (kind) {
    case CopyEnd::Kind::array:
      return CU_MEMORYTYPE_ARRAY;
    case CopyEnd::Kind::device:
      return CU_MEMORYTYPE_DEVICE;
    case CopyEnd::Kind::host:
      break;
  }
  return CU_MEMORYTYPE_HOST;
}

// One end's fields of CUDA_MEMCPY3D / CUDA_MEMCPY3D_PEER (srcHost is const).
template <class HostPointer>
void fill_end(const BoxCopyEnd& end, std::size_t& x, std::size_t& y, std::size_t& z,
              CUmemorytype& type, HostPointer& host, CUdeviceptr& device, CUarray& array,
              std::size_t& pitch, std::size_t& height) {
  x = end.x_bytes;
  y = end.y;
  z = end.z;
  type = memory_type(end.kind);
  host = end.host;
  device = end.device;
  array = static_cast<CUarray>(end.array);
  pitch = end.pitch;
  height = end.height;
}

// Fills the fields CUDA_MEMCPY3D and CUDA_MEMCPY3D_PEER share.
template <class Params>
void fill_box(Params& p, const BoxCopy& box) {
  std::memset(&p, 0, sizeof p);
  fill_end(box.src, p.srcXInBytes, p.srcY, p.srcZ, p.srcMemoryType, p.srcHost, p.srcDevice,
           p.srcArray, p.srcPitch, p.srcHeight);
  fill_end(box.dst, p.dstXInBytes, p.dstY, p.dstZ, p.dstMemoryType, p.dstHost, p.dstDevice,
           p.dstArray, p.dstPitch, p.dstHeight);
  p.WidthInBytes = box.width_bytes;
  p.Height = box.height;
  p.Depth = box.depth;
}

std::string box_text(const BoxCopy& box) {
  return std::to_string(box.width_bytes) + " x " + std::to_string(box.height) + " x " +
         std::to_string(box.depth) + " box";
}

}  // namespace

NativeArray CudaBackend::create_array(int ordinal, const CudaArrayDescriptor& descriptor) {
  make_current(ordinal);
  auto create = require_driver_entry(driver_->cuArray3DCreate, "cuArray3DCreate_v2",
                                     "creating a CUDA array", kArrayHint);
  CUDA_ARRAY3D_DESCRIPTOR d;
  std::memset(&d, 0, sizeof d);
  d.Width = descriptor.width;
  d.Height = descriptor.height;
  d.Depth = descriptor.depth;
  d.Format = static_cast<CUarray_format>(descriptor.format);
  d.NumChannels = descriptor.channels;
  d.Flags = descriptor.flags;
  RelaxedCaptureMode relaxed(*driver_);
  CUarray array = nullptr;
  const CUresult result = create(&array, &d);
  if (result == CUDA_SUCCESS) return array;
  const std::string context =
      "creating a " + std::to_string(descriptor.width) + " x " + std::to_string(descriptor.height) +
      " x " + std::to_string(descriptor.depth) + " CUDA array on device " + std::to_string(ordinal);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    std::size_t free_bytes = 0, total_bytes = 0;
    driver_->cuMemGetInfo(&free_bytes, &total_bytes);
    throw OutOfMemory(context,
                      descriptor.width * (descriptor.height ? descriptor.height : 1) *
                          (descriptor.depth ? descriptor.depth : 1) * descriptor.element_bytes(),
                      free_bytes, total_bytes, static_cast<int>(result), cu_error_name(result));
  }
  fail(result, context, nullptr, false);
}

void CudaBackend::destroy_array(NativeArray array) noexcept {
  if (!array || !driver_ || !driver_->cuArrayDestroy) return;
  try {
    ensure_context();
  } catch (...) {
    return;
  }
  RelaxedCaptureMode relaxed(*driver_);
  driver_->cuArrayDestroy(static_cast<CUarray>(array));
}

void CudaBackend::copy_3d(const BoxCopy& box, NativeStream stream, bool async) {
  auto stream_handle = static_cast<CUstream>(stream);
  const bool peer =
      box.src.ordinal >= 0 && box.dst.ordinal >= 0 && box.src.ordinal != box.dst.ordinal;
  // An array belongs to its context: on the default stream, copy in the
  // array's (a stream brings its own context).
  const int array_ordinal = box.dst.kind == CopyEnd::Kind::array   ? box.dst.ordinal
                            : box.src.kind == CopyEnd::Kind::array ? box.src.ordinal
                                                                   : -1;
  if (!stream && !peer && array_ordinal >= 0)
    make_current(array_ordinal);
  else
    ensure_context();
  CUresult result = CUDA_SUCCESS;
  // As copy(): even the synchronous form is queued and waited for, so that
  // it is ordered after the stream's work and complete on return.
  if (peer) {
    auto copy = require_driver_entry(driver_->cuMemcpy3DPeerAsync, "cuMemcpy3DPeerAsync",
                                     "copying a box between two devices", kArrayHint);
    CUDA_MEMCPY3D_PEER p;
    fill_box(p, box);
    p.srcContext = primary_context(box.src.ordinal);
    p.dstContext = primary_context(box.dst.ordinal);
    result = copy(&p, stream_handle);
  } else {
    auto copy = require_driver_entry(driver_->cuMemcpy3DAsync, "cuMemcpy3DAsync_v2",
                                     "copying a box (cuMemcpy3D)", kArrayHint);
    CUDA_MEMCPY3D p;
    fill_box(p, box);
    result = copy(&p, stream_handle);
  }
  if (result == CUDA_SUCCESS && !async) result = driver_->cuStreamSynchronize(stream_handle);
  if (result != CUDA_SUCCESS)
    fail(result,
         std::string(async ? "queueing a copy of a " : "copying a ") + box_text(box) +
             (peer ? " between devices " + std::to_string(box.src.ordinal) + " and " +
                         std::to_string(box.dst.ordinal)
                   : std::string()),
         stream, true);
}

}  // namespace cudakit::detail
