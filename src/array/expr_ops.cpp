// Rendering one expression node as CUDA C: the operator or function call
// for its operand type (real, integer, boolean, complex) and the casts of
// its children to that type. render_element walks a tree with it.
#include <map>
#include <string>
#include <vector>

#include "array/expr_checks.hpp"
#include "array/expr_plan.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

std::string cast_value(const std::string& text, DType from, DType to) {
  DType cf = compute_dtype(from), ct = compute_dtype(to);
  std::string v = text;
  if (cf != ct) {
    if (ct == DType::bool_)
      v = "cudakit_truth(" + text + ")";
    else if (ct == DType::complex64)
      v = "cudakit_c64(" + (is_complex(cf) ? text : "(double)(" + text + ")") + ")";
    else if (ct == DType::complex128)
      v = "cudakit_c128(" + (is_complex(cf) ? text : "(double)(" + text + ")") + ")";
    else if (is_complex(cf))
      v = "(" + compute_c_type(ct) + ")(" + text + ").re";
    else
      v = "(" + compute_c_type(ct) + ")(" + text + ")";
  }
  // A value that becomes float16 / bfloat16 is rounded to that precision.
  if (to != from && to == DType::float16) v = "cudakit_round_f16(" + v + ")";
  if (to != from && to == DType::bfloat16) v = "cudakit_round_bf16(" + v + ")";
  return v;
}

[[noreturn]] void unsupported(const ExprNode& n) {
  const std::string type(to_string(n.operand));
  throw NotSupported("generating an array kernel",
                     "'" + n.op + "' is not implemented for " + type + " operands");
}

// The functions with complex versions in the prelude (cudakit_c<op>), as
// NumPy defines them; the others are refused when the expression is built.
bool has_complex_helper(const std::string& op) {
  static const char* const names[] = {
      "exp",     "exp2",    "expm1",  "log",    "log2",   "log10",   "log1p",   "sqrt", "sin",
      "cos",     "tan",     "arcsin", "arccos", "arctan", "sinh",    "cosh",    "tanh", "arcsinh",
      "arccosh", "arctanh", "power",  "rint",   "sign",   "minimum", "maximum", "fmin", "fmax"};
  for (const char* name : names)
    if (op == name) return true;
  return false;
}

std::string op_text(const ExprNode& n, const std::vector<std::string>& a) {
  const std::string& op = n.op;
  DType ot = compute_dtype(n.operand);
  std::string R = compute_c_type(n.dtype);
  bool cplx = is_complex(ot);
  bool boolean = ot == DType::bool_;
  // C promotes integers narrower than int; cast those results back.
  bool promotes = (is_integer(n.dtype) || is_bool(n.dtype)) && itemsize(n.dtype) < 4;
  auto narrow = [&](const std::string& e) {
    return promotes ? "(" + R + ")(" + e + ")" : "(" + e + ")";
  };
  auto call = [&](const std::string& f) {
    std::string s = f + "(";
    for (std::size_t k = 0; k < a.size(); ++k) s += (k ? ", " : "") + a[k];
    return s + ")";
  };
  if (op == "cast") return cast_value(a[0], n.operand, n.dtype);
  if (op == "add")
    return boolean ? "(" + a[0] + " || " + a[1] + ")"
           : cplx  ? "(" + a[0] + " + " + a[1] + ")"
                   : narrow(a[0] + " + " + a[1]);
  if (op == "subtract") return cplx ? "(" + a[0] + " - " + a[1] + ")" : narrow(a[0] + " - " + a[1]);
  if (op == "multiply")
    return boolean ? "(" + a[0] + " && " + a[1] + ")"
           : cplx  ? "(" + a[0] + " * " + a[1] + ")"
                   : narrow(a[0] + " * " + a[1]);
  if (op == "true_divide") return "(" + a[0] + " / " + a[1] + ")";
  if (op == "positive") return a[0];
  if (op == "negative") return cplx ? "(-" + a[0] + ")" : narrow("-" + a[0]);
  if (op == "conjugate") return cplx ? call("cudakit_conj") : a[0];
  if (op == "absolute" || op == "real" || op == "imag") {
    if (cplx)
      return op == "absolute" ? call("cudakit_abs")
                              : "(" + a[0] + ")." + (op == "real" ? "re" : "im");
    if (op == "real") return a[0];
    if (op == "imag") return "(" + R + ")0";
    return boolean || is_unsigned_integer(ot) ? a[0] : call("cudakit_absolute");
  }
  if (op == "equal" || op == "not_equal")
    return "(" + a[0] + (op == "equal" ? " == " : " != ") + a[1] + ")";
  if (op == "logical_and") return "(cudakit_truth(" + a[0] + ") && cudakit_truth(" + a[1] + "))";
  if (op == "logical_or") return "(cudakit_truth(" + a[0] + ") || cudakit_truth(" + a[1] + "))";
  if (op == "logical_xor") return "(cudakit_truth(" + a[0] + ") != cudakit_truth(" + a[1] + "))";
  if (op == "logical_not") return "(!cudakit_truth(" + a[0] + "))";
  if (op == "isnan" || op == "isinf" || op == "isfinite") return call("cudakit_" + op);
  if (op == "where") return "(cudakit_truth(" + a[0] + ") ? " + a[1] + " : " + a[2] + ")";
  if (op == "reciprocal") return call("cudakit_reciprocal");
  if (op == "square") return cplx ? "(" + a[0] + " * " + a[0] + ")" : narrow(a[0] + " * " + a[0]);
  if (cplx) {
    if (has_complex_helper(op)) return call("cudakit_c" + op);
    // Ordering: lexicographic, real part first, as NumPy's.
    static const char* const orders[][2] = {{"less", "cudakit_clt"},
                                            {"less_equal", "cudakit_cle"},
                                            {"greater", "cudakit_cgt"},
                                            {"greater_equal", "cudakit_cge"}};
    for (const auto& o : orders)
      if (op == o[0]) return call(o[1]);
    unsupported(n);
  }
  static const char* const compares[][2] = {
      {"less", " < "}, {"less_equal", " <= "}, {"greater", " > "}, {"greater_equal", " >= "}};
  for (const auto& c : compares)
    if (op == c[0]) return "(" + a[0] + c[1] + a[1] + ")";
  static const char* const bitwise[][2] = {
      {"bitwise_and", " & "}, {"bitwise_or", " | "}, {"bitwise_xor", " ^ "}};
  for (const auto& b : bitwise)
    if (op == b[0]) return narrow(a[0] + b[1] + a[1]);
  if (op == "invert") return boolean ? "(!" + a[0] + ")" : narrow("~" + a[0]);
  if (op == "rint" || op == "floor" || op == "ceil" || op == "trunc") {
    if (!is_inexact(ot)) return a[0];  // integers are already whole
    return call("cudakit_" + op);
  }
  if (op == "frexp_exponent") return call("cudakit_frexp_exponent");
  if (op == "ldexp") return call("cudakit_ldexp");
  static const char* const helpers[] = {
      "floor_divide",   "remainder",     "fmod",         "power",   "left_shift", "right_shift",
      "sign",           "minimum",       "maximum",      "fmin",    "fmax",       "exp",
      "exp2",           "expm1",         "log",          "log2",    "log10",      "log1p",
      "sqrt",           "cbrt",          "sin",          "cos",     "tan",        "arcsin",
      "arccos",         "arctan",        "sinh",         "cosh",    "tanh",       "arcsinh",
      "arccosh",        "arctanh",       "fabs",         "arctan2", "hypot",      "copysign",
      "frexp_mantissa", "modf_fraction", "modf_integral"};
  for (const char* h : helpers)
    if (op == h) return call(std::string("cudakit_") + h);
  unsupported(n);
}

}  // namespace

