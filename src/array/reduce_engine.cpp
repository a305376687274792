#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>
#include <utility>

#include "array/reduce_codegen.hpp"
#include "array/reduce_ops.hpp"
#include "array/reduce_source_hook.hpp"
#include "array/reduce_workspace.hpp"
#include "array/stream_order.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/detail/expr_node.hpp"
#include "cudakit/error.hpp"

namespace cudakit::detail {

namespace {

const ExprNode* find_array_leaf(const ExprNode& node) {
  if (node.kind == NodeKind::array) return &node;
  for (const auto& child : node.children)
    if (const ExprNode* leaf = find_array_leaf(*child)) return leaf;
  return nullptr;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
}

enum class Strategy { full, inner, outer };

// A full floating sum of one contiguous operand, or of the product of two,
// can read them with 16-byte vector loads (the generic path reads the fused
// map one element at a time).
std::vector<Array> vector_operands(const Expr& expr, const ReduceOp& op) {
  if (!op.compensated || op.map_wrap != "@ELEM@" || op.reduce_expr != "a + b") return {};
  const DType dtype = expr.dtype();
  if (dtype != DType::float32 && dtype != DType::float64) return {};
  if (op.acc_type != (dtype == DType::float32 ? "float" : "double")) return {};
  const ExprNode& node = *expr.node();
  std::vector<const ExprNode*> leaves;
  if (node.kind == NodeKind::array)
    leaves.push_back(&node);
  else if (node.kind == NodeKind::op && node.op == "multiply" && node.children.size() == 2)
    for (const auto& child : node.children) leaves.push_back(child.get());
  std::vector<Array> arrays;
  for (const ExprNode* leaf : leaves) {
    if (leaf->kind != NodeKind::array) return {};
    const Array& a = leaf->array;
    if (a.dtype() != dtype || a.shape() != expr.shape() || !a.is_c_contiguous() ||
        a.address() % 16 != 0)
      return {};
    arrays.push_back(a);
  }
  if (arrays.size() == 2 && !(arrays[0].device() == arrays[1].device())) return {};
  return arrays;
}

// The axis that is fastest in memory: smallest non-zero stride of the first
// operand with the expression's rank (broadcast operands have zero strides).
int fastest_axis(const Expr& expr) {
  const int ndim = expr.ndim();
  const ExprNode* leaf = find_array_leaf(*expr.node());
  if (leaf == nullptr || leaf->array.ndim() != ndim) return ndim - 1;
  int best = ndim - 1;
  std::int64_t best_stride = -1;
  for (int d = 0; d < ndim; ++d) {
    const std::int64_t s = std::llabs(leaf->array.strides()[static_cast<std::size_t>(d)]);
    if (s == 0 || leaf->array.shape()[static_cast<std::size_t>(d)] <= 1) continue;
    if (best_stride < 0 || s < best_stride) {
      best_stride = s;
      best = d;
    }
  }
  return best;
}

Strategy choose_strategy(const Expr& expr, const AxisPlan& plan) {
  // Few long outputs: one single-launch reduction per output uses the whole
  // device for each (a block per output would leave it nearly idle).
  if (plan.n_out == 1 || (plan.n_out <= 32 && plan.n_red >= 32768)) return Strategy::full;
  const int fast = fastest_axis(expr);
  const bool fast_is_reduced =
      std::find(plan.reduced.begin(), plan.reduced.end(), fast) != plan.reduced.end();
  // A block per output pays when each output has enough elements to keep its
  // threads busy; otherwise a thread per output (neighbours read neighbours).
  if (fast_is_reduced) return plan.n_red >= 32 ? Strategy::inner : Strategy::outer;
  return (plan.n_out < 256 && plan.n_red >= 4096) ? Strategy::inner : Strategy::outer;
}

}  // namespace

// The test hook of reduce_source_hook.hpp.
namespace {
SourceObserver& source_observer() {
  static SourceObserver instance;
  return instance;
}
}  // namespace

void set_source_observer(SourceObserver o) { source_observer() = std::move(o); }

void observe_source(const std::string& kernel_name,
                    const std::function<std::string()>& make_source) {
  if (source_observer()) source_observer()(kernel_name, make_source());
}

const Array& first_array_of(const Expr& expr, const char* what) {
  const ExprNode* leaf = find_array_leaf(*expr.node());
  if (leaf == nullptr)
    throw ArgumentError(what, "the operand is a scalar expression with no array in it",
                        "reduce an Array (e.g. full({}, value, dtype)) instead");
  return leaf->array;
}

AxisPlan plan_axes(const Shape& shape, const Axes& axes, bool keepdims, const char* what) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<bool> reduced(static_cast<std::size_t>(ndim), axes.is_all());
  if (!axes.is_all()) {
    for (int axis : axes.list()) {
      if (axis < -ndim || axis >= ndim)
        throw ArgumentError(what, "axis " + std::to_string(axis) +
                                      " is out of bounds for an array of dimension " +
                                      std::to_string(ndim));
      const int a = axis < 0 ? axis + ndim : axis;
      if (reduced[static_cast<std::size_t>(a)])
        throw ArgumentError(what, "axis " + std::to_string(axis) + " is given more than once");
      reduced[static_cast<std::size_t>(a)] = true;
    }
  }
  AxisPlan plan;
  for (int d = 0; d < ndim; ++d) {
    const std::int64_t extent = shape[static_cast<std::size_t>(d)];
    if (reduced[static_cast<std::size_t>(d)]) {
      plan.reduced.push_back(d);
      plan.n_red *= extent;
      if (keepdims) plan.out_shape.push_back(1);
    } else {
      plan.kept.push_back(d);
      plan.n_out *= extent;
      plan.out_shape.push_back(extent);
    }
  }
  return plan;
}

