// CompileOptions from the option fields the Python layer's compile calls
// pass down (SourceModule, compiler.compile, DynamicModule.add_source):
// one place that fills them, so the three calls cannot drift apart.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cudakit/compile_options.hpp"

namespace cudakit::python {

struct PythonCompileFields {
  std::string arch;
  std::string std_version;  // empty: the default
  std::vector<std::pair<std::string, std::string>> defines;
  std::vector<std::string> include_dirs;
  std::vector<std::string> extra_flags;
  bool debug = false;
  bool line_info = false;
  bool fast_math = false;
  bool no_extern_c = false;
};

inline CompileOptions compile_options_from(const PythonCompileFields& f) {
  CompileOptions options;
  options.arch = f.arch;
  if (!f.std_version.empty()) options.std = f.std_version;
  options.defines = f.defines;
  options.include_dirs = f.include_dirs;
  options.extra_flags = f.extra_flags;
  options.debug = f.debug;
  options.line_info = f.line_info;
  options.fast_math = f.fast_math;
  options.no_extern_c = f.no_extern_c;
  return options;
}

}  // namespace cudakit::python
