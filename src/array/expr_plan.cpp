// Analysing an expression (operands, layouts, index width) and rendering
// the pieces of CUDA C that every array kernel built from it shares.
#include "array/expr_plan.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "array/array_util.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

bool same_view(const Array& a, const Array& b) {
  return a.storage() == b.storage() && a.dtype() == b.dtype() && a.offset() == b.offset() &&
         a.shape() == b.shape() && a.strides() == b.strides();
}

void collect(const ExprNode& n, Plan& plan) {
  if (n.kind == NodeKind::array) {
    if (plan.input_of.count(&n)) return;
    for (std::size_t k = 0; k < plan.inputs.size(); ++k)
      if (same_view(plan.inputs[k].array, n.array)) {
        plan.input_of[&n] = static_cast<int>(k);
        return;
      }
    plan.input_of[&n] = static_cast<int>(plan.inputs.size());
    plan.inputs.push_back(PlanOperand{n.array, {}, Access::strided, -1});
    return;
  }
  if (n.kind == NodeKind::scalar) {
    if (!plan.scalar_of.count(&n)) {
      plan.scalar_of[&n] = static_cast<int>(plan.scalars.size());
      plan.scalars.push_back(&n);
    }
    return;
  }
  for (const auto& c : n.children) collect(*c, plan);
}

Strides broadcast_strides(const Array& a, const Shape& shape) {
  Strides s(shape.size(), 0);
  std::size_t lead = shape.size() - a.shape().size();
  for (std::size_t k = 0; k < a.shape().size(); ++k)
    if (a.shape()[k] != 1) s[lead + k] = a.strides()[k];
  return s;
}

std::string tree_key(const ExprNode& n, const Plan& plan) {
  if (n.kind == NodeKind::array)
    return "a" + std::to_string(plan.input_of.at(&n)) + ":" + std::string(to_string(n.dtype));
  if (n.kind == NodeKind::scalar)
    return "s" + std::to_string(plan.scalar_of.at(&n)) + ":" + std::string(to_string(n.dtype));
  std::string s =
      n.op + ":" + std::string(to_string(n.dtype)) + "/" + std::string(to_string(n.operand)) + "(";
  for (std::size_t k = 0; k < n.children.size(); ++k) {
    if (k) s += ",";
    s += tree_key(*n.children[k], plan);
  }
  return s + ")";
}

char access_char(Access a) {
  return a == Access::contiguous ? 'c' : a == Access::uniform ? 'u' : 's';
}

std::string index_type(const Plan& plan) { return plan.index64 ? "long long" : "int"; }

}  // namespace

std::string compute_c_type(DType dtype) { return std::string(c_type_name(compute_dtype(dtype))); }

std::string load_convert(DType dtype, const std::string& text) {
  if (dtype == DType::float16) return "cudakit_h2f(" + text + ")";
  if (dtype == DType::bfloat16) return "cudakit_bf2f(" + text + ")";
  return text;
}

std::string store_convert(DType dtype, const std::string& text) {
  if (dtype == DType::float16) return "cudakit_f2h(" + text + ")";
  if (dtype == DType::bfloat16) return "cudakit_f2bf(" + text + ")";
  return text;
}

