// Lazy elementwise expressions over arrays: `a * b + x * y` builds a tree and
// does no work; assigning it (to an Array, assign(), +=, eval(), to_host, a
// reduction) runs the whole tree as ONE generated kernel, with NumPy's
// broadcasting and NEP 50 type promotion.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "cudakit/array.hpp"
#include "cudakit/array_scalar.hpp"

namespace cudakit {

namespace detail {
struct ExprNode;  // cudakit/detail/expr_node.hpp
}

class Expr {
 public:
  Expr(const Array& array);   // NOLINT: implicit, arrays are expressions
  Expr(const Scalar& value);  // NOLINT
  template <class T>
  requires(std::is_arithmetic_v<T>) Expr(T value) : Expr(Scalar(value)) {}  // NOLINT: `a + 2.5`
  template <class T>
  Expr(std::complex<T> value) : Expr(Scalar(value)) {}  // NOLINT
  explicit Expr(std::shared_ptr<const detail::ExprNode> node) : node_(std::move(node)) {}

  DType dtype() const noexcept;
  const Shape& shape() const noexcept;
  int ndim() const noexcept { return static_cast<int>(shape().size()); }
  // True for a tree of scalars only (it takes its dtype from the arrays it meets).
  bool is_weak() const noexcept;
  // The device of its arrays; nullptr for a scalar-only tree.
  const Device* device() const noexcept;
  const std::shared_ptr<const detail::ExprNode>& node() const noexcept { return node_; }

  // Runs it into new memory (one kernel).
  Array eval() const { return Array(*this); }
  template <class T>
  std::vector<T> to_host() const {
    return eval().template to_host<T>();
  }
  Expr astype(DType dtype) const;

 private:
  std::shared_ptr<const detail::ExprNode> node_;
};

// Evaluates into new memory, or into `out` (out=: broadcast and cast to
// out's dtype, aliasing between out and the operands handled).
Array eval(const Expr& expr);
void eval(const Expr& expr, Array& out);
std::string to_string(const Expr& expr);  // "add(mul(a0, a1), 2.5)" (for debugging)

// ---- arithmetic ---------------------------------------------------------------
Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);     // true division (ints -> float64)
Expr floor_divide(const Expr& a, const Expr& b);  // // (Python semantics: rounds down)
Expr operator%(const Expr& a, const Expr& b);     // remainder with the divisor's sign (np.mod)
Expr mod(const Expr& a, const Expr& b);
Expr power(const Expr& a, const Expr& b);  // **
Expr operator-(const Expr& a);
Expr operator+(const Expr& a);
Expr abs(const Expr& a);  // complex -> real magnitude
Expr absolute(const Expr& a);
Expr negative(const Expr& a);
Expr conj(const Expr& a);
Expr real(const Expr& a);
Expr imag(const Expr& a);
Expr sign(const Expr& a);
Expr square(const Expr& a);
Expr reciprocal(const Expr& a);

// ---- comparisons (bool results) -----------------------------------------------
Expr operator==(const Expr& a, const Expr& b);
Expr operator!=(const Expr& a, const Expr& b);
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);

// ---- logical (any dtype, bool results) and bitwise (bool and integers) --------
Expr logical_and(const Expr& a, const Expr& b);
Expr logical_or(const Expr& a, const Expr& b);
Expr logical_xor(const Expr& a, const Expr& b);
Expr logical_not(const Expr& a);
Expr operator&(const Expr& a, const Expr& b);
Expr operator|(const Expr& a, const Expr& b);
Expr operator^(const Expr& a, const Expr& b);
Expr operator~(const Expr& a);
Expr operator<<(const Expr& a, const Expr& b);
Expr operator>>(const Expr& a, const Expr& b);
Expr isnan(const Expr& a);
Expr isinf(const Expr& a);
Expr isfinite(const Expr& a);

// ---- math (cumath): integer and bool inputs compute in float64 like NumPy; ----
// float16 / bfloat16 compute in float32 and round back.
Expr exp(const Expr& a);
Expr exp2(const Expr& a);
Expr expm1(const Expr& a);
Expr log(const Expr& a);
Expr log2(const Expr& a);
Expr log10(const Expr& a);
Expr log1p(const Expr& a);
Expr sqrt(const Expr& a);
Expr cbrt(const Expr& a);
Expr sin(const Expr& a);
Expr cos(const Expr& a);
Expr tan(const Expr& a);
Expr arcsin(const Expr& a);
Expr arccos(const Expr& a);
Expr arctan(const Expr& a);
Expr sinh(const Expr& a);
Expr cosh(const Expr& a);
Expr tanh(const Expr& a);
Expr arcsinh(const Expr& a);
Expr arccosh(const Expr& a);
Expr arctanh(const Expr& a);
Expr floor(const Expr& a);
Expr ceil(const Expr& a);
Expr trunc(const Expr& a);
Expr rint(const Expr& a);
Expr fabs(const Expr& a);
Expr arctan2(const Expr& a, const Expr& b);
Expr hypot(const Expr& a, const Expr& b);
Expr fmod(const Expr& a, const Expr& b);  // C fmod: sign of the dividend
Expr copysign(const Expr& a, const Expr& b);
Expr ldexp(const Expr& mantissa, const Expr& exponent);
// frexp and modf have two results, each its own fused expression.
std::pair<Expr, Expr> frexp(const Expr& a);  // {mantissa, int32 exponent}
std::pair<Expr, Expr> modf(const Expr& a);   // {fractional part, integral part}

// ---- selection ------------------------------------------------------------------
Expr minimum(const Expr& a, const Expr& b);  // NaN-propagating, like NumPy
Expr maximum(const Expr& a, const Expr& b);
Expr fmin(const Expr& a, const Expr& b);  // NaN-ignoring
Expr fmax(const Expr& a, const Expr& b);
Expr clip(const Expr& a, const Expr& lo, const Expr& hi);
Expr where(const Expr& condition, const Expr& a, const Expr& b);
Expr astype(const Expr& a, DType dtype);

// Kernel launches made by the array layer (elementwise, reductions, scans,
// any generated array kernel) since the process started: how a test or a
// benchmark sees that `a*b + x*y` ran as one kernel.
std::uint64_t array_kernel_launches() noexcept;

}  // namespace cudakit
