#include <algorithm>
#include <cctype>
#include <string>

#include "array/array_util.hpp"
#include "array/kernel_view.hpp"
#include "array/reduce_codegen.hpp"
#include "array/reduce_ops.hpp"
#include "array/reduce_source_hook.hpp"
#include "array/reduce_workspace.hpp"
#include "array/stream_order.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/error.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "support/c_types.hpp"

namespace cudakit {

namespace {

const char* what = "cudakit::ReductionKernel";

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\n\r");
  return s.substr(b, e - b + 1);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The argument list, split at its top-level commas by the core's C-types
// module (so "Pair<int, float>* p" stays one argument).
std::vector<ReductionKernel::Param> parse_arguments(const std::string& arguments) {
  std::vector<ReductionKernel::Param> params;
  for (const std::string& piece : detail::split_c_list(arguments)) {
    const detail::CDeclaration decl = detail::split_c_declaration(piece);
    if (decl.name.empty() || decl.type.empty())
      throw ArgumentError(what, "cannot read parameter '" + piece + "' of \"" + arguments + "\"",
                          "write parameters as in C: \"const float* x, int n\"");
    ReductionKernel::Param p;
    p.name = decl.name;
    p.type = decl.type;
    p.pointer = detail::classify_c_type(p.type).kind == ParamKind::pointer;
    params.push_back(std::move(p));
  }
  return params;
}

detail::ReductionSpec spec_of(DType dtype_out, const std::string& name, const std::string& neutral,
                              const std::string& reduce_expr, const std::string& map_expr,
                              const std::string& arguments, const std::string& preamble) {
  detail::ReductionSpec spec;
  spec.name = name;
  spec.acc_type = std::string(c_type_name(compute_dtype(dtype_out)));
  spec.out_type = std::string(c_type_name(dtype_out));
  spec.neutral = "(ck_acc_t)(" + neutral + ")";
  spec.reduce_expr = reduce_expr;
  spec.map_expr = map_expr;
  spec.params = arguments;
  spec.post_expr = detail::store_as(dtype_out, "a");
  spec.preamble = preamble;
  return spec;
}

// Every array the map expression indexes as `name[i]` must hold the n
// elements the reduction runs over (the first array's size): otherwise the
// kernel would read past its end.
void check_arrays_cover(const std::string& context, const std::string& map_expr,
                        const std::vector<ReductionKernel::Param>& params,
                        const std::vector<KernelValue>& args, std::int64_t n) {
  std::string short_arrays, sizes;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Array* a = std::get_if<Array>(&args[k]);
    if (a == nullptr) continue;
    sizes += (sizes.empty() ? "" : ", ") + params[k].name + ": " + std::to_string(a->size());
    if (a->size() < n && detail::indexed_by_loop_index(map_expr, params[k].name))
      short_arrays += (short_arrays.empty() ? "" : ", ") + std::string("'") + params[k].name +
                      "' (" + std::to_string(a->size()) + " elements)";
  }
  if (short_arrays.empty()) return;
  throw ArgumentError(context,
                      "the map expression indexes " + short_arrays +
                          " with i, which runs over the first array's " + std::to_string(n) +
                          " elements; array sizes: " + sizes,
                      "pass arrays of the same size (a slice of the longer one, e.g. x[:n])");
}

}  // namespace

ReductionKernel::ReductionKernel(DType dtype_out, std::string neutral, std::string reduce_expr,
                                 std::string map_expr, std::string arguments, std::string name,
                                 std::string preamble)
    : dtype_out_(dtype_out),
      neutral_(std::move(neutral)),
      reduce_expr_(std::move(reduce_expr)),
      map_expr_(std::move(map_expr)),
      arguments_(std::move(arguments)),
      name_(std::move(name)),
      preamble_(std::move(preamble)) {
  if (trim(neutral_).empty())
    throw ArgumentError(what, "the neutral element is empty", "e.g. \"0\" for a sum");
  if (trim(reduce_expr_).empty())
    throw ArgumentError(what, "the reduce expression is empty", "e.g. \"a + b\"");
  if (trim(map_expr_).empty())
    throw ArgumentError(what, "the map expression is empty", "e.g. \"x[i]\"");
  if (!is_identifier(name_))
    throw ArgumentError(what, "name '" + name_ + "' is not a C identifier");
  params_ = parse_arguments(arguments_);
  if (std::none_of(params_.begin(), params_.end(), [](const Param& p) { return p.pointer; }))
    throw ArgumentError(what, "no pointer parameter in \"" + arguments_ + "\"",
                        "the element count is taken from the first array argument");
}

std::string ReductionKernel::source() const {
  return detail::codegen_prelude() + "\n" +
         detail::full_reduction_source(
             spec_of(dtype_out_, name_, neutral_, reduce_expr_, map_expr_, arguments_, preamble_));
}

