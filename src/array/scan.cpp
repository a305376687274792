#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>
#include <vector>

#include "array/reduce_ops.hpp"
#include "array/reduce_source_hook.hpp"
#include "array/reduce_workspace.hpp"
#include "array/scan_codegen.hpp"
#include "cudakit/array_scan.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/error.hpp"
#include "cudakit/scan_kernel.hpp"

namespace cudakit {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Scans the map of `expr` (index space in `axis_order`, lines of
// `line_length` consecutive i) into the C-contiguous `out`, whose flat order
// is that index space.
void run_scan(const Expr& expr, detail::ScanSpec spec, const std::vector<int>& axis_order,
              std::int64_t n_lines, std::int64_t line_length, Array& out,
              const std::string& key_extra) {
  const std::string what = "cudakit::" + spec.name;
  const Array& anchor = detail::first_array_of(expr, what.c_str());
  const Device device = anchor.device();
  const Stream stream = out.stream();
  const std::int64_t n = n_lines * line_length;
  if (n == 0) return;

  detail::CodegenOptions options;
  options.index_name = "i";
  options.prefix = "m";
  options.axis_order = axis_order;
  options.index64 = n >= (std::int64_t{1} << 31);
  detail::FusedMap map = detail::codegen_map(expr, options);
  spec.map_expr = map.element;
  spec.params = map.params;
  spec.preamble = map.preamble + (spec.preamble.empty() ? "" : "\n" + spec.preamble);
  const std::string kernel_base = "ck_" + spec.name;
  const std::string key = "scan|" + spec.name + "|" + spec.value_type + "|" + spec.out_type + "|" +
                          spec.scan_expr + "|" + spec.neutral.value_or("<none>") + "|" +
                          (spec.exclusive ? "x" : "i") + "|" + key_extra + "|" + map.key;
  spec.name = kernel_base;
  auto source = [&] { return detail::codegen_prelude() + "\n" + detail::scan_source(spec); };
  detail::observe_source(kernel_base, source);

  LaunchConfig config;
  config.block = Dim3(detail::scan_threads);
  config.stream = StreamRef{stream.native()};
  // Many lines: a block per line. A few long ones (or one): each line is
  // scanned by the whole device in turn.
  if (n_lines > 32 || (n_lines > 1 && line_length < 65536)) {
    const Kernel lines =
        detail::cached_kernel(device, key + "|lines", kernel_base + "_lines", source);
    detail::ArgPack args = map.args;
    args.push_pointer(out.address());
    args.push_scalar<long long>(n_lines);
    args.push_scalar<long long>(line_length);
    const int multiprocessors = std::max(1, device.properties().multiprocessor_count);
    config.grid = Dim3(
        static_cast<unsigned>(std::min<std::int64_t>(n_lines, std::int64_t{multiprocessors} * 16)));
    args.launch(lines, config);
    return;
  }
  // Chunks are whole tiles; the number of blocks fills the device.
  const std::int64_t tile = detail::scan_tile;
  const std::int64_t len = line_length;
  const unsigned wanted = detail::reduction_grid(device, len, tile * 4);
  std::int64_t chunk = (len + wanted - 1) / wanted;
  chunk = (chunk + tile - 1) / tile * tile;
  const auto blocks = static_cast<unsigned>((len + chunk - 1) / chunk);
  config.grid = Dim3(blocks);
  const detail::ReduceWorkspace workspace = detail::reduce_workspace(device, stream.native());
  const Kernel partials =
      detail::cached_kernel(device, key + "|partials", kernel_base + "_partials", source);
  const Kernel write =
      detail::cached_kernel(device, key + "|write", kernel_base + "_write", source);
  for (std::int64_t line = 0; line < n_lines; ++line) {
    if (blocks > 1) {
      detail::ArgPack args = map.args;
      args.push_pointer(workspace.partials);
      args.push_pointer(workspace.counter);
      args.push_scalar<long long>(len);
      args.push_scalar<long long>(chunk);
      args.push_scalar<long long>(line * len);
      args.launch(partials, config);
    }
    detail::ArgPack args = map.args;
    args.push_pointer(out.address());
    args.push_pointer(workspace.partials);
    args.push_scalar<long long>(len);
    args.push_scalar<long long>(chunk);
    args.push_scalar<long long>(line * len);
    args.launch(write, config);
  }
}

Array cumulative(const Expr& a, std::optional<int> axis, bool product) {
  const char* name = product ? "cumprod" : "cumsum";
  const std::string what = std::string("cudakit::") + name;
  const DType out_dtype = detail::sum_dtype(a.dtype());
  detail::ScanSpec spec;
  spec.name = name;
  spec.value_type = detail::accumulator_type(out_dtype);
  spec.out_type = std::string(c_type_name(out_dtype));
  spec.scan_expr = product ? "a * b" : "a + b";
  spec.neutral = product ? "(ck_value_t)1" : "(ck_value_t)0";
  spec.store_expr = detail::store_as(out_dtype, "ck_r");
  const Array& anchor = detail::first_array_of(a, what.c_str());
  const std::int64_t n = shape_size(a.shape());

  if (!axis) {
    Array out = empty({n}, out_dtype, anchor.stream());
    run_scan(a, spec, {}, 1, n, out, "flat");
    return out;
  }
  const int ndim = a.ndim();
  if (*axis < -ndim || *axis >= ndim)
    throw ArgumentError(what, "axis " + std::to_string(*axis) +
                                  " is out of bounds for an array of dimension " +
                                  std::to_string(ndim));
  const int ax = *axis < 0 ? *axis + ndim : *axis;
  // Index space: every other axis, then the scanned one (its lines are consecutive).
  std::vector<int> order;
  for (int d = 0; d < ndim; ++d)
    if (d != ax) order.push_back(d);
  order.push_back(ax);
  Shape permuted;
  for (int d : order) permuted.push_back(a.shape()[static_cast<std::size_t>(d)]);
  Array out = empty(permuted, out_dtype, anchor.stream());
  const std::int64_t length = a.shape()[static_cast<std::size_t>(ax)];
  std::vector<int> identity(order.size());
  std::iota(identity.begin(), identity.end(), 0);
  run_scan(a, spec, order == identity ? std::vector<int>{} : order, length == 0 ? 0 : n / length,
           length, out, "axis");
  if (order == identity) return out;
  // Back to the operand's axis order (a view).
  std::vector<int> inverse(order.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    inverse[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  return out.transpose(inverse);
}

}  // namespace

Array cumsum(const Expr& a, std::optional<int> axis) { return cumulative(a, axis, false); }
Array cumprod(const Expr& a, std::optional<int> axis) { return cumulative(a, axis, true); }

ScanKernel::ScanKernel(DType dtype, std::string scan_expr, std::optional<std::string> neutral,
                       std::string name, std::string preamble, bool exclusive)
    : dtype_(dtype),
      scan_expr_(std::move(scan_expr)),
      neutral_(std::move(neutral)),
      name_(std::move(name)),
      preamble_(std::move(preamble)),
      exclusive_(exclusive) {
  const char* what = exclusive ? "cudakit::ExclusiveScanKernel" : "cudakit::InclusiveScanKernel";
  if (scan_expr_.find_first_not_of(" \t\n") == std::string::npos)
    throw ArgumentError(what, "the scan expression is empty", "e.g. \"a + b\"");
  if (!is_identifier(name_))
    throw ArgumentError(what, "name '" + name_ + "' is not a C identifier");
  if (exclusive && (!neutral_ || neutral_->find_first_not_of(" \t\n") == std::string::npos))
    throw ArgumentError(what, "an exclusive scan needs a neutral element (its first output)");
}

Array ScanKernel::operator()(const Array& input) const {
  Array out = empty(input.shape(), dtype_, input.stream());
  (*this)(input, out);
  return out;
}

void ScanKernel::operator()(const Array& input, Array& output) const {
  const std::string what = "cudakit::ScanKernel " + name_;
  if (!input.valid() || !output.valid()) throw ArgumentError(what, "a null Array was passed");
  if (input.size() != output.size())
    throw ArgumentError(what, "input of " + std::to_string(input.size()) +
                                  " elements and output of " + std::to_string(output.size()) +
                                  " differ in size");
  if (output.dtype() != dtype_)
    throw ArgumentError(what, "output dtype " + std::string(to_string(output.dtype())) +
                                  " differs from the kernel's " + std::string(to_string(dtype_)));
  detail::ScanSpec spec;
  spec.name = name_;
  spec.value_type = std::string(c_type_name(compute_dtype(dtype_)));
  spec.out_type = std::string(c_type_name(dtype_));
  spec.scan_expr = scan_expr_;
  spec.neutral = neutral_;
  spec.exclusive = exclusive_;
  spec.store_expr = detail::store_as(dtype_, "ck_r");
  spec.preamble = preamble_;
  const Expr source = input.dtype() == dtype_ ? Expr(input) : astype(Expr(input), dtype_);
  if (output.is_c_contiguous()) {
    Array flat = output;
    run_scan(source, spec, {}, 1, input.size(), flat, "kernel");
    return;
  }
  Array staged = empty(output.shape(), dtype_, output.stream());
  run_scan(source, spec, {}, 1, input.size(), staged, "kernel");
  output.assign(staged);
}

}  // namespace cudakit
