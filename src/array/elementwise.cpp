// Evaluating an expression: one generated kernel writes the whole tree into
// its destination (vector loads where every operand is contiguous and
// aligned, strided indexing otherwise, a grid-stride loop either way).
#include <algorithm>
#include <cstdio>
#include <functional>

#include "array/array_util.hpp"
#include "array/elementwise_eval.hpp"
#include "array/expr_plan.hpp"
#include "array/stream_order.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_source.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/detail/expr_node.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace detail {
namespace {

std::string hash_hex(const std::string& text) {
  // FNV-1a: the name only has to be stable and distinct enough to read.
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string index_type(const Plan& plan) { return plan.index64 ? "long long" : "int"; }

std::vector<std::string> scalar_loads(const Plan& plan, const std::string& p) {
  std::vector<std::string> loads;
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    const auto& in = plan.inputs[k];
    std::string name = p + "in" + std::to_string(k);
    if (in.access == Access::uniform)
      loads.push_back(p + "u" + std::to_string(k));
    else if (in.access == Access::contiguous)
      loads.push_back(name + "[i]");
    else
      loads.push_back(name + "[" + p + "o" + std::to_string(in.strided_row) + "]");
  }
  return loads;
}

std::string uniform_hoists(const Plan& plan, const std::string& p, const std::string& indent) {
  std::string s;
  for (std::size_t k = 0; k < plan.inputs.size(); ++k)
    if (plan.inputs[k].access == Access::uniform)
      s += indent + "const " + std::string(c_type_name(plan.inputs[k].array.dtype())) + " " + p +
           "u" + std::to_string(k) + " = " + p + "in" + std::to_string(k) + "[0];\n";
  return s;
}

std::string kernel_name_for(const std::string& key) {
  return "cudakit_elementwise_" + hash_hex(key);
}

std::string render_elementwise(const Plan& plan, const ExprNode& root, const std::string& name,
                               const std::string& description) {
  const std::string p = "m_";
  const std::string it = index_type(plan);
  const DType od = plan.out->array.dtype();
  const std::string ot = std::string(c_type_name(od));
  std::string s = codegen_prelude();
  s += "\n" + render_layout_struct(plan, p);
  s += "\n// out = " + description + "\n";
  std::string params = render_params(plan, p);
  s += "extern \"C\" __global__ void " + name + "(" + ot + "* " + p + "out" +
       (params.empty() ? "" : ", ") + params + ", " + it + " n) {\n";
  s += "  const " + it + " first = (" + it + ")blockIdx.x * (" + it + ")blockDim.x + (" + it +
       ")threadIdx.x;\n";
  s += "  const " + it + " step = (" + it + ")gridDim.x * (" + it + ")blockDim.x;\n";
  s += uniform_hoists(plan, p, "  ");
  std::string tail_start = "first";
  if (plan.vector_width > 1) {
    const std::string V = std::to_string(plan.vector_width);
    s += "  // " + V + " elements per thread and iteration through 16-byte loads and stores.\n";
    s += "  const " + it + " vectors = n / " + V + ";\n";
    s += "  for (" + it + " v = first; v < vectors; v += step) {\n";
    std::vector<std::string> loads;
    for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
      const auto& in = plan.inputs[k];
      if (in.access == Access::uniform) {
        loads.push_back(p + "u" + std::to_string(k));
        continue;
      }
      std::string vt = "cudakit_vec<" + std::string(c_type_name(in.array.dtype())) + ", " + V + ">";
      s += "    const " + vt + " " + p + "v" + std::to_string(k) + " = reinterpret_cast<const " +
           vt + "*>(" + p + "in" + std::to_string(k) + ")[v];\n";
      loads.push_back(p + "v" + std::to_string(k) + ".v[k]");
    }
    std::string rt = "cudakit_vec<" + ot + ", " + V + ">";
    s += "    " + rt + " " + p + "r;\n";
    s += "    for (int k = 0; k < " + V + "; ++k) {\n";
    ElementCode code = render_element(plan, root, p, "      ", loads);
    s += code.statements;
    s += "      " + p + "r.v[k] = " + store_convert(od, code.value) + ";\n";
    s += "    }\n";
    s += "    reinterpret_cast<" + rt + "*>(" + p + "out)[v] = " + p + "r;\n";
    s += "  }\n";
    s += "  // The last n % " + V + " elements, one at a time.\n";
    tail_start = "vectors * " + V + " + first";
  }
  s += "  for (" + it + " i = " + tail_start + "; i < n; i += step) {\n";
  s += render_offsets(plan, p, "i", "    ");
  ElementCode code = render_element(plan, root, p, "    ", scalar_loads(plan, p));
  s += code.statements;
  std::string dst = plan.out->access == Access::contiguous ? p + "out[i]"
                    : plan.out->access == Access::uniform
                        ? p + "out[0]"
                        : p + "out[" + p + "o" + std::to_string(plan.out->strided_row) + "]";
  s += "    " + dst + " = " + store_convert(od, code.value) + ";\n";
  s += "  }\n}\n";
  return s;
}

