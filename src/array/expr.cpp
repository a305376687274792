// Building expression trees: broadcasting, NEP 50 promotion of weak scalars,
// and the checks NumPy makes (dtypes it refuses, operands on two devices).
#include <algorithm>

#include "array/array_util.hpp"
#include "array/expr_checks.hpp"
#include "array/expr_types.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/detail/expr_node.hpp"

namespace cudakit {

using detail::ExprNode;
using detail::NodeKind;
using NodePtr = std::shared_ptr<const ExprNode>;

namespace {

ScalarKind kind_of(DType d) {
  if (is_bool(d)) return ScalarKind::boolean;
  if (is_integer(d)) return ScalarKind::integer;
  if (is_complex(d)) return ScalarKind::complex;
  return ScalarKind::floating;
}

const Device* device_of(const NodePtr& n) {
  if (n->kind == NodeKind::array) return &n->array.device();
  for (const auto& c : n->children)
    if (const Device* d = device_of(c)) return d;
  return nullptr;
}

void check_same_device(const std::string& op, const std::vector<NodePtr>& args) {
  const Device* first = nullptr;
  for (const auto& a : args) {
    const Device* d = device_of(a);
    if (!d) continue;
    if (!first)
      first = d;
    else if (!(*first == *d))
      detail::array_error(
          "array expression '" + op + "'",
          "operands are on different devices: " + first->describe() + " and " + d->describe(),
          "copy one operand to the other's device first");
  }
}

std::string dtypes_text(const std::vector<NodePtr>& args) {
  std::string s;
  for (const auto& a : args) {
    if (!s.empty()) s += ", ";
    s += std::string(to_string(a->dtype));
    if (a->weak) s += " (Python scalar)";
  }
  return s;
}

// A weak scalar leaf meeting a strong operand becomes a strong scalar of the
// operand dtype, so the kernel takes it as a parameter of that type (and the
// generated code, keyed on dtypes not values, is shared by all values).
NodePtr concretize(const NodePtr& n, DType dtype, const std::string& op, bool is_comparison) {
  if (!n->weak) return n;
  if (n->kind == NodeKind::scalar) {
    if (!n->scalar.fits(dtype)) {
      if (is_comparison) return n;  // compared in a wider type, as NumPy does
      detail::array_error("array expression '" + op + "'",
                          "Python integer " + n->scalar.to_string() + " out of bounds for " +
                              std::string(to_string(dtype)));
    }
    auto c = std::make_shared<ExprNode>(*n);
    c->dtype = dtype;
    c->weak = false;
    c->scalar = Scalar::typed(n->scalar, dtype);
    return c;
  }
  return n;
}

NodePtr make_op(const std::string& op, std::vector<NodePtr> args) {
  check_same_device(op, args);
  bool all_weak = std::all_of(args.begin(), args.end(), [](const NodePtr& a) { return a->weak; });
  // NEP 50: a weak operand contributes only its kind; the strong operands decide.
  std::vector<DType> eff(args.size());
  if (!all_weak) {
    std::optional<DType> strong;
    // where's condition does not take part in promotion.
    for (std::size_t k = op == "where" ? 1 : 0; k < args.size(); ++k)
      if (!args[k]->weak) strong = strong ? result_type(*strong, args[k]->dtype) : args[k]->dtype;
    if (!strong) strong = args[0]->dtype;
    for (std::size_t k = 0; k < args.size(); ++k)
      eff[k] = args[k]->weak ? result_type(*strong, kind_of(args[k]->dtype)) : args[k]->dtype;
  } else {
    for (std::size_t k = 0; k < args.size(); ++k) eff[k] = args[k]->dtype;
  }
  std::optional<detail::OpTyping> typing;
  if (op == "where") {
    typing = detail::OpTyping{result_type(eff[1], eff[2]), result_type(eff[1], eff[2])};
  } else if (args.size() == 1) {
    typing = detail::type_unary(op, eff[0]);
  } else if (op == "ldexp") {
    typing = detail::type_binary(op, eff[0], args[1]->weak ? DType::int64 : eff[1]);
  } else {
    typing = detail::type_binary(op, eff[0], eff[1]);
  }
  if (!typing)
    detail::array_error(
        "array expression '" + op + "'",
        "the operation is not supported for the input types (" + dtypes_text(args) + ")",
        "NumPy refuses this combination too; convert with astype() first");
  bool cmp = detail::op_class(op) == detail::OpClass::compare;
  if (cmp && !all_weak) {
    // NumPy 2 compares `uint8_array < 300` correctly: widen instead of refusing.
    for (const auto& a : args)
      if (a->weak && a->kind == NodeKind::scalar && !a->scalar.fits(typing->operand))
        typing->operand = result_type(typing->operand, a->scalar.dtype());
  }
  auto node = std::make_shared<ExprNode>();
  node->kind = NodeKind::op;
  node->op = op;
  node->dtype = typing->result;
  node->operand = typing->operand;
  node->weak = all_weak;
  node->children.reserve(args.size());
  bool same_shapes = true;
  for (std::size_t k = 0; k < args.size(); ++k) {
    DType want = (op == "where" && k == 0) ? DType::bool_ : typing->operand;
    if (op == "ldexp" && k == 1) want = DType::int64;
    node->children.push_back(all_weak ? args[k] : concretize(args[k], want, op, cmp));
    same_shapes = same_shapes && args[k]->shape == args[0]->shape;
  }
  if (same_shapes) {
    node->shape = args[0]->shape;  // the common case, without building a list of shapes
  } else {
    std::vector<Shape> shapes;
    for (const auto& a : args) shapes.push_back(a->shape);
    node->shape = broadcast_shapes(std::span<const Shape>(shapes));
  }
  if (all_weak) node->dtype = default_dtype(kind_of(typing->result));
  detail::check_operand_values(*node);
  return node;
}

Expr unary(const std::string& op, const Expr& a) { return Expr(make_op(op, {a.node()})); }
Expr binary(const std::string& op, const Expr& a, const Expr& b) {
  return Expr(make_op(op, {a.node(), b.node()}));
}

NodePtr cast_node(const NodePtr& a, DType dtype) {
  if (a->dtype == dtype && !a->weak) return a;
  auto node = std::make_shared<ExprNode>();
  node->kind = NodeKind::op;
  node->op = "cast";
  node->dtype = dtype;
  node->operand = a->dtype;
  node->shape = a->shape;
  node->children.push_back(a);
  return node;
}

}  // namespace

Expr::Expr(const Array& array) {
  detail::check_valid(array, "array expression");
  auto node = std::make_shared<ExprNode>();
  node->kind = NodeKind::array;
  node->op = "array";
  node->dtype = array.dtype();
  node->shape = array.shape();
  node->array = array;
  node_ = node;
}

Expr::Expr(const Scalar& value) {
  auto node = std::make_shared<ExprNode>();
  node->kind = NodeKind::scalar;
  node->op = "scalar";
  node->dtype = value.dtype();
  node->weak = value.is_weak();
  node->scalar = value;
  node_ = node;
}

DType Expr::dtype() const noexcept { return node_->dtype; }
const Shape& Expr::shape() const noexcept { return node_->shape; }
bool Expr::is_weak() const noexcept { return node_->weak; }
const Device* Expr::device() const noexcept { return device_of(node_); }
Expr Expr::astype(DType dtype) const { return Expr(cast_node(node_, dtype)); }

std::string to_string(const Expr& expr) {
  const auto& n = *expr.node();
  if (n.kind == NodeKind::array)
    return "array" + shape_to_string(n.shape) + ":" + std::string(to_string(n.dtype));
  if (n.kind == NodeKind::scalar) return n.scalar.to_string();
  std::string s = n.op + "(";
  for (std::size_t k = 0; k < n.children.size(); ++k) {
    if (k) s += ", ";
    s += to_string(Expr(n.children[k]));
  }
  return s + ")";
}

Expr operator+(const Expr& a, const Expr& b) { return binary("add", a, b); }
Expr operator-(const Expr& a, const Expr& b) { return binary("subtract", a, b); }
Expr operator*(const Expr& a, const Expr& b) { return binary("multiply", a, b); }
Expr operator/(const Expr& a, const Expr& b) { return binary("true_divide", a, b); }
Expr floor_divide(const Expr& a, const Expr& b) { return binary("floor_divide", a, b); }
Expr operator%(const Expr& a, const Expr& b) { return binary("remainder", a, b); }
Expr mod(const Expr& a, const Expr& b) { return binary("remainder", a, b); }
Expr power(const Expr& a, const Expr& b) { return binary("power", a, b); }
Expr operator-(const Expr& a) { return unary("negative", a); }
Expr operator+(const Expr& a) { return unary("positive", a); }
Expr abs(const Expr& a) { return unary("absolute", a); }
Expr absolute(const Expr& a) { return unary("absolute", a); }
Expr negative(const Expr& a) { return unary("negative", a); }
Expr conj(const Expr& a) { return unary("conjugate", a); }
Expr real(const Expr& a) { return unary("real", a); }
Expr imag(const Expr& a) { return unary("imag", a); }
Expr sign(const Expr& a) { return unary("sign", a); }
Expr square(const Expr& a) { return unary("square", a); }
Expr reciprocal(const Expr& a) { return unary("reciprocal", a); }

Expr operator==(const Expr& a, const Expr& b) { return binary("equal", a, b); }
Expr operator!=(const Expr& a, const Expr& b) { return binary("not_equal", a, b); }
Expr operator<(const Expr& a, const Expr& b) { return binary("less", a, b); }
Expr operator<=(const Expr& a, const Expr& b) { return binary("less_equal", a, b); }
Expr operator>(const Expr& a, const Expr& b) { return binary("greater", a, b); }
Expr operator>=(const Expr& a, const Expr& b) { return binary("greater_equal", a, b); }

Expr logical_and(const Expr& a, const Expr& b) { return binary("logical_and", a, b); }
Expr logical_or(const Expr& a, const Expr& b) { return binary("logical_or", a, b); }
Expr logical_xor(const Expr& a, const Expr& b) { return binary("logical_xor", a, b); }
Expr logical_not(const Expr& a) { return unary("logical_not", a); }
Expr operator&(const Expr& a, const Expr& b) { return binary("bitwise_and", a, b); }
Expr operator|(const Expr& a, const Expr& b) { return binary("bitwise_or", a, b); }
Expr operator^(const Expr& a, const Expr& b) { return binary("bitwise_xor", a, b); }
Expr operator~(const Expr& a) { return unary("invert", a); }
Expr operator<<(const Expr& a, const Expr& b) { return binary("left_shift", a, b); }
Expr operator>>(const Expr& a, const Expr& b) { return binary("right_shift", a, b); }
Expr isnan(const Expr& a) { return unary("isnan", a); }
Expr isinf(const Expr& a) { return unary("isinf", a); }
Expr isfinite(const Expr& a) { return unary("isfinite", a); }

Expr exp(const Expr& a) { return unary("exp", a); }
Expr exp2(const Expr& a) { return unary("exp2", a); }
Expr expm1(const Expr& a) { return unary("expm1", a); }
Expr log(const Expr& a) { return unary("log", a); }
Expr log2(const Expr& a) { return unary("log2", a); }
Expr log10(const Expr& a) { return unary("log10", a); }
Expr log1p(const Expr& a) { return unary("log1p", a); }
Expr sqrt(const Expr& a) { return unary("sqrt", a); }
Expr cbrt(const Expr& a) { return unary("cbrt", a); }
Expr sin(const Expr& a) { return unary("sin", a); }
Expr cos(const Expr& a) { return unary("cos", a); }
Expr tan(const Expr& a) { return unary("tan", a); }
Expr arcsin(const Expr& a) { return unary("arcsin", a); }
Expr arccos(const Expr& a) { return unary("arccos", a); }
Expr arctan(const Expr& a) { return unary("arctan", a); }
Expr sinh(const Expr& a) { return unary("sinh", a); }
Expr cosh(const Expr& a) { return unary("cosh", a); }
Expr tanh(const Expr& a) { return unary("tanh", a); }
Expr arcsinh(const Expr& a) { return unary("arcsinh", a); }
Expr arccosh(const Expr& a) { return unary("arccosh", a); }
Expr arctanh(const Expr& a) { return unary("arctanh", a); }
Expr floor(const Expr& a) { return unary("floor", a); }
Expr ceil(const Expr& a) { return unary("ceil", a); }
Expr trunc(const Expr& a) { return unary("trunc", a); }
Expr rint(const Expr& a) { return unary("rint", a); }
Expr fabs(const Expr& a) { return unary("fabs", a); }
Expr arctan2(const Expr& a, const Expr& b) { return binary("arctan2", a, b); }
Expr hypot(const Expr& a, const Expr& b) { return binary("hypot", a, b); }
Expr fmod(const Expr& a, const Expr& b) { return binary("fmod", a, b); }
Expr copysign(const Expr& a, const Expr& b) { return binary("copysign", a, b); }
Expr ldexp(const Expr& mantissa, const Expr& exponent) {
  return binary("ldexp", mantissa, exponent);
}
std::pair<Expr, Expr> frexp(const Expr& a) {
  return {unary("frexp_mantissa", a), unary("frexp_exponent", a)};
}
std::pair<Expr, Expr> modf(const Expr& a) {
  return {unary("modf_fraction", a), unary("modf_integral", a)};
}

Expr minimum(const Expr& a, const Expr& b) { return binary("minimum", a, b); }
Expr maximum(const Expr& a, const Expr& b) { return binary("maximum", a, b); }
Expr fmin(const Expr& a, const Expr& b) { return binary("fmin", a, b); }
Expr fmax(const Expr& a, const Expr& b) { return binary("fmax", a, b); }
Expr clip(const Expr& a, const Expr& lo, const Expr& hi) { return minimum(maximum(a, lo), hi); }
Expr where(const Expr& condition, const Expr& a, const Expr& b) {
  return Expr(make_op("where", {condition.node(), a.node(), b.node()}));
}
Expr astype(const Expr& a, DType dtype) { return a.astype(dtype); }

}  // namespace cudakit