Plan make_plan(const ExprNode& root, const Shape& shape_in, const Array* out,
               const std::vector<int>& axis_order, bool allow_vector) {
  Plan plan;
  collect(root, plan);
  std::vector<Strides> strides;
  for (auto& in : plan.inputs) strides.push_back(broadcast_strides(in.array, shape_in));
  if (out) strides.push_back(out->strides());
  Shape shape = shape_in;
  if (!axis_order.empty()) {
    if (axis_order.size() != shape.size())
      array_error("array code generation", "axis order has " + std::to_string(axis_order.size()) +
                                               " entries for " + std::to_string(shape.size()) +
                                               " axes");
    Shape s2;
    for (int a : axis_order) s2.push_back(shape[static_cast<std::size_t>(a)]);
    for (auto& st : strides) {
      Strides p;
      for (int a : axis_order) p.push_back(st[static_cast<std::size_t>(a)]);
      st = p;
    }
    shape = s2;
  }
  plan.size = shape_size(shape);
  // Coalesce: drop extent-1 axes, then merge neighbours that every operand
  // walks as one (so most expressions become 1-D).
  Shape cs;
  std::vector<Strides> cst(strides.size());
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    bool merge = !cs.empty();
    for (std::size_t o = 0; merge && o < strides.size(); ++o)
      if (cst[o].back() != strides[o][k] * shape[k]) merge = false;
    if (merge) {
      cs.back() *= shape[k];
      for (std::size_t o = 0; o < strides.size(); ++o) cst[o].back() = strides[o][k];
    } else {
      cs.push_back(shape[k]);
      for (std::size_t o = 0; o < strides.size(); ++o) cst[o].push_back(strides[o][k]);
    }
  }
  plan.shape = cs;
  Strides c_strides = contiguous_strides(cs);
  auto classify = [&](PlanOperand& op, const Strides& st) {
    op.strides = st;
    if (std::all_of(st.begin(), st.end(), [](std::int64_t v) { return v == 0; }))
      op.access = Access::uniform;
    else if (st == c_strides)
      op.access = Access::contiguous;
    else {
      op.access = Access::strided;
      op.strided_row = plan.strided_rows++;
    }
  };
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) classify(plan.inputs[k], cst[k]);
  if (out) {
    plan.out = PlanOperand{*out, {}, Access::strided, -1};
    classify(*plan.out, cst.back());
  }
  // 32-bit index arithmetic is measurably faster; use it whenever every
  // offset fits.
  // The grid-stride loop adds up to gridDim * blockDim past n before it
  // stops: keep that headroom below 2^31 too.
  const std::int64_t limit = (std::int64_t{1} << 31) - 1;
  plan.index64 = plan.size >= limit - (std::int64_t{1} << 26);
  for (const auto& st : cst) {
    std::int64_t span = 0;
    for (std::size_t k = 0; k < cs.size(); ++k) span += std::abs(st[k]) * (cs[k] - 1);
    if (span >= limit) plan.index64 = true;
  }
  // Vector loads: every operand contiguous (or uniform), 16-byte vectors of
  // the widest element, every contiguous pointer aligned to its vector.
  if (allow_vector && plan.size > 0) {
    std::size_t widest = 0;
    bool ok = true;
    auto consider = [&](const PlanOperand& op) {
      if (op.access == Access::strided) ok = false;
      if (op.access == Access::contiguous) widest = std::max(widest, op.array.itemsize());
    };
    for (const auto& in : plan.inputs) consider(in);
    if (plan.out) consider(*plan.out);
    int width = widest ? static_cast<int>(16 / widest) : 1;
    auto aligned = [&](const PlanOperand& op) {
      return op.access != Access::contiguous ||
             op.array.address() % (op.array.itemsize() * static_cast<std::size_t>(width)) == 0;
    };
    if (ok && width >= 2 && plan.size >= width) {
      bool all_aligned = std::all_of(plan.inputs.begin(), plan.inputs.end(), aligned) &&
                         (!plan.out || aligned(*plan.out));
      if (all_aligned) plan.vector_width = width;
    }
  }
  std::string key = tree_key(root, plan);
  key += "|nd" + std::to_string(cs.size()) + "|";
  for (const auto& in : plan.inputs) key += access_char(in.access);
  if (plan.out)
    key +=
        std::string("|out:") + std::string(to_string(out->dtype())) + access_char(plan.out->access);
  key += plan.index64 ? "|i64" : "|i32";
  key += "|v" + std::to_string(plan.vector_width);
  plan.key = key;
  return plan;
}

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
  throw NotSupported(
      "generating an array kernel",
      "'" + n.op + "' is not implemented for " + std::string(to_string(n.operand)) + " operands",
      "complex numbers support + - * /, abs, conj, real, imag, == and !=");
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
  if (cplx) unsupported(n);
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