bool is_identical_layout(const Array& a, const Array& out) {
  return a.address() == out.address() && a.shape() == out.shape() &&
         a.strides_bytes() == out.strides_bytes();
}

bool unsafe_alias(const ExprNode& n, const Array& out) {
  if (n.kind == NodeKind::array)
    return n.array.may_share_memory(out) && !is_identical_layout(n.array, out);
  for (const auto& c : n.children)
    if (unsafe_alias(*c, out)) return true;
  return false;
}

}  // namespace

LaunchConfig elementwise_config(const Device& device, std::int64_t work, StreamRef stream) {
  const unsigned block = 256;
  const auto& props = device.properties();
  // On a GPU, a grid that covers the work (one vector per thread) beats one
  // wave of resident blocks with a grid-stride loop: 4356 against 4099 GB/s
  // for a float32 add of 2^28 elements on an H200 (bench/experiments/
  // add_grid_policy.cu); the loop then only runs past 2^31-1 blocks. On the
  // CPU backend each block costs a task, so one wave and the loop it is.
  std::int64_t limit = std::int64_t(props.max_grid_dim.x > 0 ? props.max_grid_dim.x : 65535);
  if (device.backend_kind() == BackendKind::cpu) {
    std::int64_t per_sm =
        std::max(1, props.max_threads_per_multiprocessor / static_cast<int>(block));
    limit = std::max<std::int64_t>(1, props.multiprocessor_count) * per_sm;
  }
  std::int64_t blocks = std::clamp<std::int64_t>((work + block - 1) / block, 1, limit);
  LaunchConfig c;
  c.grid = Dim3{static_cast<unsigned>(blocks)};
  c.block = Dim3{block};
  c.stream = stream;
  return c;
}

namespace {

Expr as_dtype(const Expr& e, DType dtype) { return e.dtype() == dtype ? e : e.astype(dtype); }

Plan elementwise_plan(const Expr& expr, const Array& out) {
  Plan plan = make_plan(*expr.node(), out.shape(), &out, {}, true);
  plan.key = "ew|" + plan.key;
  return plan;
}

void run(const Expr& expr, const Array& out) {
  ElementwiseLaunch l = elementwise_launch_for(expr, out);
  if (l.plan.size > 0) launch_elementwise(l, out);
}

}  // namespace

namespace {
// "add(multiply(in0, in1), 2)": arrays by their input number in the plan.
std::string expression_label(const Plan& plan, const ExprNode& n) {
  if (n.kind == NodeKind::array) {
    auto it = plan.input_of.find(&n);
    return it == plan.input_of.end() ? "array" : "in" + std::to_string(it->second);
  }
  if (n.kind == NodeKind::scalar) return n.scalar.to_string();
  std::string s = n.op + "(";
  for (std::size_t k = 0; k < n.children.size(); ++k) {
    if (k) s += ", ";
    s += expression_label(plan, *n.children[k]);
  }
  return s + ")";
}
}  // namespace

ElementwiseLaunch elementwise_launch_for(const Expr& expr, const Array& out) {
  ElementwiseLaunch l;
  l.plan = elementwise_plan(expr, out);
  if (l.plan.size == 0) return l;
  l.label = expression_label(l.plan, *expr.node());
  std::string name = kernel_name_for(l.plan.key);
  l.kernel = cached_kernel(out.device(), l.plan.key, name, [&] {
    return render_elementwise(l.plan, *expr.node(), name, to_string(expr));
  });
  return l;
}

