// Reductions of arrays and of lazy expressions: sum, prod, min, max, argmin,
// argmax, mean, var, std, any, all over all elements or any set of axes, and
// dot / vdot / norm. The expression's map is fused into the reduction
// kernel, so `sum((a - b) ** 2)` reads a and b once in one launch.
//
// Results follow NumPy: integer and bool sums and products are int64
// (uint64 for unsigned), means of integers are float64, argmin / argmax are
// int64 and report the first of equal values. A full reduction runs in a
// single launch; for the same input and device the result is bit-for-bit the
// same every time (fixed block order and tree shape, no floating atomics).
// Floating sums accumulate per thread with Kahan compensation, then combine
// in a tree: a float32 sum of 2^28 elements stays within 1e-5 (relative) of
// a float64 reference.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"

namespace cudakit {

// Which axes a reduction runs over: all of them (the default, NumPy's
// axis=None), one (negative counts from the end) or a list. An empty list
// reduces nothing, like NumPy's axis=().
class Axes {
 public:
  Axes() = default;
  Axes(int axis) : list_(std::vector<int>{axis}) {}  // NOLINT: `sum(a, 1)`
  Axes(std::initializer_list<int> axes) : list_(std::vector<int>(axes)) {}
  Axes(std::vector<int> axes) : list_(std::move(axes)) {}  // NOLINT
  static Axes all() { return Axes(); }
  bool is_all() const noexcept { return !list_.has_value(); }
  const std::vector<int>& list() const { return *list_; }

 private:
  std::optional<std::vector<int>> list_;
};

// Each returns a new array: shape without the reduced axes (kept as 1 with
// keepdims); a 0-d array for a full reduction (read it with .item()).
// ArgumentError for an axis out of range or repeated, and for dtypes NumPy
// refuses (e.g. min of complex).
Array sum(const Expr& a, Axes axes = {}, bool keepdims = false);
Array prod(const Expr& a, Axes axes = {}, bool keepdims = false);
// NaN-propagating like NumPy; an empty reduction is an ArgumentError (NumPy:
// "zero-size array to reduction operation minimum which has no identity").
Array min(const Expr& a, Axes axes = {}, bool keepdims = false);
Array max(const Expr& a, Axes axes = {}, bool keepdims = false);
Array amin(const Expr& a, Axes axes = {}, bool keepdims = false);
Array amax(const Expr& a, Axes axes = {}, bool keepdims = false);
// Index of the first minimum / maximum (first NaN, if any): flat over the
// whole array, or the position along `axis`.
Array argmin(const Expr& a, std::optional<int> axis = std::nullopt, bool keepdims = false);
Array argmax(const Expr& a, std::optional<int> axis = std::nullopt, bool keepdims = false);
Array mean(const Expr& a, Axes axes = {}, bool keepdims = false);
// Two passes (the mean, then the squared deviations): as accurate as NumPy.
// `ddof` is subtracted from the count in the divisor.
Array var(const Expr& a, Axes axes = {}, bool keepdims = false, int ddof = 0);
Array std(const Expr& a, Axes axes = {}, bool keepdims = false, int ddof = 0);
Array any(const Expr& a, Axes axes = {}, bool keepdims = false);
Array all(const Expr& a, Axes axes = {}, bool keepdims = false);

// Inner product of two 1-D operands in one launch (the product is fused, no
// temporary); for 2-D and batched operands it is matmul (array_linalg.hpp).
// ArgumentError when the lengths differ.
Array dot(const Expr& a, const Expr& b);
// Flattens both and conjugates the first: sum(conj(a) * b).
Array vdot(const Expr& a, const Expr& b);
// The 2-norm of the flattened operand (Frobenius for a matrix), or the vector
// 2-norm along `axes`: sqrt(sum(|a|^2)).
Array norm(const Expr& a, Axes axes = {}, bool keepdims = false);

// numpy.linalg.norm's `ord`: None (the default), a real p (NormOrder(1),
// NormOrder(0.5), NormOrder::inf(), NormOrder::neg_inf()), 'fro' or 'nuc'.
// The constructors are explicit so that `norm(a, 1)` keeps meaning axis 1
// and `norm(a, {}, true)` all axes.
class NormOrder {
 public:
  enum class Kind : std::uint8_t { none, p, fro, nuc };
  explicit NormOrder() = default;  // None
  explicit NormOrder(double p) noexcept : kind_(Kind::p), p_(p) {}
  static NormOrder none() noexcept { return NormOrder(); }
  static NormOrder fro() noexcept { return NormOrder(Kind::fro); }
  static NormOrder nuc() noexcept { return NormOrder(Kind::nuc); }
  static NormOrder inf() noexcept { return NormOrder(std::numeric_limits<double>::infinity()); }
  static NormOrder neg_inf() noexcept {
    return NormOrder(-std::numeric_limits<double>::infinity());
  }
  Kind kind() const noexcept { return kind_; }
  bool is_p(double p) const noexcept { return kind_ == Kind::p && p_ == p; }
  double p() const noexcept { return p_; }  // for Kind::p
  std::string to_string() const;            // "None", "2", "-inf", "0.5", "'fro'"

 private:
  explicit NormOrder(Kind kind) noexcept : kind_(kind) {}
  Kind kind_ = Kind::none;
  double p_ = 0;
};

// numpy.linalg.norm(a, ord, axis, keepdims). Over every axis (the default),
// `a` must be 1-D or 2-D unless ord is None. A vector (one axis): None / 2:
// sqrt(sum(|x|^2)); 1: sum(|x|); inf / -inf: max / min of |x|; 0: the count
// of non-zeros; any other p: sum(|x|^p)^(1/p). A matrix (two axes): None /
// 'fro': Frobenius; 1 / -1: max / min of the column sums of |x|; inf / -inf:
// max / min of the row sums. |x| is the modulus for complex input; the result
// is float32 for float32 and complex64, float64 for integers and float64
// (float16 stays float16, as in NumPy). One or two launches.
// NotSupported for ord 2, -2 and 'nuc' of a matrix (they need an SVD);
// ArgumentError for an order the operand's axes do not take ('fro' of a
// vector, 3 of a matrix), for more than two axes, a repeated axis or an axis
// out of range.
Array norm(const Expr& a, NormOrder ord, Axes axes = {}, bool keepdims = false);

}  // namespace cudakit
