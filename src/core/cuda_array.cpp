// CudaArray: the descriptor checked once for both backends, then the
// backend's array (cuArray3DCreate, or the CPU backend's record).
#include "cudakit/cuda_array.hpp"

#include <cstdio>
#include <string>
#include <utility>

#include "backend/backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

const char* const kCreating = "creating a CUDA array";

std::string n(std::size_t value) { return std::to_string(value); }

std::string extents(const CudaArrayDescriptor& d) {
  return n(d.width) + " x " + n(d.height) + " x " + n(d.depth);
}

// A limit of the device's (0 or less: the backend does not report it).
void check_limit(const Device& device, DeviceAttribute attribute, std::size_t value,
                 const char* extent, const CudaArrayDescriptor& d) {
  const std::int64_t limit = device.attribute(attribute);
  if (limit > 0 && value > static_cast<std::size_t>(limit))
    throw ArgumentError(kCreating,
                        "the " + std::string(extent) + " " + n(value) + " of the " + extents(d) +
                            " array exceeds the device's limit of " + std::to_string(limit) +
                            " for this kind of array",
                        "split the data into several arrays, or use device memory");
}

void check_device_limits(const Device& device, const CudaArrayDescriptor& d) {
  using A = DeviceAttribute;
  const bool layered = d.flags & array_flags::layered;
  if (d.flags & array_flags::cubemap) {
    check_limit(device,
                layered ? A::maximum_texturecubemap_layered_width : A::maximum_texturecubemap_width,
                d.width, "width", d);
    if (layered)
      check_limit(device, A::maximum_texturecubemap_layered_layers, d.depth / 6, "layer count", d);
    return;
  }
  if (layered) {
    if (d.height == 0) {
      check_limit(device, A::maximum_texture1d_layered_width, d.width, "width", d);
      check_limit(device, A::maximum_texture1d_layered_layers, d.depth, "layer count", d);
    } else {
      check_limit(device, A::maximum_texture2d_layered_width, d.width, "width", d);
      check_limit(device, A::maximum_texture2d_layered_height, d.height, "height", d);
      check_limit(device, A::maximum_texture2d_layered_layers, d.depth, "layer count", d);
    }
    return;
  }
  switch (d.dimensions()) {
    case 1:
      check_limit(device, A::maximum_texture1d_width, d.width, "width", d);
      break;
    case 2:
      check_limit(device, A::maximum_texture2d_width, d.width, "width", d);
      check_limit(device, A::maximum_texture2d_height, d.height, "height", d);
      break;
    default:
      // The alternate 3-D limits trade width and height for depth: refuse
      // only what neither set allows.
      if ((d.width > static_cast<std::size_t>(device.attribute(A::maximum_texture3d_width)) ||
           d.height > static_cast<std::size_t>(device.attribute(A::maximum_texture3d_height)) ||
           d.depth > static_cast<std::size_t>(device.attribute(A::maximum_texture3d_depth))) &&
          device.attribute(A::maximum_texture3d_width) > 0) {
        check_limit(device, A::maximum_texture3d_width_alternate, d.width, "width", d);
        check_limit(device, A::maximum_texture3d_height_alternate, d.height, "height", d);
        check_limit(device, A::maximum_texture3d_depth_alternate, d.depth, "depth", d);
      }
  }
}

void check_descriptor(const CudaArrayDescriptor& d) {
  if (d.width == 0)
    throw ArgumentError(kCreating, "the width is 0", "give a width of at least 1 element");
  if (d.channels != 1 && d.channels != 2 && d.channels != 4)
    throw ArgumentError(kCreating, "num_channels is " + std::to_string(d.channels),
                        "give 1, 2 or 4 channels (CUDA arrays have no 3-channel format: pad "
                        "to 4)");
  (void)array_format_bytes(d.format);  // ArgumentError for an unknown format
  if (d.flags & ~array_flags::all) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%x", d.flags & ~array_flags::all);
    throw ArgumentError(kCreating, std::string("unknown flags ") + text,
                        "combine LAYERED, SURFACE_LDST, CUBEMAP and TEXTURE_GATHER only "
                        "(array3d_flags)");
  }
  const bool layered = d.flags & array_flags::layered;
  if (layered && d.depth == 0)
    throw ArgumentError(kCreating, "a layered array has depth 0 (the depth counts its layers)",
                        "give the number of layers as the depth");
  if (!layered && d.depth && !d.height)
    throw ArgumentError(kCreating, "a 3-D array of depth " + n(d.depth) + " has height 0",
                        "give a height, or depth 0 for a 1-D array (or set LAYERED for "
                        "layers of 1-D arrays)");
  if (d.flags & array_flags::cubemap) {
    if (d.width != d.height || (layered ? d.depth % 6 : d.depth != 6) || d.depth == 0)
      throw ArgumentError(kCreating, "a cube map of " + extents(d) + " is not six square faces",
                          "give width == height and depth 6 (a multiple of 6 when layered)");
  }
  if ((d.flags & array_flags::texture_gather) && d.dimensions() != 2)
    throw ArgumentError(kCreating, "TEXTURE_GATHER is set on a " + extents(d) + " array",
                        "texture gather needs a 2-D array (height > 0, depth 0)");
  std::size_t bytes = d.element_bytes();
  for (std::size_t extent : {d.width, d.height ? d.height : 1, d.depth ? d.depth : 1})
    if (__builtin_mul_overflow(bytes, extent, &bytes))
      throw ArgumentError(kCreating, "a " + extents(d) + " array has more bytes than memory can",
                          "check the extents for a wrong or negative value");
}

}  // namespace

