// cudakit.compiler's C++ half: the NVRTC compile through the compile cache
// (SourceModule itself, with PyCUDA's option parsing, is cudakit/compiler.py),
// the Module with get_function / get_global, and Function with its launch
// path. Function.__call__ converts every argument in C++ and launches
// through the core's checked launch; no Python code runs per launch.
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "bindings.hpp"
#include "cudakit/compile_cache.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "function.hpp"
#include "python_compile_options.hpp"

namespace cudakit::python {
namespace {

// A cache over a directory other than the global one (SourceModule's
// cache_dir), one per directory for the life of the process.
CompileCache& cache_for(const std::string& directory) {
  static std::mutex mutex;
  static auto* caches = new std::map<std::string, std::unique_ptr<CompileCache>>;
  std::lock_guard lock(mutex);
  auto& slot = (*caches)[directory];
  if (!slot) slot = std::make_unique<CompileCache>(directory);
  return *slot;
}

Module compile_in(std::string_view source, const CompileOptions& options,
                  const std::string& cache_dir) {
  if (cache_dir.empty()) return compile(source, options, Device::current());
  return compile(source, options, Device::current(), cache_for(cache_dir));
}

}  // namespace

void bind_compiler(nb::module_& m) {
  nb::class_<Module>(m, "_Module")
      .def(
          "get_function",
          [](const Module& mod, const std::string& name) {
            return wrap_function(Function(mod.kernel(name)));
          },
          nb::arg("name"),
          "The kernel `name`: its extern \"C\" name, a name expression, a mangled symbol, or the "
          "plain name of a C++-linkage kernel when that is unambiguous.")
      .def(
          "get_global",
          [](const Module& mod, const std::string& name) {
            GlobalVariable g = mod.get_global(name);
            return nb::make_tuple(g.address, g.bytes);
          },
          nb::arg("name"),
          "(device address, size in bytes) of a __device__ or __constant__ variable.")
      .def("kernel_names", &Module::kernel_names)
      .def_prop_ro("source", &Module::source)
      .def_prop_ro("log", &Module::log)
      .def_prop_ro("arch", [](const Module& mod) { return mod.device().arch(); });

  m.def(
      "_compile",
      [](const std::string& source, const std::string& arch, const std::string& std_version,
         const std::vector<std::pair<std::string, std::string>>& defines,
         const std::vector<std::string>& include_dirs, const std::vector<std::string>& extra_flags,
         bool debug, bool line_info, bool fast_math, bool no_extern_c, bool use_cache,
         const std::string& cache_dir, const std::string& source_name) {
        CompileOptions options =
            compile_options_from({arch, std_version, defines, include_dirs, extra_flags, debug,
                                  line_info, fast_math, no_extern_c});
        options.use_cache = use_cache;
        options.source_name = source_name;
        nb::gil_scoped_release unlocked;
        return compile_in(source, options, use_cache ? cache_dir : std::string());
      },
      nb::arg("source"), nb::arg("arch"), nb::arg("std"), nb::arg("defines"),
      nb::arg("include_dirs"), nb::arg("extra_flags"), nb::arg("debug"), nb::arg("line_info"),
      nb::arg("fast_math"), nb::arg("no_extern_c"), nb::arg("use_cache"), nb::arg("cache_dir"),
      nb::arg("source_name") = "");
  m.def(
      "_compile_only",
      [](const std::string& source, const std::string& arch, const std::string& std_version,
         const std::vector<std::pair<std::string, std::string>>& defines,
         const std::vector<std::string>& include_dirs, const std::vector<std::string>& extra_flags,
         bool debug, bool line_info, bool fast_math, bool no_extern_c, bool ptx_only, bool lto_ir) {
        CompileOptions options =
            compile_options_from({arch, std_version, defines, include_dirs, extra_flags, debug,
                                  line_info, fast_math, no_extern_c});
        options.ptx_only = ptx_only;
        options.lto_ir = lto_ir;
        CompiledCode code;
        {
          nb::gil_scoped_release unlocked;
          code = compile_only(source, options, BackendKind::cuda);
        }
        return nb::make_tuple(
            nb::bytes(reinterpret_cast<const char*>(code.image.data()), code.image.size()),
            std::string(to_string(code.format)), code.arch, code.log);
      },
      nb::arg("source"), nb::arg("arch"), nb::arg("std"), nb::arg("defines"),
      nb::arg("include_dirs"), nb::arg("extra_flags"), nb::arg("debug"), nb::arg("line_info"),
      nb::arg("fast_math"), nb::arg("no_extern_c"), nb::arg("ptx_only"), nb::arg("lto_ir") = false);
  m.def(
      "_gpu_compiler_info",
      [] {
        GpuCompilerInfo info;
        {
          nb::gil_scoped_release unlocked;
          info = gpu_compiler_info();
        }
        return nb::make_tuple(info.major, info.minor, info.archs, info.lto_ir, info.path);
      },
      "(major, minor, [archs], makes LTO-IR, path) of the NVRTC cudakit loaded.");
  m.def("_prepare_source", [](const std::string& source, bool no_extern_c) {
    CompileOptions options;
    options.no_extern_c = no_extern_c;
    return prepare_source(source, options);
  });

  bind_function(m);
}

}  // namespace cudakit::python
