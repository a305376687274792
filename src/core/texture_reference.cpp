// TextureReference and SurfaceReference: a module's texture<>/surface<>
// global, bound by the backend (the CPU backend writes its record; the CUDA
// backend refuses: CUDA 12 removed references).
#include "cudakit/texture_reference.hpp"

#include <string>
#include <utility>

#include "core/texture_request.hpp"
#include "cudakit/error.hpp"
#include "module_state.hpp"

namespace cudakit {
namespace {

// The module's global `name`, checked to be a reference (a 128-byte record),
// unbound. NotSupported first on a backend without references.
GlobalVariable reference_global(const Module& module, detail::Backend& backend,
                                std::string_view name, bool surface) {
  backend.bind_texture_reference(0, nullptr, surface);  // NotSupported on a GPU
  const char* what = surface ? "surface" : "texture";
  std::pair<detail::DevicePtr, std::size_t> found{0, 0};
  try {
    found = backend.get_global(module.native(), std::string(name));
  } catch (const ArgumentError&) {
    found = {0, 0};
  }
  const auto [address, bytes] = found;
  if (!address)
    throw ArgumentError(
        std::string("binding the ") + what + " reference '" + std::string(name) + "'",
        std::string("the module declares no ") + what + " reference of that name",
        surface ? "declare `surface<void, cudaSurfaceType2D> name;` at namespace "
                  "scope"
                : "declare `texture<float, 2> name;` at namespace scope");
  GlobalVariable global{module.device(), address, bytes};
  if (global.bytes != 128)
    throw ArgumentError(
        std::string("binding the ") + what + " reference '" + std::string(name) + "'",
        "'" + std::string(name) + "' is a variable of " + std::to_string(global.bytes) +
            " bytes, not a " + what + "<> declaration",
        "name the texture<...> / surface<...> variable");
  return global;
}

}  // namespace

TextureReference Module::texture_reference(std::string_view name) const {
  return TextureReference(reference_global(*this, *state_->backend, name, false),
                          std::string(name));
}

SurfaceReference Module::surface_reference(std::string_view name) const {
  return SurfaceReference(reference_global(*this, *state_->backend, name, true), std::string(name));
}

TextureReference::TextureReference(GlobalVariable global, std::string name)
    : global_(std::move(global)), name_(std::move(name)) {
  detail::backend_of(global_.device).bind_texture_reference(global_.address, nullptr, false);
}

void TextureReference::bind() {
  if (!bound_) return;
  TextureResource resource = resource_;
  // Linear memory covers the whole elements of its bytes, as the driver's
  // references did: set_address may come before set_format.
  if (resource.kind == TextureResource::Kind::linear) {
    const std::size_t element = array_format_bytes(resource.format) * resource.channels;
    resource.bytes -= resource.bytes % element;
  }
  const detail::TextureRequest request =
      detail::texture_request(global_.device, resource, descriptor_);
  detail::backend_of(global_.device).bind_texture_reference(global_.address, &request, false);
}

void TextureReference::set_array(const CudaArray& array) {
  resource_ = TextureResource::of_array(array);
  bound_ = true;
  bind();
}

void TextureReference::set_address(std::uint64_t device, std::size_t bytes) {
  resource_ = TextureResource::linear(device, resource_.format, resource_.channels, bytes);
  bound_ = true;
  bind();
}

void TextureReference::set_address_2d(std::uint64_t device, ArrayFormat format, unsigned channels,
                                      std::size_t width, std::size_t height, std::size_t pitch) {
  resource_ = TextureResource::pitch_2d(device, format, channels, width, height, pitch);
  bound_ = true;
  bind();
}

void TextureReference::set_format(ArrayFormat format, unsigned channels) {
  array_format_bytes(format);  // ArgumentError for an unknown format
  if (channels != 1 && channels != 2 && channels != 4)
    throw ArgumentError("setting the format of texture reference '" + name_ + "'",
                        "channels must be 1, 2 or 4, got " + std::to_string(channels),
                        "store 3-component data with 4 channels");
  resource_.format = format;
  resource_.channels = channels;
  bind();
}

void TextureReference::set_address_mode(int dimension, AddressMode mode) {
  if (dimension < 0 || dimension > 2)
    throw ArgumentError("setting an address mode of texture reference '" + name_ + "'",
                        "dimension must be 0, 1 or 2, got " + std::to_string(dimension));
  descriptor_.address_mode[static_cast<std::size_t>(dimension)] = mode;
  bind();
}

void TextureReference::set_filter_mode(FilterMode mode) {
  descriptor_.filter = mode;
  bind();
}

void TextureReference::set_flags(unsigned flags) {
  if (flags & ~(texture_flags::read_as_integer | texture_flags::normalized_coordinates))
    throw ArgumentError("setting the flags of texture reference '" + name_ + "'",
                        "unknown flags " + std::to_string(flags),
                        "use texture_flags::read_as_integer / normalized_coordinates");
  descriptor_.read_as_integer = flags & texture_flags::read_as_integer;
  descriptor_.normalized_coordinates = flags & texture_flags::normalized_coordinates;
  bind();
}

unsigned TextureReference::flags() const noexcept {
  return (descriptor_.read_as_integer ? texture_flags::read_as_integer : 0u) |
         (descriptor_.normalized_coordinates ? texture_flags::normalized_coordinates : 0u);
}

SurfaceReference::SurfaceReference(GlobalVariable global, std::string name)
    : global_(std::move(global)), name_(std::move(name)) {
  detail::backend_of(global_.device).bind_texture_reference(global_.address, nullptr, true);
}

void SurfaceReference::set_array(const CudaArray& array) {
  detail::check_surface_array(array, "binding surface reference '" + name_ + "'");
  detail::TextureRequest request;
  request.kind = TextureResource::Kind::array;
  request.array = array.native();
  request.layout = array.descriptor();
  detail::backend_of(global_.device).bind_texture_reference(global_.address, &request, true);
}

}  // namespace cudakit