std::string store_as(DType dtype, const std::string& value) {
  switch (dtype) {
    case DType::float16:
      return "cudakit_f2h((float)(" + value + "))";
    case DType::bfloat16:
      return "cudakit_f2bf((float)(" + value + "))";
    case DType::complex64:
      return "cudakit_c64(" + value + ")";
    case DType::complex128:
      return "cudakit_c128(" + value + ")";
    case DType::bool_:
      return "((" + value + ") != 0)";
    default:
      return "(" + std::string(c_type_name(dtype)) + ")(" + value + ")";
  }
}

std::string load_as_compute(DType dtype, const std::string& element) {
  switch (dtype) {
    case DType::float16:
      return "cudakit_h2f(" + element + ")";
    case DType::bfloat16:
      return "cudakit_bf2f(" + element + ")";
    default:
      return element;
  }
}

std::string acc_constant(DType acc_dtype, int value) {
  if (acc_dtype == DType::complex64) return "cudakit_c64(" + std::to_string(value) + ".0)";
  if (acc_dtype == DType::complex128) return "cudakit_c128(" + std::to_string(value) + ".0)";
  return "(ck_acc_t)" + std::to_string(value);
}

DType sum_dtype(DType dtype) noexcept {
  if (is_bool(dtype) || is_signed_integer(dtype)) return DType::int64;
  if (is_unsigned_integer(dtype)) return DType::uint64;
  return dtype;
}

std::string accumulator_type(DType dtype) {
  switch (dtype) {
    case DType::float16:
    case DType::bfloat16:
    case DType::float32:
      return "float";
    case DType::float64:
      return "double";
    case DType::bool_:
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::int64:
      return "long long";
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
    case DType::uint64:
      return "unsigned long long";
    default:
      return std::string(c_type_name(dtype));
  }
}

namespace {
// The bytes of the distinct arrays `node` reads, for the profile's GB/s.
void add_operand_bytes(const ExprNode& node, std::vector<const ExprNode*>& seen,
                       std::size_t& bytes) {
  if (node.kind == NodeKind::array) {
    for (const ExprNode* s : seen)
      if (s == &node ||
          (s->array.address() == node.array.address() && s->array.nbytes() == node.array.nbytes()))
        return;
    seen.push_back(&node);
    bytes += node.array.nbytes();
    return;
  }
  for (const auto& child : node.children) add_operand_bytes(*child, seen, bytes);
}
}  // namespace

