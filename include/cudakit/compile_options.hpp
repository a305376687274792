// How a kernel source is compiled: one documented field per compiler flag,
// the same for NVRTC (GPU) and the host compiler (CPU backend).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cudakit {

struct CompileOptions {
  // Target: "sm_90" (cubin for exactly that arch), "compute_90" (PTX), or
  // empty for the current device's own arch. "cpu" on the CPU backend.
  std::string arch;
  // Language standard passed as -std=.
  std::string std = "c++17";
  // -DNAME=VALUE (VALUE empty: -DNAME).
  std::vector<std::pair<std::string, std::string>> defines;
  // -I directories searched for #include.
  std::vector<std::string> include_dirs;
  // Headers given as text: {name as #included, content}.
  std::vector<std::pair<std::string, std::string>> headers;
  // Passed to the compiler as they are.
  std::vector<std::string> extra_flags;
  // Device debug info: -G -lineinfo on the GPU; -O0 -g on the CPU backend.
  bool debug = false;
  // -lineinfo only (keeps optimisation). Forced on for every compile when
  // the environment has CUDAKIT_LINEINFO=1 (`cudakit check` sets it), so
  // compute-sanitizer can name source lines.
  bool line_info = false;
  // The file name compiler messages, debuggers and sanitizers show for the
  // source ("my_filter.cu:12"); empty: "kernel.cu".
  std::string source_name;
  // --use_fast_math.
  bool fast_math = false;
  // PyCUDA's semantics: the source is wrapped in extern "C" { } unless this is
  // set. Set it for templates and other C++-linkage kernels.
  bool no_extern_c = false;
  // Expressions naming template instantiations to compile and look up later,
  // e.g. "vec_add<float>".
  std::vector<std::string> name_expressions;
  // Emit PTX instead of a cubin even when the arch is known.
  bool ptx_only = false;
  // Emit LTO-IR (NVRTC's -dlto; CodeFormat::ltoir) for nvJitLink instead of
  // PTX or a cubin: GPU backend only, and only where NVRTC has nvrtcGetLTOIR.
  bool lto_ir = false;
  // Use the compile cache (in memory and on disk) for this compile.
  bool use_cache = true;
};

}  // namespace cudakit
