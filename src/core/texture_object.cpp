// TextureObject and SurfaceObject: the resource and descriptor checked once
// for both backends (as cuTexObjectCreate / cuSurfObjectCreate rule), then
// the backend's object.
#include <string>
#include <utility>

#include "backend/backend.hpp"
#include "core/texture_request.hpp"
#include "cudakit/error.hpp"
#include "cudakit/surface.hpp"
#include "cudakit/texture.hpp"

namespace cudakit {
namespace {

const char* const kCreating = "creating a texture object";

std::string n(std::size_t value) { return std::to_string(value); }

bool is_small_integer(ArrayFormat f) {
  return f == ArrayFormat::uint8 || f == ArrayFormat::uint16 || f == ArrayFormat::int8 ||
         f == ArrayFormat::int16;
}

// A device attribute, or `fallback` where the backend does not report it.
std::size_t alignment(const Device& device, DeviceAttribute attribute, std::size_t fallback) {
  const std::int64_t value = device.attribute(attribute);
  return value > 0 ? static_cast<std::size_t>(value) : fallback;
}

void check_channels(unsigned channels) {
  if (channels != 1 && channels != 2 && channels != 4)
    throw ArgumentError(kCreating, "channels must be 1, 2 or 4, got " + n(channels),
                        "store 3-component data with 4 channels");
}

detail::TextureRequest request_of(const Device& device, const TextureResource& resource,
                                  const TextureDescriptor& descriptor) {
  detail::TextureRequest request;
  request.kind = resource.kind;
  request.descriptor = descriptor;
  if (resource.kind == TextureResource::Kind::array) {
    if (!resource.array || resource.array->empty())
      throw ArgumentError(kCreating, "the resource's CUDA array is empty (never created or freed)",
                          "create the CudaArray first and keep it alive while the texture is");
    if (resource.array->device().ordinal() != device.ordinal())
      throw ArgumentError(kCreating,
                          "the CUDA array belongs to device " +
                              std::to_string(resource.array->device().ordinal()) +
                              ", the texture to device " + std::to_string(device.ordinal()),
                          "create the texture on the array's device");
    request.array = resource.array->native();
    request.layout = resource.array->descriptor();
    return request;
  }
  array_format_bytes(resource.format);  // ArgumentError for an unknown format
  check_channels(resource.channels);
  request.device = resource.device;
  request.layout.format = resource.format;
  request.layout.channels = resource.channels;
  const std::size_t element = array_format_bytes(resource.format) * resource.channels;
  const std::size_t align = alignment(device, DeviceAttribute::texture_alignment, 256);
  if (resource.device == 0 || resource.device % align)
    throw ArgumentError(kCreating,
                        "the address " + n(resource.device) + " is not " + n(align) +
                            "-byte aligned, as texture memory must be",
                        "bind the start of an allocation (allocations are aligned) and add the "
                        "offset to the coordinates");
  if (resource.kind == TextureResource::Kind::linear) {
    if (resource.bytes == 0 || resource.bytes % element)
      throw ArgumentError(kCreating,
                          "bytes=" + n(resource.bytes) + " is not a positive multiple of the " +
                              n(element) + "-byte element",
                          "pass the size of whole elements");
    request.bytes = resource.bytes;
    request.layout.width = resource.bytes / element;
    return request;
  }
  const std::size_t pitch_align = alignment(device, DeviceAttribute::texture_pitch_alignment, 32);
  if (resource.width == 0 || resource.height == 0)
    throw ArgumentError(kCreating, "a pitch-2-D texture needs a positive width and height",
                        "pass the extent in elements and rows");
  if (resource.pitch < resource.width * element || resource.pitch % pitch_align)
    throw ArgumentError(kCreating,
                        "pitch " + n(resource.pitch) + " must hold a row of " +
                            n(resource.width * element) + " bytes and be a multiple of " +
                            n(pitch_align),
                        "round the row size up to the device's texture pitch alignment");
  request.layout.width = resource.width;
  request.layout.height = resource.height;
  request.pitch = resource.pitch;
  return request;
}

void check_descriptor(const TextureDescriptor& d, ArrayFormat format) {
  for (AddressMode m : d.address_mode)
    if (static_cast<unsigned>(m) > 3)
      throw ArgumentError(kCreating, "address mode " + n(static_cast<unsigned>(m)) + " is unknown",
                          "use AddressMode::wrap, clamp, mirror or border");
  if (static_cast<unsigned>(d.filter) > 1)
    throw ArgumentError(kCreating,
                        "filter mode " + n(static_cast<unsigned>(d.filter)) + " is unknown",
                        "use FilterMode::point or linear");
  const bool reads_float = format == ArrayFormat::float32 || format == ArrayFormat::half ||
                           (is_small_integer(format) && !d.read_as_integer);
  if (d.filter == FilterMode::linear && !reads_float)
    throw ArgumentError(kCreating,
                        "linear filtering needs values read as floats, and this texture reads "
                        "integers (a 32-bit integer format, or read_as_integer)",
                        "use FilterMode::point, or an 8/16-bit format read as normalized floats");
}

// Gives the backend's object back and empties the handle.
template <class Destroy>
void release(Device*& device, std::uint64_t& handle, Destroy destroy) noexcept {
  if (handle && device) destroy(detail::backend_of(*device), handle);
  handle = 0;
  delete device;
  device = nullptr;
}

}  // namespace

namespace detail {
void check_surface_array(const CudaArray& array, const std::string& doing) {
  if (array.empty())
    throw ArgumentError(doing, "the CUDA array is empty (never created or freed)",
                        "create the CudaArray first and keep it alive while the surface is");
  if (!(array.descriptor().flags & array_flags::surface_ldst))
    throw ArgumentError(doing, "the CUDA array was made without array_flags::surface_ldst",
                        "create the array with flags |= array_flags::surface_ldst");
}

TextureRequest texture_request(const Device& device, const TextureResource& resource,
                               const TextureDescriptor& descriptor) {
  TextureRequest request = request_of(device, resource, descriptor);
  check_descriptor(descriptor, request.layout.format);
  return request;
}
}  // namespace detail

TextureResource TextureResource::of_array(const CudaArray& array) {
  TextureResource r;
  r.kind = Kind::array;
  r.array = &array;
  return r;
}

TextureResource TextureResource::linear(std::uint64_t device, ArrayFormat format, unsigned channels,
                                        std::size_t bytes) {
  TextureResource r;
  r.kind = Kind::linear;
  r.device = device;
  r.format = format;
  r.channels = channels;
  r.bytes = bytes;
  return r;
}

TextureResource TextureResource::pitch_2d(std::uint64_t device, ArrayFormat format,
                                          unsigned channels, std::size_t width, std::size_t height,
                                          std::size_t pitch) {
  TextureResource r;
  r.kind = Kind::pitch_2d;
  r.device = device;
  r.format = format;
  r.channels = channels;
  r.width = width;
  r.height = height;
  r.pitch = pitch;
  return r;
}

TextureObject::TextureObject(const Device& device, const TextureResource& resource,
                             const TextureDescriptor& descriptor)
    : descriptor_(descriptor) {
  const detail::TextureRequest request = detail::texture_request(device, resource, descriptor);
  handle_ = detail::backend_of(device).create_texture_object(device.ordinal(), request);
  device_ = new Device(device);
}

TextureObject::TextureObject(TextureObject&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      handle_(std::exchange(other.handle_, 0)),
      descriptor_(other.descriptor_) {}

TextureObject& TextureObject::operator=(TextureObject&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = std::exchange(other.device_, nullptr);
    handle_ = std::exchange(other.handle_, 0);
    descriptor_ = other.descriptor_;
  }
  return *this;
}

TextureObject::~TextureObject() { reset(); }

void TextureObject::reset() noexcept {
  release(device_, handle_,
          [](detail::Backend& b, std::uint64_t h) { b.destroy_texture_object(h); });
}

SurfaceObject::SurfaceObject(const CudaArray& array) {
  detail::check_surface_array(array, "creating a surface object");
  const Device& device = array.device();
  handle_ = detail::backend_of(device).create_surface_object(device.ordinal(), array.native(),
                                                             array.descriptor());
  device_ = new Device(device);
}

SurfaceObject::SurfaceObject(SurfaceObject&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)), handle_(std::exchange(other.handle_, 0)) {}

SurfaceObject& SurfaceObject::operator=(SurfaceObject&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = std::exchange(other.device_, nullptr);
    handle_ = std::exchange(other.handle_, 0);
  }
  return *this;
}

SurfaceObject::~SurfaceObject() { reset(); }

void SurfaceObject::reset() noexcept {
  release(device_, handle_,
          [](detail::Backend& b, std::uint64_t h) { b.destroy_surface_object(h); });
}

}  // namespace cudakit