Array run_reduction(const Expr& expr, const ReduceOp& op, const AxisPlan& plan) {
  const std::string what = "cudakit::" + op.name;
  const Array& anchor = first_array_of(expr, what.c_str());
  const Device device = anchor.device();
  const Stream stream = anchor.stream();

  if (op.empty_is_error && plan.n_red == 0 && plan.n_out > 0)
    throw ArgumentError(
        what, "zero-size array to reduction operation " + op.name + " which has no identity",
        "check the array's size before reducing, or reduce over a non-empty axis");

  Array out = empty(plan.out_shape, op.out_dtype, stream);
  if (plan.n_out == 0) return out;
  // Operands on other streams: their queued work comes first.
  order_after_operands(stream, expr);

  if (plan.n_out == 1) {
    if (const auto operands = vector_operands(expr, op); !operands.empty()) {
      const bool f64 = expr.dtype() == DType::float64;
      ReductionSpec spec;
      spec.name = "ck_" + op.name + "_vector";
      spec.acc_type = op.acc_type;
      spec.out_type = std::string(c_type_name(op.out_dtype));
      spec.neutral = op.neutral;
      spec.reduce_expr = op.reduce_expr;
      spec.post_expr = store_as(op.out_dtype, op.post_expr);
      const bool product = operands.size() == 2;
      const std::string key = "reduce|vector|" + op.name + "|" + spec.out_type + "|" +
                              spec.acc_type + "|" + spec.neutral + "|" + spec.post_expr + "|" +
                              (product ? "xy" : "x") + (f64 ? "|f64" : "|f32");
      const auto make_source = [&] {
        return codegen_prelude() + "\n" + vector_reduction_source(spec, product, f64);
      };
      observe_source(spec.name, make_source);
      const Kernel kernel = cached_kernel(device, key, spec.name, make_source);
      const ReduceWorkspace workspace = reduce_workspace(device, stream.native());
      ArgPack args;
      for (const Array& a : operands) args.push_pointer(a.address());
      args.push_pointer(out.address());
      args.push_pointer(workspace.partials);
      args.push_pointer(workspace.counter);
      args.push_scalar<long long>(plan.n_red);
      LaunchConfig config;
      config.stream = StreamRef{stream.native()};
      config.grid =
          Dim3(reduction_grid(device, plan.n_red, std::int64_t{reduce_block} * (f64 ? 4 : 8)));
      config.block = Dim3(reduce_block);
      config.bytes_moved = out.nbytes();
      for (const Array& a : operands) config.bytes_moved += a.nbytes();
      args.launch(kernel, config);
      return out;
    }
  }

  CodegenOptions options;
  options.index_name = "i";
  options.prefix = "m";
  std::vector<int> order = plan.kept;
  order.insert(order.end(), plan.reduced.begin(), plan.reduced.end());
  std::vector<int> identity(order.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (order != identity) options.axis_order = order;
  options.index64 = plan.n_out * plan.n_red >= (std::int64_t{1} << 31);
  FusedMap map = codegen_map(expr, options);

  const Strategy strategy = choose_strategy(expr, plan);
  const char* strategy_name = strategy == Strategy::full    ? "full"
                              : strategy == Strategy::inner ? "inner"
                                                            : "outer";

  ReductionSpec spec;
  spec.name = "ck_" + op.name + "_" + strategy_name;
  spec.acc_type = op.acc_type;
  spec.out_type = std::string(c_type_name(op.out_dtype));
  spec.neutral = op.neutral;
  spec.reduce_expr = op.reduce_expr;
  spec.map_expr = op.map_wrap;
  replace_all(spec.map_expr, "@ELEM@", "(" + map.element + ")");
  spec.post_expr = store_as(op.out_dtype, op.post_expr);
  spec.params = map.params;
  spec.preamble = map.preamble + (op.preamble.empty() ? "" : "\n" + op.preamble);
  spec.compensated = op.compensated;

  const std::string key = std::string("reduce|") + strategy_name + "|" + op.name + "|" +
                          spec.out_type + "|" + spec.acc_type + "|" + spec.neutral + "|" +
                          spec.reduce_expr + "|" + op.map_wrap + "|" + spec.post_expr + "|" +
                          (spec.compensated ? "k" : "-") + "|" + op.preamble + "|" + map.key;
  const auto make_source = [&] {
    std::string source = codegen_prelude() + "\n";
    if (strategy == Strategy::full)
      source += full_reduction_source(spec);
    else if (strategy == Strategy::inner)
      source += inner_reduction_source(spec);
    else
      source += outer_reduction_source(spec);
    return source;
  };
  observe_source(spec.name, make_source);
  const Kernel kernel = cached_kernel(device, key, spec.name, make_source);

  ArgPack args = map.args;
  args.push_pointer(out.address());
  LaunchConfig config;
  config.stream = StreamRef{stream.native()};
  std::size_t bytes_read = 0;
  std::vector<const ExprNode*> seen;
  add_operand_bytes(*expr.node(), seen, bytes_read);
  if (strategy == Strategy::full) {
    // One launch per output (one in all for a full reduction); they share the
    // stream's workspace, in order.
    const ReduceWorkspace workspace = reduce_workspace(device, stream.native());
    config.grid = Dim3(reduction_grid(device, plan.n_red, std::int64_t{reduce_block} * 4));
    config.block = Dim3(reduce_block);
    // Each of these launches reads its share of the operands.
    config.bytes_moved =
        bytes_read / static_cast<std::size_t>(std::max<std::int64_t>(1, plan.n_out)) +
        out.itemsize();
    for (std::int64_t o = 0; o < plan.n_out; ++o) {
      ArgPack one = map.args;
      one.push_pointer(out.address() + static_cast<std::uint64_t>(o) * out.itemsize());
      one.push_pointer(workspace.partials);
      one.push_pointer(workspace.counter);
      one.push_scalar<long long>(plan.n_red);
      one.push_scalar<long long>(o * plan.n_red);
      one.launch(kernel, config);
    }
    return out;
  } else {
    args.push_scalar<long long>(plan.n_out);
    args.push_scalar<long long>(plan.n_red);
    const int multiprocessors = std::max(1, device.properties().multiprocessor_count);
    if (strategy == Strategy::inner) {
      config.grid = Dim3(static_cast<unsigned>(
          std::min<std::int64_t>(plan.n_out, std::int64_t{multiprocessors} * 64)));
      config.block = Dim3(reduce_block);
    } else {
      const std::int64_t blocks = (plan.n_out + 31) / 32;
      config.grid = Dim3(static_cast<unsigned>(
          std::min<std::int64_t>(blocks, std::int64_t{multiprocessors} * 64)));
      config.block = Dim3(32, 8);
    }
    config.bytes_moved = bytes_read + out.nbytes();
  }
  args.launch(kernel, config);
  return out;
}

}  // namespace cudakit::detail
