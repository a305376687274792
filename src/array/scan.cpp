#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "array/elementwise_eval.hpp"
#include "array/kernel_view.hpp"
#include "array/reduce_ops.hpp"
#include "array/reduce_source_hook.hpp"
#include "array/reduce_workspace.hpp"
#include "array/scan_codegen.hpp"
#include "array/stream_order.hpp"
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
// `line_length` consecutive i) into the C-contiguous `out`. With out_inner 1
// the flat order of `out` is that index space; otherwise `out` is in the
// operand's own axis order, the index space being its other axes (C order)
// then the scanned one, which `out` steps through by out_inner elements (the
// product of the extents after it).
//
// With `out_view` (a flat scan only), `out` may have any layout: the kernels
// write it through a view struct, element i at its C-order position i.
void run_scan(const Expr& expr, detail::ScanSpec spec, const std::vector<int>& axis_order,
              std::int64_t n_lines, std::int64_t line_length, Array& out,
              const std::string& key_extra, std::int64_t out_inner = 1,
              const detail::KernelView* out_view = nullptr) {
  const std::string what = "cudakit::" + spec.name;
  const Array& anchor = detail::first_array_of(expr, what.c_str());
  const Device device = anchor.device();
  const Stream stream = out.stream();
  const std::int64_t n = n_lines * line_length;
  if (n == 0) return;
  detail::order_after_operands(stream, expr, &out);

  detail::CodegenOptions options;
  options.index_name = "i";
  options.prefix = "m";
  options.axis_order = axis_order;
  options.index64 = n >= (std::int64_t{1} << 31);
  detail::FusedMap map = detail::codegen_map(expr, options);
  spec.map_expr = map.element;
  spec.params = map.params;
  spec.preamble = map.preamble + (spec.preamble.empty() ? "" : "\n" + spec.preamble);
  spec.strided_out = out_inner != 1;
  std::string out_key;
  if (out_view) {
    spec.out_param = detail::kernel_view_type("ck_out") + " ck_out";
    spec.preamble += "\n" + detail::kernel_view_source("ck_out", spec.out_type + "*", *out_view);
    out_key = "|out:" + detail::kernel_view_key(*out_view);
  }
  // The output argument: its pointer, or its view struct.
  auto push_out = [&](detail::ArgPack& args) {
    if (out_view) {
      const auto bytes = detail::kernel_view_bytes(out, *out_view);
      args.push_aggregate(bytes.data(), bytes.size());
    } else {
      args.push_pointer(out.address());
    }
  };
  const std::string kernel_base = "ck_" + spec.name;
  const std::string key = "scan|" + std::string(spec.strided_out ? "strided-out|" : "") +
                          spec.name + "|" + spec.value_type + "|" + spec.out_type + "|" +
                          spec.scan_expr + "|" + spec.neutral.value_or("<none>") + "|" +
                          (spec.exclusive ? "x" : "i") + "|" + key_extra + "|" + map.key + out_key;
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
    push_out(args);
    args.push_scalar<long long>(n_lines);
    args.push_scalar<long long>(line_length);
    if (spec.strided_out) args.push_scalar<long long>(out_inner);
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
    if (spec.strided_out) {
      // The line's first output element (see scan_source).
      const std::int64_t first = (line / out_inner) * len * out_inner + line % out_inner;
      args.push_pointer(out.address() + static_cast<std::uint64_t>(first) * out.itemsize());
    } else {
      push_out(args);
    }
    args.push_pointer(workspace.partials);
    args.push_scalar<long long>(len);
    args.push_scalar<long long>(chunk);
    args.push_scalar<long long>(line * len);
    if (spec.strided_out) args.push_scalar<long long>(out_inner);
    args.launch(write, config);
  }
}

