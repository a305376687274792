// The generated CUDA C of an array expression: what `out.assign(expr)`
// compiles, readable and named as error messages and the compile cache show
// it. For reading and for tests; the kernel itself is launched by assign().
#pragma once

#include <string>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"

namespace cudakit {

// The source of the one kernel that assigning `expr` into `out` generates.
std::string generated_source(const Expr& expr, const Array& out);

}  // namespace cudakit
