// Texture and surface objects for cudakit.driver.TextureObject /
// SurfaceObject (python/cudakit/_texture_objects.py): the C++ objects over
// device memory or a CUDA array, on the current device.
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>

#include <array>
#include <cstdint>

#include "bindings.hpp"
#include "cudakit/device.hpp"
#include "cudakit/surface.hpp"
#include "cudakit/texture.hpp"
#include "cudakit/texture_reference.hpp"

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

  // References (the CPU backend's): Module::texture_reference and the setters.
  nb::class_<TextureReference>(m, "_TextureReference")
      .def("set_array", &TextureReference::set_array, nb::arg("array"))
      .def("set_address", &TextureReference::set_address, nb::arg("address"), nb::arg("bytes"))
      .def(
          "set_address_2d",
          [](TextureReference& r, std::uint64_t address, unsigned format, unsigned channels,
             std::size_t width, std::size_t height, std::size_t pitch) {
            r.set_address_2d(address, static_cast<ArrayFormat>(format), channels, width, height,
                             pitch);
          },
          nb::arg("address"), nb::arg("format"), nb::arg("channels"), nb::arg("width"),
          nb::arg("height"), nb::arg("pitch"))
      .def(
          "set_format",
          [](TextureReference& r, unsigned format, unsigned channels) {
            r.set_format(static_cast<ArrayFormat>(format), channels);
          },
          nb::arg("format"), nb::arg("channels"))
      .def(
          "set_address_mode",
          [](TextureReference& r, int dimension, unsigned mode) {
            r.set_address_mode(dimension, static_cast<AddressMode>(mode));
          },
          nb::arg("dimension"), nb::arg("mode"))
      .def(
          "set_filter_mode",
          [](TextureReference& r, unsigned mode) {
            r.set_filter_mode(static_cast<FilterMode>(mode));
          },
          nb::arg("mode"))
      .def("set_flags", &TextureReference::set_flags, nb::arg("flags"))
      .def_prop_ro("flags", &TextureReference::flags);
  nb::class_<SurfaceReference>(m, "_SurfaceReference")
      .def("set_array", &SurfaceReference::set_array, nb::arg("array"));
  m.def(
      "_texture_reference",
      [](const Module& module, const std::string& name) { return module.texture_reference(name); },
      nb::arg("module"), nb::arg("name"));
  m.def(
      "_surface_reference",
      [](const Module& module, const std::string& name) { return module.surface_reference(name); },
      nb::arg("module"), nb::arg("name"));
}

}  // namespace cudakit::python