void check_operand_values(const ExprNode& node) {
  if (node.kind != NodeKind::op || node.op != "power" || node.children.size() != 2) return;
  const ExprNode& exponent = *node.children[1];
  // Only an exponent known on the host is checked: reading an array's
  // values would stall the stream on every power.
  if (!is_integer(node.operand) || exponent.kind != NodeKind::scalar) return;
  const Scalar& e = exponent.scalar;
  if (e.kind() == ScalarKind::integer && e.as_double() < 0)
    throw ArgumentError(
        "array expression 'power'", "Integers to negative integer powers are not allowed.",
        "use a float base or exponent, e.g. astype(a, float64) ** " + e.to_string());
}

ElementCode render_element(const Plan& plan, const ExprNode& root, const std::string& prefix,
                           const std::string& indent, const std::vector<std::string>& loads) {
  ElementCode code;
  std::map<const ExprNode*, std::string> names;
  int temp = 0;
  // Post-order: one named temporary per operation, so the source reads as
  // the expression does.
  auto visit = [&](auto&& self, const ExprNode& n) -> std::string {
    if (auto it = names.find(&n); it != names.end()) return it->second;
    std::string value;
    if (n.kind == NodeKind::array) {
      value = load_convert(n.dtype, loads[static_cast<std::size_t>(plan.input_of.at(&n))]);
    } else if (n.kind == NodeKind::scalar) {
      value = prefix + "s" + std::to_string(plan.scalar_of.at(&n));
    } else {
      std::vector<std::string> args;
      for (std::size_t k = 0; k < n.children.size(); ++k) {
        const ExprNode& c = *n.children[k];
        DType want = n.operand;
        if (n.op == "where" && k == 0) want = DType::bool_;
        if (n.op == "ldexp" && k == 1) want = DType::int64;
        if (n.op == "cast") want = c.dtype;
        std::string v = self(self, c);
        args.push_back(c.dtype == want ? v : cast_value(v, c.dtype, want));
      }
      std::string e = op_text(n, args);
      if (n.op != "cast" && n.dtype == DType::float16) e = "cudakit_round_f16(" + e + ")";
      if (n.op != "cast" && n.dtype == DType::bfloat16) e = "cudakit_round_bf16(" + e + ")";
      std::string name = prefix + "t" + std::to_string(temp++);
      code.statements += indent + "const " + compute_c_type(n.dtype) + " " + name + " = " + e +
                         ";  // " + n.op + "\n";
      value = name;
    }
    names[&n] = value;
    return value;
  };
  code.value = visit(visit, root);
  return code;
}

}  // namespace cudakit::detail