LaunchConfig launch_elementwise(const ElementwiseLaunch& l, const Array& out) {
  ArgPack args;
  args.push_pointer(out.address());
  pack_params(l.plan, args);
  if (l.plan.index64)
    args.push_scalar<long long>(l.plan.size);
  else
    args.push_scalar<int>(static_cast<int>(l.plan.size));
  std::int64_t work = l.plan.vector_width > 1 ? l.plan.size / l.plan.vector_width : l.plan.size;
  LaunchConfig config =
      elementwise_config(out.device(), std::max<std::int64_t>(work, 1), out.stream_ref());
  config.label = l.label.c_str();
  config.bytes_moved = out.nbytes();
  for (const PlanOperand& in : l.plan.inputs) config.bytes_moved += in.array.nbytes();
  args.launch(*l.kernel, config);
  return config;
}

void check_eval(const Expr& expr, const Array& out, Casting casting, const char* context) {
  check_valid(out, context);
  if (out.readonly())
    array_error(context, "the destination array is read-only",
                "broadcast_to() views and read-only imports cannot be written; copy() first");
  if (const Device* d = expr.device(); d && !(*d == out.device()))
    array_error(
        context,
        "operands are on different devices: " + d->describe() + " and " + out.device().describe(),
        "copy one operand to the other's device first");
  Shape b = broadcast_shapes(expr.shape(), out.shape());
  if (b != out.shape())
    array_error(context, "could not broadcast input array from shape " +
                             shape_to_string(expr.shape()) + " into shape " +
                             shape_to_string(out.shape()));
  if (!expr.is_weak() && !can_cast(expr.dtype(), out.dtype(), casting))
    array_error(
        context,
        "cannot cast the result from " + std::string(to_string(expr.dtype())) + " to " +
            std::string(to_string(out.dtype())) + " with casting rule 'same_kind'",
        "convert explicitly with astype(), or assign() (which casts like NumPy's a[...] = x)");
  if (expr.is_weak() && expr.node()->kind == NodeKind::scalar &&
      !expr.node()->scalar.fits(out.dtype()))
    array_error(context, "Python integer " + expr.node()->scalar.to_string() +
                             " out of bounds for " + std::string(to_string(out.dtype())));
}

void eval_into(const Expr& expr, Array& out, Casting casting, const char* context) {
  if (eval_fast(expr, out, casting, context)) return;
  check_eval(expr, out, casting, context);
  // Operands on other streams: the launch (on out's stream) waits for them.
  order_after_operands(out.stream(), expr, &out);
  Expr e = as_dtype(expr, out.dtype());
  if (unsafe_alias(*e.node(), out)) {
    // An operand overlaps the destination in another layout (a shifted or
    // reversed view of it): compute into fresh memory first, then copy.
    Array tmp = empty(out.shape(), out.dtype(), out.stream());
    run(e, tmp);
    run(Expr(tmp), out);
    return;
  }
  run(e, out);
}

std::string elementwise_key(const Expr& expr, const Array& out) {
  return elementwise_plan(as_dtype(expr, out.dtype()), out).key;
}

std::string elementwise_source(const Expr& expr, const Array& out) {
  Expr e = as_dtype(expr, out.dtype());
  Plan plan = elementwise_plan(e, out);
  return render_elementwise(plan, *e.node(), kernel_name_for(plan.key), to_string(e));
}

