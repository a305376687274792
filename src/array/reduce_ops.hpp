// The reduction engine shared by the array reductions (sum, argmin, var,
// dot, ...): a reduction described as text (accumulator, neutral, reduce,
// map wrapper, post step) applied to an expression over a set of axes.
#pragma once

#include <string>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_reduce.hpp"

namespace cudakit::detail {

struct ReduceOp {
  std::string name;  // "sum", also in the kernel name and error messages
  DType out_dtype = DType::float32;
  std::string acc_type;  // C type of the accumulator
  std::string neutral;
  std::string reduce_expr;  // of `a` and `b`
  // The map, with "@ELEM@" standing for the element's value (and `r` for its
  // position in the reduced index space).
  std::string map_wrap = "@ELEM@";
  std::string post_expr = "a";  // may use ck_count
  std::string preamble;
  bool compensated = false;
  bool empty_is_error = false;  // min / max / argmin / argmax
};

// Which axes are kept and reduced, and the result's shape.
struct AxisPlan {
  std::vector<int> kept;
  std::vector<int> reduced;
  Shape out_shape;  // with keepdims applied
  std::int64_t n_out = 1;
  std::int64_t n_red = 1;
};

// ArgumentError for an axis out of range or given twice ("<what>: axis 3 is
// out of bounds for an array of dimension 3").
AxisPlan plan_axes(const Shape& shape, const Axes& axes, bool keepdims, const char* what);

// Runs `op` over `expr` as one kernel launch and returns the result.
Array run_reduction(const Expr& expr, const ReduceOp& op, const AxisPlan& plan);

// The device and stream an expression's work goes to (those of its first
// array); ArgumentError for an expression made of scalars only.
const Array& first_array_of(const Expr& expr, const char* what);

// C expression converting `value` (a number or a complex value) to the
// storage type of `dtype` (the 16-bit floats and complex types are structs
// with conversion functions in the codegen prelude), and the reverse: an
// element of `dtype` as the type arithmetic is done in.
std::string store_as(DType dtype, const std::string& value);
std::string load_as_compute(DType dtype, const std::string& element);
// The accumulator's zero / one as C source.
std::string acc_constant(DType acc_dtype, int value);

// NumPy's dtype of sum / prod of `dtype`, and its accumulator's C type.
DType sum_dtype(DType dtype) noexcept;
std::string accumulator_type(DType dtype);

}  // namespace cudakit::detail
