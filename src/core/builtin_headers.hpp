// Headers cudakit provides to kernels (PyCUDA's <pycuda-complex.hpp> and
// <pycuda-helpers.hpp>, and their cudakit names, on every backend; portable
// cub, thrust::complex, cuda::std::complex and cuComplex.h on the CPU
// backend), added to a compile's in-memory headers only when its source
// includes them.
#pragma once

#include <string_view>

#include "cudakit/backend_kind.hpp"
#include "cudakit/program.hpp"

namespace cudakit::detail {

// The text of the built-in header `name`, or empty when there is none.
std::string_view builtin_header_text(std::string_view name);
// The same for the headers only the CPU backend is given.
std::string_view cpu_builtin_header_text(std::string_view name);

// Adds to options.headers each built-in header that the source (or a header
// it brings, built-in or given) names in an #include and that the caller
// did not give under the same name. On the CPU backend, a cub/ or thrust/
// header it does not provide becomes one whose #error says why.
void add_builtin_headers(std::string_view source, CompileOptions& options, BackendKind kind);

}  // namespace cudakit::detail
