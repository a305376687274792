// Run-time compilation: a CUDA C source string becomes a Module on a device,
// through the compile cache. The arch defaults to the device's own, so the
// result is a cubin that loads ("no kernel image is available" cannot happen).
#pragma once

#include <string>
#include <string_view>

#include "cudakit/compile_options.hpp"
#include "cudakit/compiled_code.hpp"
#include "cudakit/device.hpp"
#include "cudakit/module.hpp"

namespace cudakit {

// The source as it is compiled: wrapped in extern "C" { } unless
// options.no_extern_c (PyCUDA's rule).
std::string prepare_source(std::string_view source, const CompileOptions& options);

// Compiles `source` for `device` and loads it (cache: in memory, then disk,
// then the compiler). Throws CompileError with the log and numbered source.
Module compile(std::string_view source, const CompileOptions& options, const Device& device);
Module compile(std::string_view source, const CompileOptions& options = {});

// Compiles without loading; needs no device when options.arch is given
// ("sm_90", "compute_90" for the GPU; "cpu" for the CPU backend).
CompiledCode compile_only(std::string_view source, const CompileOptions& options,
                          BackendKind backend = BackendKind::cuda);

// The numbered source lines around `line` (1-based), for error messages:
//   "  12 |   c[i] = a[i] + b[i]\n>>13 |   oops;\n"
std::string numbered_source(std::string_view source, int line, int context_lines = 3);

}  // namespace cudakit
