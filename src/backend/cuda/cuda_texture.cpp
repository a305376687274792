// Texture and surface objects on the CUDA backend: cuTexObjectCreate,
// cuTexObjectDestroy, cuSurfObjectCreate and cuSurfObjectDestroy through the
// dlopen'ed driver table.
#include <cstring>
#include <string>

#include "backend/cuda/cuda_backend_impl.hpp"
#include "backend/cuda/relaxed_capture_mode.hpp"
#include "platform/cuda_driver.hpp"

namespace cudakit::detail {
namespace {

const char* const kTextureHint = "update the NVIDIA driver";

CUDA_RESOURCE_DESC resource_of(const TextureRequest& request) {
  CUDA_RESOURCE_DESC r;
  std::memset(&r, 0, sizeof r);
  const auto format = static_cast<CUarray_format>(request.layout.format);
  switch (request.kind) {
    case TextureResource::Kind::array:
      r.resType = CU_RESOURCE_TYPE_ARRAY;
      r.res.array.hArray = static_cast<CUarray>(request.array);
      break;
    case TextureResource::Kind::linear:
      r.resType = CU_RESOURCE_TYPE_LINEAR;
      r.res.linear.devPtr = request.device;
      r.res.linear.format = format;
      r.res.linear.numChannels = request.layout.channels;
      r.res.linear.sizeInBytes = request.bytes;
      break;
    case TextureResource::Kind::pitch_2d:
      r.resType = CU_RESOURCE_TYPE_PITCH2D;
      r.res.pitch2D.devPtr = request.device;
      r.res.pitch2D.format = format;
      r.res.pitch2D.numChannels = request.layout.channels;
      r.res.pitch2D.width = request.layout.width;
      r.res.pitch2D.height = request.layout.height;
      r.res.pitch2D.pitchInBytes = request.pitch;
      break;
  }
  return r;
}

CUDA_TEXTURE_DESC texture_of(const TextureDescriptor& d) {
  CUDA_TEXTURE_DESC t;
  std::memset(&t, 0, sizeof t);
  for (int i = 0; i < 3; ++i) t.addressMode[i] = static_cast<CUaddress_mode>(d.address_mode[i]);
  t.filterMode = static_cast<CUfilter_mode>(d.filter);
  t.flags = (d.read_as_integer ? CU_TRSF_READ_AS_INTEGER : 0u) |
            (d.normalized_coordinates ? CU_TRSF_NORMALIZED_COORDINATES : 0u);
  for (int i = 0; i < 4; ++i) t.borderColor[i] = d.border_color[i];
  return t;
}

}  // namespace

std::uint64_t CudaBackend::create_texture_object(int ordinal, const TextureRequest& request) {
  make_current(ordinal);
  auto create = require_driver_entry(driver_->cuTexObjectCreate, "cuTexObjectCreate",
                                     "creating a texture object", kTextureHint);
  const CUDA_RESOURCE_DESC resource = resource_of(request);
  const CUDA_TEXTURE_DESC texture = texture_of(request.descriptor);
  RelaxedCaptureMode relaxed(*driver_);
  CUtexObject object = 0;
  const CUresult result = create(&object, &resource, &texture, nullptr);
  if (result != CUDA_SUCCESS)
    fail(result, "creating a texture object on device " + std::to_string(ordinal), nullptr, false);
  return static_cast<std::uint64_t>(object);
}

void CudaBackend::destroy_texture_object(std::uint64_t handle) noexcept {
  if (!handle || !driver_ || !driver_->cuTexObjectDestroy) return;
  try {
    ensure_context();
  } catch (...) {
    return;
  }
  RelaxedCaptureMode relaxed(*driver_);
  driver_->cuTexObjectDestroy(static_cast<CUtexObject>(handle));
}

std::uint64_t CudaBackend::create_surface_object(int ordinal, NativeArray array,
                                                 const CudaArrayDescriptor& layout) {
  (void)layout;
  make_current(ordinal);
  auto create = require_driver_entry(driver_->cuSurfObjectCreate, "cuSurfObjectCreate",
                                     "creating a surface object", kTextureHint);
  CUDA_RESOURCE_DESC resource;
  std::memset(&resource, 0, sizeof resource);
  resource.resType = CU_RESOURCE_TYPE_ARRAY;
  resource.res.array.hArray = static_cast<CUarray>(array);
  RelaxedCaptureMode relaxed(*driver_);
  CUsurfObject object = 0;
  const CUresult result = create(&object, &resource);
  if (result != CUDA_SUCCESS)
    fail(result, "creating a surface object on device " + std::to_string(ordinal), nullptr, false);
  return static_cast<std::uint64_t>(object);
}

void CudaBackend::destroy_surface_object(std::uint64_t handle) noexcept {
  if (!handle || !driver_ || !driver_->cuSurfObjectDestroy) return;
  try {
    ensure_context();
  } catch (...) {
    return;
  }
  RelaxedCaptureMode relaxed(*driver_);
  driver_->cuSurfObjectDestroy(static_cast<CUsurfObject>(handle));
}

}  // namespace cudakit::detail
