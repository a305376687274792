// concatenate and stack: one copy kernel per input into slices of the result.
#include "cudakit/array_join.hpp"

#include "array/array_util.hpp"

namespace cudakit {

using detail::array_error;

Array concatenate(const std::vector<Array>& arrays, int axis) {
  if (arrays.empty()) array_error("concatenate", "need at least one array to concatenate");
  for (const auto& a : arrays) detail::check_valid(a, "concatenate");
  const Array& first = arrays.front();
  if (first.ndim() == 0)
    array_error("concatenate", "zero-dimensional arrays cannot be concatenated");
  int ax = detail::normalize_axis(axis, first.ndim(), "concatenate");
  Shape shape = first.shape();
  DType dtype = first.dtype();
  shape[static_cast<std::size_t>(ax)] = 0;
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    const Array& a = arrays[k];
    if (a.ndim() != first.ndim())
      array_error("concatenate",
                  "all the input arrays must have the same number of dimensions, but array 0 has " +
                      std::to_string(first.ndim()) + " and array " + std::to_string(k) + " has " +
                      std::to_string(a.ndim()));
    for (int d = 0; d < a.ndim(); ++d)
      if (d != ax &&
          a.shape()[static_cast<std::size_t>(d)] != first.shape()[static_cast<std::size_t>(d)])
        array_error("concatenate",
                    "all the input array dimensions except for the concatenation axis must match "
                    "exactly, but along dimension " +
                        std::to_string(d) + ", array 0 has size " +
                        std::to_string(first.shape()[static_cast<std::size_t>(d)]) + " and array " +
                        std::to_string(k) + " has size " +
                        std::to_string(a.shape()[static_cast<std::size_t>(d)]));
    if (!(a.device() == first.device()))
      array_error("concatenate", "array " + std::to_string(k) + " is on " + a.device().describe() +
                                     ", array 0 on " + first.device().describe());
    shape[static_cast<std::size_t>(ax)] += a.shape()[static_cast<std::size_t>(ax)];
    dtype = result_type(dtype, a.dtype());
  }
  Array out = empty(shape, dtype, first.stream());
  std::int64_t at = 0;
  for (const auto& a : arrays) {
    std::int64_t len = a.shape()[static_cast<std::size_t>(ax)];
    if (len > 0) out.slice(ax, at, at + len).assign(Expr(a));
    at += len;
  }
  return out;
}

Array stack(const std::vector<Array>& arrays, int axis) {
  if (arrays.empty()) array_error("stack", "need at least one array to stack");
  for (const auto& a : arrays) detail::check_valid(a, "stack");
  for (std::size_t k = 1; k < arrays.size(); ++k)
    if (arrays[k].shape() != arrays[0].shape())
      array_error("stack", "all input arrays must have the same shape: array 0 has " +
                               shape_to_string(arrays[0].shape()) + " and array " +
                               std::to_string(k) + " has " + shape_to_string(arrays[k].shape()));
  int ax = detail::normalize_axis(axis, arrays[0].ndim() + 1, "stack");
  std::vector<Array> expanded;
  for (const auto& a : arrays) expanded.push_back(a.expand_dims(ax));
  return concatenate(expanded, ax);
}

}  // namespace cudakit