FusedMap codegen_map(const Expr& expr, const CodegenOptions& options) {
  FusedMap m;
  const std::string& p = options.prefix.empty() ? std::string("m") : options.prefix;
  const std::string pre = p + "_";
  Plan plan = make_plan(*expr.node(), expr.shape(), nullptr, options.axis_order, false);
  plan.index64 = plan.index64 || options.index64;
  const std::string it = plan.index64 ? "long long" : "int";
  m.dtype = expr.dtype();
  m.size = plan.size;
  m.shape = expr.shape();
  if (!options.axis_order.empty()) {
    m.shape.clear();
    for (int a : options.axis_order) m.shape.push_back(expr.shape()[static_cast<std::size_t>(a)]);
  }
  m.params = render_params(plan, pre);
  std::string fn = pre + "element";
  std::string pre_text = codegen_prelude() + render_layout_struct(plan, pre);
  pre_text += "// " + to_string(expr) + "\n";
  pre_text += "__device__ inline " + compute_c_type(m.dtype) + " " + fn + "(" + it + " " +
              options.index_name + (m.params.empty() ? "" : ", ") + m.params + ") {\n";
  pre_text += render_offsets(plan, pre, options.index_name, "  ");
  pre_text += uniform_hoists(plan, pre, "  ");
  std::vector<std::string> loads;
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    const auto& in = plan.inputs[k];
    std::string name = pre + "in" + std::to_string(k);
    if (in.access == Access::uniform)
      loads.push_back(pre + "u" + std::to_string(k));
    else if (in.access == Access::contiguous)
      loads.push_back(name + "[" + options.index_name + "]");
    else
      loads.push_back(name + "[" + pre + "o" + std::to_string(in.strided_row) + "]");
  }
  ElementCode code = render_element(plan, *expr.node(), pre, "  ", loads);
  pre_text += code.statements + "  return " + code.value + ";\n}\n";
  m.preamble = pre_text;
  std::string call = fn + "(" + options.index_name;
  for (std::size_t k = 0; k < plan.inputs.size(); ++k)
    call += ", " + pre + "in" + std::to_string(k);
  for (std::size_t k = 0; k < plan.scalars.size(); ++k)
    call += ", " + pre + "s" + std::to_string(k);
  if (plan.strided_rows > 0) call += ", " + pre + "lay";
  m.element = call + ")";
  m.key = "map|" + p + "|" + options.index_name + "|" + plan.key + (plan.index64 ? "|x64" : "|x32");
  pack_params(plan, m.args);
  return m;
}

}  // namespace detail

Array::Array(const Expr& expr) {
  const Device* d = expr.device();
  std::optional<Stream> stream;
  auto find_stream = [&](auto&& self, const detail::ExprNode& n) -> void {
    if (stream) return;
    if (n.kind == detail::NodeKind::array) stream = n.array.stream();
    for (const auto& c : n.children) self(self, *c);
  };
  find_stream(find_stream, *expr.node());
  Array out = stream ? empty(expr.shape(), expr.dtype(), *stream)
                     : empty(expr.shape(), expr.dtype(),
                             d ? d->default_stream() : Device::current().default_stream());
  detail::eval_into(expr, out, Casting::unsafe, "evaluating an array expression");
  *this = out;
}

Array eval(const Expr& expr) { return Array(expr); }
void eval(const Expr& expr, Array& out) {
  detail::eval_into(expr, out, Casting::same_kind, "eval(expr, out)");
}

void Array::assign(const Expr& value) {
  detail::eval_into(value, *this, Casting::unsafe, "Array::assign");
}

#define CUDAKIT_INPLACE(OP, EXPR)                                              \
  Array& Array::operator OP(const Expr& rhs) {                                 \
    detail::eval_into(EXPR, *this, Casting::same_kind, "Array::operator" #OP); \
    return *this;                                                              \
  }
CUDAKIT_INPLACE(+=, Expr(*this) + rhs)
CUDAKIT_INPLACE(-=, Expr(*this) - rhs)
CUDAKIT_INPLACE(*=, Expr(*this) * rhs)
CUDAKIT_INPLACE(/=, Expr(*this) / rhs)
CUDAKIT_INPLACE(%=, Expr(*this) % rhs)
CUDAKIT_INPLACE(&=, Expr(*this) & rhs)
CUDAKIT_INPLACE(|=, Expr(*this) | rhs)
CUDAKIT_INPLACE(^=, Expr(*this) ^ rhs)
CUDAKIT_INPLACE(<<=, Expr(*this) << rhs)
CUDAKIT_INPLACE(>>=, Expr(*this) >> rhs)
#undef CUDAKIT_INPLACE

std::string generated_source(const Expr& expr, const Array& out) {
  return detail::elementwise_source(expr, out);
}

}  // namespace cudakit
