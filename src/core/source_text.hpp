// Helpers over kernel source text and compiler logs, shared by the compile
// path and CompileError.
#pragma once

#include <string_view>

namespace cudakit::detail {

// The first source line a compiler log points at, preferring an error over a
// warning: "kernel.cu(13): error: ..." (NVRTC) or "kernel.cu:13:5: error: ..."
// (gcc / clang). 0 when the log names no line.
int first_error_line(std::string_view log);

}  // namespace cudakit::detail
