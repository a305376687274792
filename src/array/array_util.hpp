// Small helpers shared by the array sources: axis normalisation and errors.
#pragma once

#include <cstdint>
#include <string>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/error.hpp"
#include "cudakit/param_layout.hpp"

namespace cudakit::detail {

// The launch-check scalar type of a dtype's C type (unknown for complex).
ScalarType scalar_type_for(DType d) noexcept;

[[noreturn]] inline void array_error(const std::string& context, const std::string& message,
                                     const std::string& hint = {}) {
  throw ArgumentError(context, message, hint);
}

// NumPy's axis rule: -ndim <= axis < ndim; ArgumentError otherwise.
inline int normalize_axis(int axis, int ndim, const char* context) {
  if (axis < -ndim || axis >= ndim)
    array_error(context, "axis " + std::to_string(axis) +
                             " is out of bounds for array of dimension " + std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

// Writes `expr` into `out` with one kernel (two when an operand overlaps
// `out` in another layout), checking shapes, devices and `casting`.
void eval_into(const Expr& expr, Array& out, Casting casting, const char* context);

// The element stored in `bytes`, as a Scalar of that dtype.
Scalar scalar_from_bytes(const void* bytes, DType dtype);

inline void check_valid(const Array& a, const char* context) {
  if (!a.valid()) array_error(context, "the array is null (default-constructed)");
}

}  // namespace cudakit::detail
