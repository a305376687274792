#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "array/reduce_ops.hpp"
#include "cudakit/array_linalg.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/error.hpp"

namespace cudakit {

using detail::AxisPlan;
using detail::ReduceOp;

namespace {

// +inf or -inf as a double expression without math headers; folds to a
// constant on every compiler.
std::string infinity_literal(bool positive) {
  return positive ? "(1e300 * 1e300)" : "(-(1e300 * 1e300))";
}

// The neutral element of min (largest value) or max (smallest) as C source.
std::string extreme_literal(DType dtype, bool largest) {
  if (is_floating(dtype))
    return largest ? "((ck_acc_t)" + infinity_literal(true) + ")"
                   : "(-(ck_acc_t)" + infinity_literal(true) + ")";
  switch (dtype) {
    case DType::bool_:
      return largest ? "true" : "false";
    case DType::int8:
      return largest ? "127" : "(-128)";
    case DType::int16:
      return largest ? "32767" : "(-32768)";
    case DType::int32:
      return largest ? "2147483647" : "(-2147483647 - 1)";
    case DType::int64:
      return largest ? "9223372036854775807LL" : "(-9223372036854775807LL - 1LL)";
    case DType::uint8:
      return largest ? "255" : "0";
    case DType::uint16:
      return largest ? "65535" : "0";
    case DType::uint32:
      return largest ? "4294967295u" : "0u";
    case DType::uint64:
      return largest ? "18446744073709551615ull" : "0ull";
    default:
      return "0";
  }
}

ReduceOp sum_like(const char* name, DType in, bool product) {
  ReduceOp op;
  op.name = name;
  op.out_dtype = detail::sum_dtype(in);
  op.acc_type = detail::accumulator_type(op.out_dtype);
  op.neutral = detail::acc_constant(op.out_dtype, product ? 1 : 0);
  op.reduce_expr = product ? "a * b" : "a + b";
  op.compensated = !product && is_floating(op.out_dtype);
  return op;
}

// dtype of mean: float64 for integers and bool, the dtype itself otherwise.
DType mean_dtype(DType in) { return is_inexact(in) ? in : DType::float64; }

ReduceOp extreme_op(const char* name, DType in, bool is_min) {
  ReduceOp op;
  op.name = name;
  op.out_dtype = in;
  op.acc_type = std::string(c_type_name(compute_dtype(in)));
  op.empty_is_error = true;
  if (is_complex(in)) {
    // NumPy's order of complex numbers: real part first; a NaN part wins.
    // The neutral element (+-inf, +-inf) is at the far end of that order.
    const std::string inf = infinity_literal(is_min);
    op.neutral = "cudakit_cmake<ck_acc_t>(" + inf + ", " + inf + ")";
    op.reduce_expr = is_min ? "cudakit_cminimum(a, b)" : "cudakit_cmaximum(a, b)";
    return op;
  }
  op.neutral = extreme_literal(in, is_min);
  // `a != a` is true only for NaN: NaN wins, as in NumPy.
  op.reduce_expr = is_min ? "(a < b || a != a) ? a : b" : "(a > b || a != a) ? a : b";
  return op;
}

ReduceOp arg_op(const char* name, DType in, bool is_min) {
  ReduceOp op;
  op.name = name;
  op.out_dtype = DType::int64;
  op.acc_type = "ck_arg_pair";
  const std::string value_type(c_type_name(compute_dtype(in)));
  // Complex values compare lexicographically (the prelude's cudakit_clt).
  const bool cplx = is_complex(in);
  const char* better = cplx ? (is_min ? "cudakit_clt(a.v, b.v)" : "cudakit_cgt(a.v, b.v)")
                            : (is_min ? "a.v < b.v" : "a.v > b.v");
  const char* worse = cplx ? (is_min ? "cudakit_clt(b.v, a.v)" : "cudakit_cgt(b.v, a.v)")
                           : (is_min ? "b.v < a.v" : "b.v > a.v");
  const std::string a_nan = cplx ? "cudakit_cnan(a.v)" : "a.v != a.v";
  const std::string b_nan = cplx ? "cudakit_cnan(b.v)" : "b.v != b.v";
  op.preamble =
      "// Value and position; position -1 marks the neutral element. The value\n"
      "// type has a one-word name so that ck_arg_value_t() value-initialises\n"
      "// it (`long long()` or `unsigned char()` is not C++).\n"
      "typedef " +
      value_type +
      " ck_arg_value_t;\n"
      "struct ck_arg_pair { ck_arg_value_t v; long long i; };\n"
      "__device__ __forceinline__ ck_arg_pair ck_arg_make(ck_arg_value_t v, long long i) {\n"
      "  ck_arg_pair p; p.v = v; p.i = i; return p;\n}\n"
      "// The first NaN wins, then the better value, then the lower position (NumPy).\n"
      "__device__ __forceinline__ ck_arg_pair ck_arg_pick(ck_arg_pair a, ck_arg_pair b) {\n"
      "  if (b.i < 0) return a;\n"
      "  if (a.i < 0) return b;\n"
      "  const bool a_nan = " +
      a_nan + ", b_nan = " + b_nan +
      ";\n"
      "  if (a_nan || b_nan) {\n"
      "    if (a_nan && b_nan) return a.i < b.i ? a : b;\n"
      "    return a_nan ? a : b;\n"
      "  }\n"
      "  if (" +
      std::string(better) +
      ") return a;\n"
      "  if (" +
      std::string(worse) +
      ") return b;\n"
      "  return a.i < b.i ? a : b;\n}\n";
  op.neutral = "ck_arg_make(ck_arg_value_t(), -1LL)";
  op.reduce_expr = "ck_arg_pick(a, b)";
  op.map_wrap = "ck_arg_make((ck_arg_value_t)@ELEM@, r)";
  op.post_expr = "a.i";
  op.empty_is_error = true;
  return op;
}

Array reduce(const Expr& a, const ReduceOp& op, const Axes& axes, bool keepdims) {
  const AxisPlan plan =
      detail::plan_axes(a.shape(), axes, keepdims, ("cudakit::" + op.name).c_str());
  return detail::run_reduction(a, op, plan);
}

// Squared magnitude, in a dtype that does not overflow for integers.
Expr squared_magnitude(const Expr& a) {
  if (is_complex(a.dtype())) return square(abs(a));
  if (!is_inexact(a.dtype())) return square(astype(a, DType::float64));
  return square(a);
}

Array variance(const Expr& a, const Axes& axes, bool keepdims, int ddof, bool root) {
  const char* name = root ? "std" : "var";
  const AxisPlan plan =
      detail::plan_axes(a.shape(), axes, keepdims, (std::string("cudakit::") + name).c_str());
  // First pass: the mean, with the reduced axes kept so it broadcasts back.
  const Array m = mean(a, axes, true);
  const Expr deviation = squared_magnitude(Expr(a) - Expr(m));
  ReduceOp op;
  op.name = name;
  op.out_dtype = real_dtype(mean_dtype(a.dtype()));
  op.acc_type = detail::accumulator_type(op.out_dtype);
  op.neutral = "(ck_acc_t)0";
  op.reduce_expr = "a + b";
  op.compensated = true;
  // NumPy's divisor max(count - ddof, 0): ddof >= count divides by zero and
  // gives nan (or inf), not a negative divisor's -0.
  const std::string divisor = "(ck_count > " + std::to_string(ddof) + "LL ? ck_count - " +
                              std::to_string(ddof) + "LL : 0LL)";
  const std::string quotient = "((double)a / (double)" + divisor + ")";
  op.post_expr = root ? "sqrt(" + quotient + ")" : quotient;
  return detail::run_reduction(deviation, op, plan);
}

// sum(a * b) over every element, in the product's dtype (NumPy's dot keeps
// int32 as int32), as one launch with the multiply fused.
Array dot_flat(const Expr& a, const Expr& b, const char* name) {
  const Expr product = a * b;
  ReduceOp op = sum_like(name, product.dtype(), false);
  op.out_dtype = product.dtype();
  op.acc_type = detail::accumulator_type(op.out_dtype);
  op.compensated = is_floating(op.out_dtype);
  return reduce(product, op, Axes(), false);
}

}  // namespace

Array sum(const Expr& a, Axes axes, bool keepdims) {
  return reduce(a, sum_like("sum", a.dtype(), false), axes, keepdims);
}

Array prod(const Expr& a, Axes axes, bool keepdims) {
  return reduce(a, sum_like("prod", a.dtype(), true), axes, keepdims);
}

Array min(const Expr& a, Axes axes, bool keepdims) {
  return reduce(a, extreme_op("minimum", a.dtype(), true), axes, keepdims);
}
Array max(const Expr& a, Axes axes, bool keepdims) {
  return reduce(a, extreme_op("maximum", a.dtype(), false), axes, keepdims);
}
Array amin(const Expr& a, Axes axes, bool keepdims) { return min(a, std::move(axes), keepdims); }
Array amax(const Expr& a, Axes axes, bool keepdims) { return max(a, std::move(axes), keepdims); }

Array argmin(const Expr& a, std::optional<int> axis, bool keepdims) {
  return reduce(a, arg_op("argmin", a.dtype(), true), axis ? Axes(*axis) : Axes(), keepdims);
}
Array argmax(const Expr& a, std::optional<int> axis, bool keepdims) {
  return reduce(a, arg_op("argmax", a.dtype(), false), axis ? Axes(*axis) : Axes(), keepdims);
}

Array mean(const Expr& a, Axes axes, bool keepdims) {
  ReduceOp op;
  op.name = "mean";
  op.out_dtype = mean_dtype(a.dtype());
  // Integers are averaged in double, like NumPy.
  op.acc_type = is_inexact(a.dtype()) ? detail::accumulator_type(op.out_dtype) : "double";
  op.reduce_expr = "a + b";
  op.compensated = !is_complex(a.dtype());
  op.neutral = detail::acc_constant(op.out_dtype, 0);
  op.post_expr = is_complex(a.dtype()) ? "a / " + detail::store_as(op.out_dtype, "(double)ck_count")
                                       : "(double)a / (double)ck_count";
  return reduce(a, op, axes, keepdims);
}

Array var(const Expr& a, Axes axes, bool keepdims, int ddof) {
  return variance(a, axes, keepdims, ddof, false);
}
Array std(const Expr& a, Axes axes, bool keepdims, int ddof) {
  return variance(a, axes, keepdims, ddof, true);
}

Array any(const Expr& a, Axes axes, bool keepdims) {
  ReduceOp op;
  op.name = "any";
  op.out_dtype = DType::bool_;
  op.acc_type = "int";
  op.neutral = "0";
  op.reduce_expr = "a | b";
  op.map_wrap = "((@ELEM@) ? 1 : 0)";
  op.post_expr = "a != 0";
  return reduce(a != Expr(0), op, axes, keepdims);
}

Array all(const Expr& a, Axes axes, bool keepdims) {
  ReduceOp op;
  op.name = "all";
  op.out_dtype = DType::bool_;
  op.acc_type = "int";
  op.neutral = "1";
  op.reduce_expr = "a & b";
  op.map_wrap = "((@ELEM@) ? 1 : 0)";
  op.post_expr = "a != 0";
  return reduce(a != Expr(0), op, axes, keepdims);
}

Array dot(const Expr& a, const Expr& b) {
  if (a.ndim() == 0 || b.ndim() == 0) return eval(a * b);
  if (a.ndim() == 1 && b.ndim() == 1) {
    if (a.shape() != b.shape())
      throw ArgumentError("cudakit::dot", "shapes " + shape_to_string(a.shape()) + " and " +
                                              shape_to_string(b.shape()) + " are not aligned");
    return dot_flat(a, b, "dot");
  }
  return matmul(Array(a), Array(b));
}

Array vdot(const Expr& a, const Expr& b) {
  if (shape_size(a.shape()) != shape_size(b.shape()))
    throw ArgumentError("cudakit::vdot", "operands of " + shape_to_string(a.shape()) + " and " +
                                             shape_to_string(b.shape()) + " have different sizes");
  if (a.shape() == b.shape()) {
    const Expr lhs = is_complex(a.dtype()) ? conj(a) : a;
    return dot_flat(lhs, b, "vdot");
  }
  const Array fa = Array(a).ravel();
  const Array fb = Array(b).ravel();
  return vdot(fa, fb);
}

Array norm(const Expr& a, Axes axes, bool keepdims) {
  ReduceOp op;
  op.name = "norm";
  op.out_dtype = is_inexact(a.dtype()) ? real_dtype(a.dtype()) : DType::float64;
  op.acc_type = detail::accumulator_type(op.out_dtype);
  op.neutral = "(ck_acc_t)0";
  op.reduce_expr = "a + b";
  op.compensated = true;
  op.post_expr = "sqrt((double)a)";
  return reduce(squared_magnitude(a), op, axes, keepdims);
}

std::string NormOrder::to_string() const {
  switch (kind_) {
    case Kind::none:
      return "None";
    case Kind::fro:
      return "'fro'";
    case Kind::nuc:
      return "'nuc'";
    case Kind::p:
      break;
  }
  if (std::isinf(p_)) return p_ > 0 ? "inf" : "-inf";
  char text[64];  // std::to_chars: no locale (see Scalar::to_string)
  const auto result = std::to_chars(text, text + sizeof text, p_);
  return std::string(text, result.ptr);
}

namespace {

constexpr const char* kNorm = "cudakit::norm";

// The axes numpy.linalg.norm works over, each in [0, ndim).
std::vector<int> norm_axes(int ndim, const Axes& axes) {
  std::vector<int> list;
  if (axes.is_all()) {
    for (int k = 0; k < ndim; ++k) list.push_back(k);
    return list;
  }
  for (int axis : axes.list()) {
    if (axis < -ndim || axis >= ndim)
      throw ArgumentError(kNorm, "axis " + std::to_string(axis) +
                                     " is out of bounds for an array of dimension " +
                                     std::to_string(ndim));
    list.push_back(axis < 0 ? axis + ndim : axis);
  }
  return list;
}

Array vector_norm(const Expr& x, const NormOrder& ord, int axis, bool keepdims) {
  if (ord.kind() == NormOrder::Kind::fro || ord.kind() == NormOrder::Kind::nuc)
    throw ArgumentError(kNorm, "invalid norm order " + ord.to_string() + " for vectors",
                        "'fro' and 'nuc' are matrix norms: give two axes");
  const Axes along(axis);
  if (ord.kind() == NormOrder::Kind::none || ord.is_p(2)) return norm(x, along, keepdims);
  const double p = ord.p();
  if (std::isinf(p)) return p > 0 ? max(abs(x), along, keepdims) : min(abs(x), along, keepdims);
  if (p == 0) return sum(astype(x != Expr(0), real_dtype(x.dtype())), along, keepdims);
  if (p == 1) return sum(abs(x), along, keepdims);
  // sum(|x|^p)^(1/p) in the operand's precision, as NumPy computes it. For
  // p < 0 a zero element makes the sum inf (and the norm 0): summed without
  // compensation, whose correction term would turn inf into NaN.
  const Expr terms = power(abs(x), Expr(p));
  ReduceOp op = sum_like("norm", terms.dtype(), false);
  op.compensated = op.compensated && p > 0;
  const Array total = reduce(terms, op, along, keepdims);
  return eval(power(total, Expr(1.0 / p)));
}

Array matrix_norm(const Expr& x, const NormOrder& ord, int row, int col, bool keepdims) {
  if (row == col) throw ArgumentError(kNorm, "duplicate axes given (" + std::to_string(row) + ")");
  if (ord.kind() == NormOrder::Kind::none || ord.kind() == NormOrder::Kind::fro)
    return norm(x, Axes{row, col}, keepdims);
  if (ord.kind() == NormOrder::Kind::nuc || ord.is_p(2) || ord.is_p(-2)) {
    const char* which = ord.kind() == NormOrder::Kind::nuc ? "the sum of the singular values"
                        : ord.is_p(2)                      ? "the largest singular value"
                                                           : "the smallest singular value";
    throw NotSupported(kNorm,
                       "ord=" + ord.to_string() + " of a matrix is " + which +
                           ", which needs a singular value decomposition (not implemented)",
                       "use NormOrder::fro(), 1, -1, inf or -inf, or take the SVD on the host");
  }
  const double p = ord.p();
  if (p != 1 && p != -1 && !std::isinf(p))
    throw ArgumentError(kNorm, "invalid norm order " + ord.to_string() + " for matrices",
                        "matrices take None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf");
  // 1: the largest column sum (sum down the rows, then the largest across
  // columns); inf: the largest row sum. Both reductions keep their axes so the
  // axis numbers stay valid, and the result drops them at the end.
  const int first = std::isinf(p) ? col : row, second = std::isinf(p) ? row : col;
  const Array sums = sum(abs(x), Axes(first), true);
  Array r = p > 0 ? max(sums, Axes(second), true) : min(sums, Axes(second), true);
  if (keepdims) return r;
  Shape shape;
  for (int k = 0; k < x.ndim(); ++k)
    if (k != row && k != col) shape.push_back(x.shape()[static_cast<std::size_t>(k)]);
  return r.reshape(shape);
}

}  // namespace

Array norm(const Expr& a, NormOrder ord, Axes axes, bool keepdims) {
  const int nd = a.ndim();
  // Integers and bool are converted to float64 first, as NumPy does.
  const Expr x = is_inexact(a.dtype()) ? a : astype(a, DType::float64);
  if (axes.is_all()) {
    // NumPy's shortcut: the flattened 2-norm.
    if (ord.kind() == NormOrder::Kind::none || (ord.kind() == NormOrder::Kind::fro && nd == 2) ||
        (ord.is_p(2) && nd == 1))
      return norm(x, Axes(), keepdims);
    if (nd != 1 && nd != 2)
      throw ArgumentError(kNorm,
                          "improper number of dimensions to norm: ord=" + ord.to_string() +
                              " needs a 1-D or 2-D operand, this one is " + std::to_string(nd) +
                              "-D",
                          "give the axes to take the norm over");
  }
  const std::vector<int> list = norm_axes(nd, axes);
  if (list.size() == 1) return vector_norm(x, ord, list[0], keepdims);
  if (list.size() == 2) return matrix_norm(x, ord, list[0], list[1], keepdims);
  throw ArgumentError(
      kNorm,
      "improper number of dimensions to norm: " + std::to_string(list.size()) + " axes given",
      "a vector norm takes one axis, a matrix norm two");
}

}  // namespace cudakit
