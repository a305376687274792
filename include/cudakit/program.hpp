// Run-time compilation: a CUDA C source string becomes a Module on a device,
// through the compile cache. The arch defaults to the device's own, so the
// result is a cubin that loads ("no kernel image is available" cannot happen).
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "cudakit/compile_options.hpp"
#include "cudakit/compiled_code.hpp"
#include "cudakit/device.hpp"
#include "cudakit/gpu_compiler_info.hpp"
#include "cudakit/module.hpp"

namespace cudakit {

class CompileCache;

// The source as it is compiled: wrapped in extern "C" { } unless
// options.no_extern_c (PyCUDA's rule).
std::string prepare_source(std::string_view source, const CompileOptions& options);

// A program as compiled: the source and how to compile it (defines, headers
// given as text, name expressions and the rest are CompileOptions fields).
// A value: build it once, compile it for several devices or backends.
//   Program program(source);
//   program.header("params.h", "#define N 256").name_expression("scale<float>");
//   Module m = compile(program, device);
struct Program {
  std::string source;
  CompileOptions options;

  Program() = default;
  explicit Program(std::string source_text, CompileOptions compile_options = {})
      : source(std::move(source_text)), options(std::move(compile_options)) {}

  // A header the source #includes by `name`, given as text.
  Program& header(std::string name, std::string content) {
    options.headers.emplace_back(std::move(name), std::move(content));
    return *this;
  }
  // -D name=value (value empty: -D name).
  Program& define(std::string name, std::string value = {}) {
    options.defines.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  // A template instantiation to compile and look up later by this
  // expression, e.g. "vec_add<float>".
  Program& name_expression(std::string expression) {
    options.name_expressions.push_back(std::move(expression));
    return *this;
  }
};

// Compiles `source` for `device` and loads it (cache: in memory, then disk,
// then the compiler). Throws CompileError with the log and numbered source.
Module compile(std::string_view source, const CompileOptions& options, const Device& device);
Module compile(std::string_view source, const CompileOptions& options = {});
Module compile(const Program& program, const Device& device);
Module compile(const Program& program);
// The same through `cache` instead of the global compile cache (a cache over
// another directory, as SourceModule's cache_dir= asks for); modules loaded
// from it are not shared with the global cache's.
Module compile(std::string_view source, const CompileOptions& options, const Device& device,
               CompileCache& cache);

// The arch policy, for every compile whose CompileOptions::arch is empty:
// the current device's own arch on a GPU ("sm_90": a cubin for exactly that
// chip, which its driver loads without a JIT step), "cpu" on the CPU backend.
// With no GPU there is no arch to take: ArgumentError naming
// offline_gpu_arch. Tools that compile to a file without a GPU (cudakit
// compile, doctor's NVRTC check) use offline_gpu_arch and say so.
std::string default_arch(BackendKind backend);
inline constexpr const char* offline_gpu_arch = "sm_90";

// Compiles without loading; needs no device when options.arch is given
// ("sm_90", "compute_90" for the GPU; "cpu" for the CPU backend).
CompiledCode compile_only(std::string_view source, const CompileOptions& options,
                          BackendKind backend = BackendKind::cuda);
CompiledCode compile_only(const Program& program, BackendKind backend = BackendKind::cuda);

// The numbered source lines around `line` (1-based), for error messages:
//   "  12 |   c[i] = a[i] + b[i]\n>>13 |   oops;\n"
std::string numbered_source(std::string_view source, int line, int context_lines = 3);

}  // namespace cudakit
