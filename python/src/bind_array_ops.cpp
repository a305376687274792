// GPUArray's arithmetic, comparison, bitwise and in-place operators, bound
// directly: each builds a pending fused expression (no kernel) in C++, with
// NumPy's broadcasting and NEP 50 promotion done by cudakit's Expr.
#include <nanobind/nanobind.h>

#include "array_object.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/detail/expr_node.hpp"

namespace cudakit::python {
namespace {

using Binary = Expr (*)(const Expr&, const Expr&);
using Unary = Expr (*)(const Expr&);

Expr op_add(const Expr& a, const Expr& b) { return a + b; }
Expr op_sub(const Expr& a, const Expr& b) { return a - b; }
Expr op_mul(const Expr& a, const Expr& b) { return a * b; }
Expr op_div(const Expr& a, const Expr& b) { return a / b; }
Expr op_floordiv(const Expr& a, const Expr& b) { return floor_divide(a, b); }
Expr op_mod(const Expr& a, const Expr& b) { return a % b; }
// a ** b with NumPy's rule for integers: a negative integer exponent is a
// ValueError. cudakit's Expr checks a scalar exponent when the node is built;
// an array exponent's values are read here (one reduction and a wait for it,
// only for an integer power whose exponent is a signed integer array).
Expr op_pow(const Expr& a, const Expr& b) {
  Expr result = power(a, b);
  const detail::ExprNode& node = *result.node();
  if (node.kind != detail::NodeKind::op || node.op != "power" || node.children.size() != 2 ||
      !is_integer(node.operand))
    return result;
  const auto& exponent = node.children[1];
  if (exponent->kind == detail::NodeKind::scalar || !is_signed_integer(exponent->dtype) ||
      shape_size(exponent->shape) == 0)
    return result;
  if (cudakit::min(Expr(exponent)).item().as_int64() < 0)
    throw nb::value_error("Integers to negative integer powers are not allowed.");
  return result;
}
Expr op_and(const Expr& a, const Expr& b) { return a & b; }
Expr op_or(const Expr& a, const Expr& b) { return a | b; }
Expr op_xor(const Expr& a, const Expr& b) { return a ^ b; }
Expr op_lshift(const Expr& a, const Expr& b) { return a << b; }
Expr op_rshift(const Expr& a, const Expr& b) { return a >> b; }
Expr op_eq(const Expr& a, const Expr& b) { return a == b; }
Expr op_ne(const Expr& a, const Expr& b) { return a != b; }
Expr op_lt(const Expr& a, const Expr& b) { return a < b; }
Expr op_le(const Expr& a, const Expr& b) { return a <= b; }
Expr op_gt(const Expr& a, const Expr& b) { return a > b; }
Expr op_ge(const Expr& a, const Expr& b) { return a >= b; }
Expr op_neg(const Expr& a) { return -a; }
Expr op_pos(const Expr& a) { return +a; }
Expr op_abs(const Expr& a) { return abs(a); }
Expr op_invert(const Expr& a) { return ~a; }

template <Binary op, bool reflected>
nb::object binary(GPUArrayObject& self, nb::handle other) {
  std::vector<const void*> reads = self.reads();
  std::size_t nodes = self.nodes() + 1;
  std::optional<Expr> rhs = operand_from_python(other, &reads, &nodes, false);
  if (!rhs) return nb::borrow(Py_NotImplemented);
  return numpy_errors([&] {
    Expr result = reflected ? op(*rhs, self.expr()) : op(self.expr(), *rhs);
    return wrap_pending(std::move(result), std::move(reads), nodes);
  });
}

template <Unary op>
nb::object unary(GPUArrayObject& self) {
  std::vector<const void*> reads = self.reads();
  return numpy_errors(
      [&] { return wrap_pending(op(self.expr()), std::move(reads), self.nodes() + 1); });
}

// a op= b: evaluates a (if pending) and the pending results that read a's
// memory, then one kernel writes a (cudakit checks NumPy's same_kind casting).
template <Array& (Array::*op)(const Expr&)>
nb::object in_place(nb::handle self_handle, nb::handle other) {
  GPUArrayObject& self = as_gpuarray(self_handle);
  Array target = self.value();
  prepare_write(target);
  std::optional<Expr> rhs = operand_from_python(other, nullptr, nullptr, false);
  if (!rhs) return nb::borrow(Py_NotImplemented);
  numpy_errors([&] { (target.*op)(*rhs); });
  return nb::borrow(self_handle);
}

// a **= b has no Array member; assign(power(a, b)) is the same single kernel.
nb::object in_place_pow(nb::handle self_handle, nb::handle other) {
  GPUArrayObject& self = as_gpuarray(self_handle);
  Array target = self.value();
  prepare_write(target);
  std::optional<Expr> rhs = operand_from_python(other, nullptr, nullptr, false);
  if (!rhs) return nb::borrow(Py_NotImplemented);
  numpy_errors([&] { target.assign(op_pow(Expr(target), *rhs)); });
  return nb::borrow(self_handle);
}

nb::object in_place_floordiv(nb::handle self_handle, nb::handle other) {
  GPUArrayObject& self = as_gpuarray(self_handle);
  Array target = self.value();
  prepare_write(target);
  std::optional<Expr> rhs = operand_from_python(other, nullptr, nullptr, false);
  if (!rhs) return nb::borrow(Py_NotImplemented);
  numpy_errors([&] { target.assign(floor_divide(Expr(target), *rhs)); });
  return nb::borrow(self_handle);
}

}  // namespace

void bind_gpuarray_operators(nb::class_<GPUArrayObject>& cls) {
  cls.def("__add__", &binary<op_add, false>, nb::is_operator())
      .def("__radd__", &binary<op_add, true>, nb::is_operator())
      .def("__sub__", &binary<op_sub, false>, nb::is_operator())
      .def("__rsub__", &binary<op_sub, true>, nb::is_operator())
      .def("__mul__", &binary<op_mul, false>, nb::is_operator())
      .def("__rmul__", &binary<op_mul, true>, nb::is_operator())
      .def("__truediv__", &binary<op_div, false>, nb::is_operator())
      .def("__rtruediv__", &binary<op_div, true>, nb::is_operator())
      .def("__floordiv__", &binary<op_floordiv, false>, nb::is_operator())
      .def("__rfloordiv__", &binary<op_floordiv, true>, nb::is_operator())
      .def("__mod__", &binary<op_mod, false>, nb::is_operator())
      .def("__rmod__", &binary<op_mod, true>, nb::is_operator())
      .def("__pow__", &binary<op_pow, false>, nb::is_operator())
      .def("__rpow__", &binary<op_pow, true>, nb::is_operator())
      .def("__and__", &binary<op_and, false>, nb::is_operator())
      .def("__rand__", &binary<op_and, true>, nb::is_operator())
      .def("__or__", &binary<op_or, false>, nb::is_operator())
      .def("__ror__", &binary<op_or, true>, nb::is_operator())
      .def("__xor__", &binary<op_xor, false>, nb::is_operator())
      .def("__rxor__", &binary<op_xor, true>, nb::is_operator())
      .def("__lshift__", &binary<op_lshift, false>, nb::is_operator())
      .def("__rlshift__", &binary<op_lshift, true>, nb::is_operator())
      .def("__rshift__", &binary<op_rshift, false>, nb::is_operator())
      .def("__rrshift__", &binary<op_rshift, true>, nb::is_operator())
      .def("__eq__", &binary<op_eq, false>, nb::is_operator())
      .def("__ne__", &binary<op_ne, false>, nb::is_operator())
      .def("__lt__", &binary<op_lt, false>, nb::is_operator())
      .def("__le__", &binary<op_le, false>, nb::is_operator())
      .def("__gt__", &binary<op_gt, false>, nb::is_operator())
      .def("__ge__", &binary<op_ge, false>, nb::is_operator())
      .def("__neg__", &unary<op_neg>)
      .def("__pos__", &unary<op_pos>)
      .def("__abs__", &unary<op_abs>)
      .def("__invert__", &unary<op_invert>)
      .def("__iadd__", &in_place < &Array::operator+=>)
      .def("__isub__", &in_place < &Array::operator-=>)
      .def("__imul__", &in_place < &Array::operator*=>)
      .def("__itruediv__", &in_place < &Array::operator/=>)
      .def("__imod__", &in_place < &Array::operator%=>)
      .def("__iand__", &in_place < &Array::operator&=>)
      .def("__ior__", &in_place < &Array::operator|=>)
      .def("__ixor__", &in_place < &Array::operator^=>)
      .def("__ilshift__", &in_place < &Array::operator<<=>)
      .def("__irshift__", &in_place < &Array::operator>>=>)
      .def("__ipow__", &in_place_pow)
      .def("__ifloordiv__", &in_place_floordiv);
  // numpy defers to our reflected operators (ndarray + GPUArray -> __radd__)
  // until `import cudakit` installs numpy's ufunc protocol (_numpy_ufuncs.py).
  cls.attr("__array_ufunc__") = nb::none();
  cls.attr("__hash__") = nb::none();
}

}  // namespace cudakit::python
