// Small helpers shared by the array sources: axis normalisation and errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/error.hpp"
#include "cudakit/param_layout.hpp"

namespace cudakit::detail {

// The dtype of a C type written in a kernel's argument list, read by the
// C-types module (support/c_types.hpp) so that every spelling the launch
// check knows ("size_t", "unsigned long long", "std::int8_t", "__half") means
// the same here; also the generated kernels' element names ("cudakit_half",
// "cudakit_complex64") and complex<float>/complex<double>. nullopt for
// pointers and types cudakit does not know.
std::optional<DType> dtype_of_c_type(std::string_view type);

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

// The element count of `shape`, checked: ArgumentError for a negative
// extent, or when the count or its bytes (count * itemsize) do not fit in a
// signed 64-bit integer (NumPy: "array is too big"), instead of a product
// that wraps around to a small or negative size.
std::int64_t checked_shape_size(const Shape& shape, std::size_t itemsize, const char* context);

// A slice resolved against an extent, as Python's slice.indices(n) with its
// length: the first index, the step and how many indices it selects.
struct SliceIndices {
  std::int64_t start = 0;
  std::int64_t step = 1;
  std::int64_t length = 0;
};

// The number of indices start, start + step, ... before `stop` (exclusive),
// without overflow for any int64 values; step must not be zero.
inline std::int64_t range_length(std::int64_t start, std::int64_t stop, std::int64_t step) {
  // Differences and quotients in unsigned arithmetic: stop - start may not
  // fit in int64, and -INT64_MIN does not.
  if (step > 0 && start < stop)
    return static_cast<std::int64_t>(
        (static_cast<std::uint64_t>(stop) - static_cast<std::uint64_t>(start) - 1) /
            static_cast<std::uint64_t>(step) +
        1);
  if (step < 0 && stop < start)
    return static_cast<std::int64_t>(
        (static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(stop) - 1) /
            (0 - static_cast<std::uint64_t>(step)) +
        1);
  return 0;
}

// Python's slice semantics exactly (PySlice_Unpack + PySlice_AdjustIndices):
// a missing start or stop is the end the step walks from or to, a negative
// one counts from the end, both are clamped to the extent; any int64 start,
// stop and step, INT64_MIN and INT64_MAX included, give Python's answer.
inline SliceIndices slice_indices(const Slice& slice, std::int64_t n, const std::string& context) {
  if (slice.step == 0) array_error(context, "slice step cannot be zero");
  const std::int64_t step = slice.step;
  auto adjust = [&](std::int64_t v) {
    if (v < 0) {
      v += n;  // no overflow: v < 0 <= n
      if (v < 0) v = step < 0 ? -1 : 0;
    } else if (v >= n) {
      v = step < 0 ? n - 1 : n;
    }
    return v;
  };
  const std::int64_t start = slice.start ? adjust(*slice.start) : (step < 0 ? n - 1 : 0);
  const std::int64_t stop = slice.stop ? adjust(*slice.stop) : (step < 0 ? -1 : n);
  return {start, step, range_length(start, stop, step)};
}

inline void check_valid(const Array& a, const char* context) {
  if (!a.valid()) array_error(context, "the array is null (default-constructed)");
}

}  // namespace cudakit::detail