std::size_t array_format_bytes(ArrayFormat format) {
  switch (format) {
    case ArrayFormat::uint8:
    case ArrayFormat::int8:
      return 1;
    case ArrayFormat::uint16:
    case ArrayFormat::int16:
    case ArrayFormat::half:
      return 2;
    case ArrayFormat::uint32:
    case ArrayFormat::int32:
    case ArrayFormat::float32:
      return 4;
  }
  throw ArgumentError("reading a CUDA array format",
                      "format " + std::to_string(static_cast<unsigned>(format)) +
                          " is not one of "
                          "UNSIGNED_INT8/16/32, SIGNED_INT8/16/32, HALF, FLOAT",
                      "use a value of array_format / ArrayFormat");
}

CudaArray::CudaArray(const Device& device, const CudaArrayDescriptor& descriptor)
    : descriptor_(descriptor) {
  check_descriptor(descriptor);
  check_device_limits(device, descriptor);
  device_ = new Device(device);
  try {
    native_ = detail::backend_of(device).create_array(device.ordinal(), descriptor);
  } catch (...) {
    delete device_;
    device_ = nullptr;
    throw;
  }
}

CudaArray::CudaArray(CudaArray&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      native_(std::exchange(other.native_, nullptr)),
      descriptor_(other.descriptor_) {}

CudaArray& CudaArray::operator=(CudaArray&& other) noexcept {
  if (this != &other) {
    reset();
    delete device_;
    device_ = std::exchange(other.device_, nullptr);
    native_ = std::exchange(other.native_, nullptr);
    descriptor_ = other.descriptor_;
  }
  return *this;
}

CudaArray::~CudaArray() {
  reset();
  delete device_;
}

const Device& CudaArray::device() const {
  if (!device_)
    throw ArgumentError("asking a CUDA array for its device", "the array was never created",
                        "construct it with a device and a descriptor");
  return *device_;
}

std::size_t CudaArray::bytes() const noexcept {
  const CudaArrayDescriptor& d = descriptor_;
  return d.width * (d.height ? d.height : 1) * (d.depth ? d.depth : 1) * d.element_bytes();
}

void CudaArray::reset() noexcept {
  if (native_ && device_) detail::backend_of(*device_).destroy_array(native_);
  native_ = nullptr;
}

namespace {
Copy3D whole_array_copy(const CudaArray& array) {
  const CudaArrayDescriptor& d = array.descriptor();
  Copy3D copy;
  copy.width_bytes = d.width * d.element_bytes();
  copy.height = d.height ? d.height : 1;
  copy.depth = d.depth ? d.depth : 1;
  return copy;
}
}  // namespace

void CudaArray::copy_from_host(const void* src) {
  Copy3D copy = whole_array_copy(*this);
  copy.src.kind = CopyEnd::Kind::host;
  copy.src.host = const_cast<void*>(src);
  copy.dst.kind = CopyEnd::Kind::array;
  copy.dst.array = this;
  copy_3d(copy);
}

void CudaArray::copy_to_host(void* dst) const {
  Copy3D copy = whole_array_copy(*this);
  copy.src.kind = CopyEnd::Kind::array;
  copy.src.array = this;
  copy.dst.kind = CopyEnd::Kind::host;
  copy.dst.host = dst;
  copy_3d(copy);
}

}  // namespace cudakit