// Scans `expr` along an axis that has `inner` elements after it with a thread
// per column, in the operand's own C order (reads and writes of neighbouring
// threads are neighbours), into the C-contiguous `out` of the operand's shape.
void run_column_scan(const Expr& expr, detail::ScanSpec spec, std::int64_t n_columns,
                     std::int64_t line_length, std::int64_t inner, Array& out) {
  const std::string what = "cudakit::" + spec.name;
  const Device device = detail::first_array_of(expr, what.c_str()).device();
  const std::int64_t n = n_columns * line_length;
  if (n == 0) return;
  detail::order_after_operands(out.stream(), expr, &out);
  detail::CodegenOptions options;
  options.index_name = "i";
  options.prefix = "m";
  options.index64 = n >= (std::int64_t{1} << 31);
  detail::FusedMap map = detail::codegen_map(expr, options);
  spec.map_expr = map.element;
  spec.params = map.params;
  spec.preamble = map.preamble + (spec.preamble.empty() ? "" : "\n" + spec.preamble);
  const std::string kernel_base = "ck_" + spec.name;
  const std::string key = "scan-columns|" + spec.name + "|" + spec.value_type + "|" +
                          spec.out_type + "|" + spec.scan_expr + "|" +
                          spec.neutral.value_or("<none>") + "|" + (spec.exclusive ? "x" : "i") +
                          "|" + map.key;
  spec.name = kernel_base;
  auto source = [&] { return detail::codegen_prelude() + "\n" + detail::column_scan_source(spec); };
  detail::observe_source(kernel_base + "_columns", source);
  const Kernel columns = detail::cached_kernel(device, key, kernel_base + "_columns", source);
  detail::ArgPack args = map.args;
  args.push_pointer(out.address());
  args.push_scalar<long long>(n_columns);
  args.push_scalar<long long>(line_length);
  args.push_scalar<long long>(inner);
  LaunchConfig config =
      detail::elementwise_config(device, n_columns, StreamRef{out.stream().native()});
  args.launch(columns, config);
}

// Whether a scan along a non-innermost axis runs a thread per column (else a
// block per line, writing through the output's stride). A column is walked
// serially, so it needs enough columns to fill the device (256 threads per
// multiprocessor); short lines would leave a block per line mostly idle.
bool scan_by_columns(const Device& device, std::int64_t n_columns, std::int64_t line_length) {
  const std::int64_t multiprocessors = std::max(1, device.properties().multiprocessor_count);
  return n_columns >= 256 * multiprocessors || line_length <= 64;
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
  // NumPy's result: the operand's shape, C-contiguous.
  Array out = empty(a.shape(), out_dtype, anchor.stream());
  const std::int64_t length = a.shape()[static_cast<std::size_t>(ax)];
  if (n == 0) return out;
  const std::int64_t n_lines = n / length;
  std::int64_t inner = 1;
  for (int d = ax + 1; d < ndim; ++d) inner *= a.shape()[static_cast<std::size_t>(d)];
  if (inner == 1) {
    // The innermost axis (up to extent-1 axes): lines of consecutive i.
    run_scan(a, spec, {}, n_lines, length, out, "axis");
    return out;
  }
  if (scan_by_columns(anchor.device(), n_lines, length)) {
    run_column_scan(a, spec, n_lines, length, inner, out);
    return out;
  }
  // Index space: every other axis, then the scanned one (its lines are
  // consecutive i); each line is written through the output's stride.
  std::vector<int> order;
  for (int d = 0; d < ndim; ++d)
    if (d != ax) order.push_back(d);
  order.push_back(ax);
  run_scan(a, spec, order, n_lines, length, out, "axis", inner);
  return out;
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
  // Any other layout is written through a view struct, unless it overlaps
  // the input in another layout (then through a temporary). Reading and
  // writing the same elements in the same layout is safe: each element is
  // read before it is written, by the same thread.
  const bool identical = input.address() == output.address() && input.shape() == output.shape() &&
                         input.strides() == output.strides();
  if (!output.readonly() && (identical || !output.may_share_memory(input))) {
    const detail::KernelView view = detail::kernel_view(output);
    run_scan(source, spec, {}, 1, input.size(), output, "kernel", 1,
             view.plain() ? nullptr : &view);
    return;
  }
  Array staged = empty(output.shape(), dtype_, output.stream());
  run_scan(source, spec, {}, 1, input.size(), staged, "kernel");
  output.assign(staged);
}

}  // namespace cudakit
