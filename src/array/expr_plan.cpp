// Analysing an expression (operands, layouts, index width) and rendering
// the parameter, layout and offset pieces of CUDA C that every array kernel
// built from it shares (the nodes themselves: expr_ops.cpp).
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
      args.push_raw(ParamKind::scalar, scalar_type_of(d), bytes, itemsize(d), "scalar");
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
