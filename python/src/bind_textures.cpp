// Texture and surface objects for cudakit.driver.TextureObject /
// SurfaceObject (python/cudakit/_texture_objects.py): the C++ objects over
// device memory or a CUDA array, on the current device.
#include <nanobind/stl/array.h>

#include <array>
#include <cstdint>

#include "bindings.hpp"
#include "cudakit/device.hpp"
#include "cudakit/surface.hpp"
#include "cudakit/texture.hpp"

namespace cudakit::python {
namespace {

TextureDescriptor descriptor_of(const std::array<unsigned, 3>& modes, unsigned filter,
                                bool read_as_integer, bool normalized,
                                const std::array<float, 4>& border) {
  TextureDescriptor d;
  for (int i = 0; i < 3; ++i) d.address_mode[i] = static_cast<AddressMode>(modes[i]);
  d.filter = static_cast<FilterMode>(filter);
  d.read_as_integer = read_as_integer;
  d.normalized_coordinates = normalized;
  d.border_color = border;
  return d;
}

}  // namespace

void bind_textures(nb::module_& m) {
  nb::class_<TextureObject>(m, "_TextureObject")
      .def_prop_ro("handle", &TextureObject::handle)
      .def("reset", &TextureObject::reset);
  nb::class_<SurfaceObject>(m, "_SurfaceObject")
      .def_prop_ro("handle", &SurfaceObject::handle)
      .def("reset", &SurfaceObject::reset);
  m.def(
      "_texture_object_memory",
      [](std::uint64_t address, unsigned format, unsigned channels, std::size_t bytes,
         std::size_t width, std::size_t height, std::size_t pitch,
         const std::array<unsigned, 3>& modes, unsigned filter, bool read_as_integer,
         bool normalized, const std::array<float, 4>& border) {
        const auto f = static_cast<ArrayFormat>(format);
        const TextureResource resource =
            pitch ? TextureResource::pitch_2d(address, f, channels, width, height, pitch)
                  : TextureResource::linear(address, f, channels, bytes);
        return TextureObject(Device::current(), resource,
                             descriptor_of(modes, filter, read_as_integer, normalized, border));
      },
      nb::arg("address"), nb::arg("format"), nb::arg("channels"), nb::arg("bytes"),
      nb::arg("width"), nb::arg("height"), nb::arg("pitch"), nb::arg("modes"), nb::arg("filter"),
      nb::arg("read_as_integer"), nb::arg("normalized"), nb::arg("border"));
  m.def(
      "_texture_object_array",
      [](const CudaArray& array, const std::array<unsigned, 3>& modes, unsigned filter,
         bool read_as_integer, bool normalized, const std::array<float, 4>& border) {
        return TextureObject(array.device(), TextureResource::of_array(array),
                             descriptor_of(modes, filter, read_as_integer, normalized, border));
      },
      nb::arg("array"), nb::arg("modes"), nb::arg("filter"), nb::arg("read_as_integer"),
      nb::arg("normalized"), nb::arg("border"));
  m.def(
      "_surface_object", [](const CudaArray& array) { return SurfaceObject(array); },
      nb::arg("array"));
}

}  // namespace cudakit::python