std::string render_params(const Plan& plan, const std::string& prefix) {
  std::string s;
  auto add = [&](const std::string& p) { s += (s.empty() ? "" : ", ") + p; };
  for (std::size_t k = 0; k < plan.inputs.size(); ++k)
    add("const " + std::string(c_type_name(plan.inputs[k].array.dtype())) + "* " + prefix + "in" +
        std::to_string(k));
  for (std::size_t k = 0; k < plan.scalars.size(); ++k)
    add(compute_c_type(plan.scalars[k]->dtype) + " " + prefix + "s" + std::to_string(k));
  if (plan.strided_rows > 0) add(prefix + "layout " + prefix + "lay");
  return s;
}

std::string render_layout_struct(const Plan& plan, const std::string& prefix) {
  if (plan.strided_rows == 0) return {};
  std::string it = index_type(plan);
  std::string nd = std::to_string(plan.shape.size());
  return "// Extents of the iteration space and, per strided operand, its strides in elements.\n"
         "struct " +
         prefix + "layout {\n  " + it + " shape[" + nd + "];\n  " + it + " strides[" +
         std::to_string(plan.strided_rows) + "][" + nd + "];\n};\n";
}

std::string render_offsets(const Plan& plan, const std::string& prefix, const std::string& index,
                           const std::string& indent) {
  if (plan.strided_rows == 0) return {};
  std::string it = index_type(plan);
  std::string s;
  for (int r = 0; r < plan.strided_rows; ++r)
    s += indent + it + " " + prefix + "o" + std::to_string(r) + " = 0;\n";
  s += indent + it + " " + prefix + "rest = " + index + ";\n";
  for (std::size_t d = plan.shape.size(); d-- > 0;) {
    std::string ds = std::to_string(d);
    std::string coord = prefix + "c" + ds;
    if (d == 0) {
      s += indent + "const " + it + " " + coord + " = " + prefix + "rest;\n";
    } else {
      s += indent + "const " + it + " " + coord + " = " + prefix + "rest % " + prefix +
           "lay.shape[" + ds + "];\n";
      s += indent + prefix + "rest /= " + prefix + "lay.shape[" + ds + "];\n";
    }
    for (int r = 0; r < plan.strided_rows; ++r)
      s += indent + prefix + "o" + std::to_string(r) + " += " + coord + " * " + prefix +
           "lay.strides[" + std::to_string(r) + "][" + ds + "];\n";
  }
  return s;
}

void pack_params(const Plan& plan, ArgPack& args) {
  for (const auto& in : plan.inputs) args.push_pointer(in.array.address());
  for (const ExprNode* s : plan.scalars) {
    DType d = compute_dtype(s->dtype);
    unsigned char bytes[16] = {};
    s->scalar.store(d, bytes);
    if (is_complex(d))
      args.push_aggregate(bytes, itemsize(d));
    else
      args.push_raw(ParamKind::scalar, scalar_type_for(d), bytes, itemsize(d), "scalar");
  }
  if (plan.strided_rows > 0) {
    std::vector<std::int64_t> values(plan.shape.begin(), plan.shape.end());
    std::vector<std::int64_t> rows(static_cast<std::size_t>(plan.strided_rows) * plan.shape.size());
    auto put_row = [&](const PlanOperand& op) {
      if (op.strided_row < 0) return;
      for (std::size_t d = 0; d < plan.shape.size(); ++d)
        rows[static_cast<std::size_t>(op.strided_row) * plan.shape.size() + d] = op.strides[d];
    };
    for (const auto& in : plan.inputs) put_row(in);
    if (plan.out) put_row(*plan.out);
    values.insert(values.end(), rows.begin(), rows.end());
    if (plan.index64) {
      args.push_aggregate(values.data(), values.size() * sizeof(std::int64_t));
    } else {
      std::vector<std::int32_t> narrow(values.begin(), values.end());
      args.push_aggregate(narrow.data(), narrow.size() * sizeof(std::int32_t));
    }
  }
}

}  // namespace cudakit::detail