Array ReductionKernel::operator()(const std::vector<KernelValue>& args) const {
  const std::string context = std::string(what) + " " + name_;
  if (args.size() != params_.size())
    throw ArgumentError(context, "expects " + std::to_string(params_.size()) + " arguments (" +
                                     arguments_ + "), got " + std::to_string(args.size()));
  // The launch runs on the first array's stream, after the work queued on
  // the other arrays' streams.
  std::vector<const Array*> arrays;
  for (const auto& v : args)
    if (const Array* a = std::get_if<Array>(&v); a != nullptr && a->valid()) arrays.push_back(a);
  if (!arrays.empty()) detail::order_after_operands(arrays.front()->stream(), arrays);
  const Array* first = nullptr;
  detail::ArgPack pack;
  // The kernel's variant: which arguments arrive as strided views, in which
  // layout (rank and index width); the view structs join the preamble.
  std::string params, views, layout_key;
  std::vector<Array> staged;  // contiguous copies, alive until the launch is queued
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Param& p = params_[k];
    const std::string which =
        "argument " + std::to_string(k + 1) + " '" + p.name + "' (" + p.type + ")";
    if (!params.empty()) params += ", ";
    if (p.pointer) {
      const Array* a = std::get_if<Array>(&args[k]);
      if (a == nullptr || !a->valid()) throw ArgumentError(context, which + " needs an Array");
      const auto pointee = detail::dtype_of_c_type(detail::pointee_c_type(p.type));
      if (pointee && *pointee != a->dtype())
        throw ArgumentError(context,
                            which + " got an array of " + std::string(to_string(a->dtype())));
      if (first == nullptr)
        first = a;
      else if (!(a->device() == first->device()))
        throw ArgumentError(context, which + " is on " + a->device().describe() +
                                         ", the first array on " + first->device().describe());
      const detail::KernelView view = detail::kernel_view(*a);
      if (view.plain()) {
        params += p.type + " " + p.name;
        layout_key += "|c";
        pack.push_pointer(a->address());
      } else if (detail::used_other_than_indexed(map_expr_, p.name)) {
        // The map needs a real pointer: one extra pass makes a contiguous
        // copy, on the launch's stream (writes through it would land in the copy).
        Array copy = empty(a->shape(), a->dtype(), first->stream());
        copy.assign(*a);
        staged.push_back(copy);
        params += p.type + " " + p.name;
        layout_key += "|c";
        pack.push_pointer(staged.back().address());
      } else {
        params += detail::kernel_view_type(p.name) + " " + p.name;
        views += detail::kernel_view_source(p.name, p.type, view);
        layout_key += "|" + detail::kernel_view_key(view);
        const auto bytes = detail::kernel_view_bytes(*a, view);
        pack.push_aggregate(bytes.data(), bytes.size());
      }
    } else {
      params += p.type + " " + p.name;
      const auto type = detail::dtype_of_c_type(p.type);
      if (std::holds_alternative<Array>(args[k]))
        throw ArgumentError(
            context, which + " needs " + (type ? "a number" : "a struct") + ", got an Array");
      if (const auto* record = std::get_if<StructValue>(&args[k])) {
        // A struct type (float3, a struct of the preamble) by value: the
        // compiled parameter's size checks the bytes.
        if (type)
          throw ArgumentError(context,
                              which + " is a number, but " + record->description + " was passed",
                              "pass a number, or declare the parameter with the struct's type");
        pack.push_aggregate(record->bytes.data(), record->bytes.size());
        continue;
      }
      const Scalar* s = &std::get<Scalar>(args[k]);
      if (!type)
        throw ArgumentError(context,
                            which + " is a struct passed by value, but a number was passed",
                            "pass a numpy record of its layout (e.g. gpuarray.vec.make_" + p.type +
                                "(...) for a vector type), or a StructValue with its bytes in C++");
      // As ElementwiseKernel: a number that does not fit the parameter, or a
      // fraction for an integer, is refused rather than wrapped / truncated.
      if (s->is_weak() && !s->fits(*type))
        throw ArgumentError(context, which + ": " + s->to_string() + " is out of range for " +
                                         std::string(to_string(*type)));
      if (is_integer(*type) &&
          (s->kind() == ScalarKind::floating || s->kind() == ScalarKind::complex))
        throw ArgumentError(context,
                            which + " is an integer, but " + s->to_string() + " was passed",
                            "pass an integer (the value would be truncated)");
      unsigned char bytes[16] = {};
      s->store(*type, bytes);
      pack.push_raw(ParamKind::scalar, scalar_type_of(*type), bytes, itemsize(*type), "scalar");
    }
  }
  const Device device = first->device();
  const Stream stream = first->stream();
  const std::int64_t n = first->size();
  check_arrays_cover(context, map_expr_, params_, args, n);
  Array out = empty({}, dtype_out_, stream);
  const bool all_contiguous = views.empty();
  std::string key = "reduction_kernel|" + name_ + "|" + std::string(to_string(dtype_out_)) + "|" +
                    neutral_ + "|" + reduce_expr_ + "|" + map_expr_ + "|" + arguments_ + "|" +
                    preamble_;
  if (!all_contiguous) key += layout_key;
  auto make_source = [&] {
    if (all_contiguous) return source();
    detail::ReductionSpec spec =
        spec_of(dtype_out_, name_, neutral_, reduce_expr_, map_expr_, params, preamble_);
    spec.preamble = (preamble_.empty() ? "" : preamble_ + "\n") + views;
    return detail::codegen_prelude() + "\n" + detail::full_reduction_source(spec);
  };
  detail::observe_source(name_, make_source);
  const Kernel kernel = detail::cached_kernel(device, key, name_, make_source);
  const detail::ReduceWorkspace workspace = detail::reduce_workspace(device, stream.native());
  pack.push_pointer(out.address());
  pack.push_pointer(workspace.partials);
  pack.push_pointer(workspace.counter);
  pack.push_scalar<long long>(n);
  pack.push_scalar<long long>(0);  // i runs from 0
  LaunchConfig config;
  config.grid = Dim3(detail::reduction_grid(device, n, std::int64_t{detail::reduce_block} * 4));
  config.block = Dim3(detail::reduce_block);
  config.stream = StreamRef{stream.native()};
  pack.launch(kernel, config);
  return out;
}

}  // namespace cudakit
