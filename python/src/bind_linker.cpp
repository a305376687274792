// cudakit.driver.Linker and DynamicModule's C++ half: cudakit::Linker over
// the driver's JIT linker (separate compilation, dynamic parallelism), and
// Module::load_image for driver.module_from_buffer.
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "cudakit/error.hpp"
#include "cudakit/linker.hpp"
#include "cudakit/module.hpp"
#include "python_compile_options.hpp"

namespace cudakit::python {
namespace {

LinkInputType input_type(int value) {
  // CU_JIT_INPUT_NVVM (5), the driver's number for LTO-IR (numba-cuda's).
  if (value == 5) return LinkInputType::ltoir;
  if (value < 0 || value > static_cast<int>(LinkInputType::library))
    throw ArgumentError("adding to a link", "unknown input type " + std::to_string(value),
                        "use driver.jit_input_type.CUBIN, PTX, FATBINARY, OBJECT, LIBRARY or NVVM "
                        "(LTO-IR)");
  return static_cast<LinkInputType>(value);
}

std::span<const std::uint8_t> bytes_of(const nb::bytes& data) {
  return {reinterpret_cast<const std::uint8_t*>(data.c_str()), data.size()};
}

}  // namespace

void bind_linker(nb::module_& m) {
  nb::class_<Linker>(m, "_Linker")
      .def(
          "__init__",
          [](Linker* self, bool verbose_log, bool debug, bool line_info, int optimization_level) {
            LinkOptions options;
            options.verbose_log = verbose_log;
            options.debug = debug;
            options.line_info = line_info;
            options.optimization_level = optimization_level;
            new (self) Linker(Device::current(), options);
          },
          nb::arg("verbose_log") = false, nb::arg("debug") = false, nb::arg("line_info") = false,
          nb::arg("optimization_level") = -1)
      .def(
          "add_data",
          [](Linker& linker, const nb::bytes& data, int type, const std::string& name) {
            linker.add_data(bytes_of(data), input_type(type), name);
          },
          nb::arg("data"), nb::arg("input_type"), nb::arg("name") = "unknown")
      .def(
          "add_file",
          [](Linker& linker, const std::filesystem::path& path, int type) {
            linker.add_file(path, input_type(type));
          },
          nb::arg("filename"), nb::arg("input_type"))
      .def(
          "add_source",
          [](Linker& linker, const std::string& source, const std::string& arch,
             const std::string& std_version,
             const std::vector<std::pair<std::string, std::string>>& defines,
             const std::vector<std::string>& include_dirs,
             const std::vector<std::string>& extra_flags, bool debug, bool line_info,
             bool fast_math, bool no_extern_c, const std::string& name) {
            const CompileOptions options =
                compile_options_from({arch, std_version, defines, include_dirs, extra_flags, debug,
                                      line_info, fast_math, no_extern_c});
            nb::gil_scoped_release unlocked;
            linker.add_source(source, options, name);
          },
          nb::arg("source"), nb::arg("arch"), nb::arg("std"), nb::arg("defines"),
          nb::arg("include_dirs"), nb::arg("extra_flags"), nb::arg("debug"), nb::arg("line_info"),
          nb::arg("fast_math"), nb::arg("no_extern_c"), nb::arg("name"))
      .def("link_module",
           [](Linker& linker) {
             nb::gil_scoped_release unlocked;
             return linker.link_module();
           })
      .def_prop_ro("info_log", [](const Linker& linker) { return linker.info_log(); })
      .def_prop_ro("input_count", [](const Linker& linker) { return linker.inputs().size(); });

  m.def(
      "_find_cuda_library",
      [](const std::string& name, const std::vector<std::filesystem::path>& directories) {
        return find_cuda_library(name, directories).string();
      },
      nb::arg("name"), nb::arg("directories"));
  m.def(
      "_module_from_buffer",
      [](const nb::bytes& image) { return Module::load_image(bytes_of(image), Device::current()); },
      nb::arg("image"));
  m.def(
      "_module_from_file",
      [](const std::filesystem::path& path) { return Module::load_file(path, Device::current()); },
      nb::arg("path"));
}

}  // namespace cudakit::python
