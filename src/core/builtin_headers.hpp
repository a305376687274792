// Headers cudakit provides to kernels on every backend (PyCUDA's
// <pycuda-complex.hpp> and <pycuda-helpers.hpp>, and their cudakit names)
// and on the CPU backend alone (<curand_kernel.h>), added to a compile's
// in-memory headers only when its source includes them.
#pragma once

#include <string_view>

#include "cudakit/backend_kind.hpp"
#include "cudakit/program.hpp"

namespace cudakit::detail {

// The text of the built-in header `name`, or empty when there is none.
std::string_view builtin_header_text(std::string_view name);

// Adds to options.headers each built-in header that the source (or a header
// it brings, built-in or given) names in an #include and that the caller
// did not give under the same name. `backend` picks the backend's own ones.
void add_builtin_headers(std::string_view source, CompileOptions& options, BackendKind backend);

}  // namespace cudakit::detail
