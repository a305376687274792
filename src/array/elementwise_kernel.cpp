// ElementwiseKernel: parsing the argument list, generating the loop kernel,
// and checking / converting the call's arguments.
#include "cudakit/elementwise_kernel.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include "array/array_util.hpp"
#include "array/elementwise_eval.hpp"
#include "array/kernel_view.hpp"
#include "array/reduce_source_hook.hpp"
#include "array/stream_order.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/error.hpp"
#include "cudakit/program.hpp"
#include "support/c_types.hpp"

namespace cudakit {

using detail::array_error;

struct ElementwiseKernel::State {
  std::string arguments, operation, name, preamble, loop_prep, after_loop;
  CompileOptions options;
  std::vector<Param> params;
};

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\n\r");
  auto e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The argument list, split at its top-level commas by the core's C-types
// module (so "Pair<int, float>* p" stays one argument).
std::vector<ElementwiseKernel::Param> parse_arguments(const std::string& text) {
  std::vector<ElementwiseKernel::Param> out;
  for (const std::string& piece : detail::split_c_list(text)) {
    if (piece.empty())
      array_error("ElementwiseKernel", "empty entry in the argument list \"" + text + "\"");
    const detail::CDeclaration decl = detail::split_c_declaration(piece);
    if (decl.name.empty() || decl.type.empty())
      array_error("ElementwiseKernel",
                  "cannot read argument \"" + piece + "\": write it as \"type name\"");
    ElementwiseKernel::Param p;
    p.name = decl.name;
    p.type = decl.type;
    p.pointer = detail::classify_c_type(p.type).kind == ParamKind::pointer;
    p.dtype = detail::dtype_of_c_type(p.pointer ? detail::pointee_c_type(p.type) : p.type);
    // Any other value type (float3, a struct of the preamble) is a struct
    // passed by value: the compiled parameter's size checks its bytes.
    p.by_value_struct = !p.pointer && !p.dtype;
    out.push_back(p);
  }
  return out;
}

}  // namespace

ElementwiseKernel::ElementwiseKernel(std::string arguments, std::string operation, std::string name,
                                     std::string preamble, CompileOptions options,
                                     std::string loop_prep, std::string after_loop) {
  auto s = std::make_shared<State>();
  s->arguments = std::move(arguments);
  s->operation = std::move(operation);
  s->name = std::move(name);
  s->preamble = std::move(preamble);
  s->options = std::move(options);
  s->options.no_extern_c = true;
  s->loop_prep = std::move(loop_prep);
  s->after_loop = std::move(after_loop);
  if (s->name.empty() ||
      !(std::isalpha(static_cast<unsigned char>(s->name[0])) || s->name[0] == '_'))
    array_error("ElementwiseKernel", "the kernel name '" + s->name + "' is not a C identifier");
  if (trim(s->operation).empty())
    array_error("ElementwiseKernel " + s->name, "the operation is empty");
  s->params = parse_arguments(s->arguments);
  state_ = s;
}

const std::string& ElementwiseKernel::name() const noexcept { return state_->name; }
const std::vector<ElementwiseKernel::Param>& ElementwiseKernel::params() const noexcept {
  return state_->params;
}

namespace {

// Statements run once per thread around the loop (PyCUDA's loop_prep and
// after_loop), and the names PyCUDA's kernels give them.
struct LoopFrame {
  std::string loop_prep, after_loop;
  bool declares_tid = false, declares_total_threads = false, declares_cta_start = false;
  bool empty() const { return loop_prep.empty() && after_loop.empty(); }
};

// The kernel for `arguments` (the parameter list as the kernel declares it)
// and `preamble` (the user's, and the view structs of strided arguments).
std::string render_kernel(const std::string& name, const std::string& arguments,
                          const std::string& preamble, const std::string& operation,
                          bool declares_n, bool index64, const LoopFrame& frame) {
  const std::string it = index64 ? "long long" : "int";
  std::string src = detail::codegen_prelude();
  if (!preamble.empty()) src += "\n" + preamble + "\n";
  src += "\nextern \"C\" __global__ void " + name + "(" + arguments +
         (arguments.empty() ? "" : ", ") + it + " cudakit_start, " + it + " cudakit_count, " + it +
         " cudakit_step, " + it + " cudakit_n) {\n";
  // PyCUDA's operations may read `n`, the first array's size; an argument of
  // that name takes precedence.
  if (!declares_n) src += "  const " + it + " n = cudakit_n;\n  (void)n;\n";
  // Launched with a grid that covers the range (one index per thread) where
  // the device allows it; the loop covers the rest (capped grids, the CPU
  // backend's one wave).
  src += "  const " + it + " cudakit_threads = (" + it + ")gridDim.x * (" + it + ")blockDim.x;\n";
  src += "  const " + it + " cudakit_first = (" + it + ")blockIdx.x * (" + it + ")blockDim.x + (" +
         it + ")threadIdx.x;\n";
  if (!frame.empty()) {
    // Declared only with a loop_prep / after_loop, so that other kernels'
    // sources (and cache keys) stay as they were.
    if (!frame.declares_tid) src += "  const " + it + " tid = threadIdx.x;\n  (void)tid;\n";
    if (!frame.declares_total_threads)
      src += "  const " + it + " total_threads = cudakit_threads;\n  (void)total_threads;\n";
    if (!frame.declares_cta_start)
      src += "  const " + it + " cta_start = (" + it + ")blockIdx.x * (" + it +
             ")blockDim.x;\n  (void)cta_start;\n";
    if (!frame.loop_prep.empty()) src += "  " + frame.loop_prep + ";\n";
  }
  // The loop counts positions, not indices: start + k * step stays between
  // the range's ends for k < count, where stepping the index itself could
  // overflow past them with a huge step.
  src += "  for (" + it + " cudakit_k = cudakit_first; cudakit_k < cudakit_count;\n";
  src += "       cudakit_k += cudakit_threads) {\n";
  src += "    const " + it + " i = cudakit_start + cudakit_k * cudakit_step;\n";
  src += "    " + operation + ";\n  }\n";
  if (!frame.after_loop.empty()) src += "  " + frame.after_loop + ";\n";
  src += "}\n";
  return src;
}

bool declares(const std::vector<ElementwiseKernel::Param>& params, const char* name) {
  return std::any_of(params.begin(), params.end(),
                     [&](const ElementwiseKernel::Param& p) { return p.name == name; });
}
bool declares_n(const std::vector<ElementwiseKernel::Param>& params) {
  return declares(params, "n");
}

LoopFrame loop_frame(const std::string& loop_prep, const std::string& after_loop,
                     const std::vector<ElementwiseKernel::Param>& params) {
  LoopFrame f;
  f.loop_prep = trim(loop_prep);
  f.after_loop = trim(after_loop);
  f.declares_tid = declares(params, "tid");
  f.declares_total_threads = declares(params, "total_threads");
  f.declares_cta_start = declares(params, "cta_start");
  return f;
}

// Whether the options are the defaults the generated kernels' cache compiles
// with; other options (-D, --use_fast_math, -G, extra flags) must reach the
// compiler, so such kernels compile through the compile cache instead.
bool default_options(const CompileOptions& o) {
  return o.defines.empty() && o.include_dirs.empty() && o.headers.empty() &&
         o.extra_flags.empty() && !o.debug && !o.line_info && !o.fast_math && o.arch.empty() &&
         o.std == CompileOptions{}.std;
}

// Every array the operation indexes as `name[i]` must hold each index the
// loop runs (the first array's indices, or the range= / slice= given):
// otherwise the kernel would read or write past its end.
void check_arrays_cover(const std::string& name, const std::string& operation,
                        const std::vector<ElementwiseKernel::Param>& params,
                        const std::vector<ElementwiseKernel::Arg>& args,
                        const ElementwiseKernel::Range& r, std::int64_t count, bool explicit_range,
                        const Array& first) {
  std::int64_t last = 0;
  const bool overflow = __builtin_mul_overflow(count - 1, r.step, &last) ||
                        __builtin_add_overflow(last, r.start, &last);
  const std::int64_t low =
      overflow ? std::numeric_limits<std::int64_t>::min() : std::min(r.start, last);
  const std::int64_t high =
      overflow ? std::numeric_limits<std::int64_t>::max() : std::max(r.start, last);
  std::string short_arrays;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const auto* a = std::get_if<Array>(&args[k]);
    const ElementwiseKernel::Param& p = params[k];
    if (a == nullptr || !detail::indexed_by_loop_index(operation, p.name)) continue;
    if (low >= 0 && high < a->size()) continue;
    short_arrays += (short_arrays.empty() ? "" : ", ") + std::string("'") + p.name + "' (" +
                    std::to_string(a->size()) + " elements)";
  }
  if (short_arrays.empty()) return;
  std::string sizes;
  for (std::size_t k = 0; k < args.size(); ++k)
    if (const auto* a = std::get_if<Array>(&args[k]))
      sizes += (sizes.empty() ? "" : ", ") + params[k].name + ": " + std::to_string(a->size());
  const std::string indices = low == high
                                  ? "index " + std::to_string(low)
                                  : "indices " + std::to_string(low) + ".." + std::to_string(high);
  const std::string source =
      explicit_range ? "the range given (start " + std::to_string(r.start) + ", stop " +
                           std::to_string(r.stop) + ", step " + std::to_string(r.step) + ")"
                     : "the first array's size, " + std::to_string(first.size());
  array_error("ElementwiseKernel " + name,
              "the operation indexes " + short_arrays + " with i, which runs over " + indices +
                  " (" + source + "); array sizes: " + sizes,
              "pass arrays of the same size, or range= / slice= covering only the indices "
              "every array has");
}

// A value argument against its parameter: a struct for a struct type, a
// number for a number type.
void check_value_argument(const std::string& context, const std::string& what,
                          const ElementwiseKernel::Param& p, const ElementwiseKernel::Arg& arg) {
  const auto* record = std::get_if<StructValue>(&arg);
  if (p.by_value_struct && record == nullptr)
    array_error(context, what + " is a struct passed by value, but a number was passed",
                "pass a numpy record of its layout (e.g. gpuarray.vec.make_" + p.type +
                    "(...) for a vector type), or a StructValue with its bytes in C++");
  if (!p.by_value_struct && record != nullptr)
    array_error(context, what + " is a number, but " + record->description + " was passed",
                "pass a number, or declare the parameter with the struct's type");
}

}  // namespace

std::string ElementwiseKernel::source(bool index64) const {
  const State& s = *state_;
  return render_kernel(s.name, s.params.empty() ? std::string() : s.arguments, s.preamble,
                       s.operation, declares_n(s.params), index64,
                       loop_frame(s.loop_prep, s.after_loop, s.params));
}

void ElementwiseKernel::operator()(const std::vector<Arg>& args, const Slice& slice) const {
  const Array* first = nullptr;
  for (const auto& a : args)
    if (const auto* arr = std::get_if<Array>(&a)) {
      first = arr;
      break;
    }
  if (!first)
    array_error("ElementwiseKernel " + name(),
                "slice= needs an array argument to take the size from");
  // Python's slice.indices(n); the range ends one step past the last index
  // (or at the start when empty), which range_length() counts back exactly.
  const detail::SliceIndices r =
      detail::slice_indices(slice, first->size(), "ElementwiseKernel " + name());
  run(args,
      Range{r.start,
            r.length == 0 ? r.start : r.start + (r.length - 1) * r.step + (r.step > 0 ? 1 : -1),
            r.step});
}

void ElementwiseKernel::run(const std::vector<Arg>& args, std::optional<Range> range,
                            const Stream* stream) const {
  const State& s = *state_;
  const std::string context = "ElementwiseKernel " + s.name;
  if (args.size() != s.params.size())
    array_error(context, "expected " + std::to_string(s.params.size()) + " arguments (" +
                             s.arguments + "), got " + std::to_string(args.size()));
  // The launch runs on `stream` (or the first array's), after the work
  // queued on the arrays' own streams.
  std::vector<const Array*> arrays;
  for (const auto& v : args)
    if (const Array* a = std::get_if<Array>(&v); a != nullptr && a->valid()) arrays.push_back(a);
  if (!arrays.empty())
    detail::order_after_operands(stream ? *stream : arrays.front()->stream(), arrays);
  const Array* first = nullptr;
  // How each array reaches the kernel: its pointer, or (strided) a view
  // struct, or a contiguous copy when the operation needs a real pointer.
  std::vector<detail::KernelView> views(args.size());
  std::vector<Array> staged;  // alive until the launch is queued
  std::vector<std::optional<std::uint64_t>> addresses(args.size());
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Param& p = s.params[k];
    const std::string what = "argument " + std::to_string(k) + " '" + p.name + "' (" + p.type + ")";
    if (const auto* a = std::get_if<Array>(&args[k])) {
      detail::check_valid(*a, context.c_str());
      if (!p.pointer) array_error(context, what + " is a value, but an array was passed");
      if (p.dtype && *p.dtype != a->dtype())
        array_error(context,
                    what + " points to " + std::string(to_string(*p.dtype)) +
                        " but the array holds " + std::string(to_string(a->dtype())),
                    "convert the array with astype(), or declare the matching element type");
      if (!first)
        first = a;
      else if (!(a->device() == first->device()))
        array_error(context, what + " is on " + a->device().describe() + ", the first array on " +
                                 first->device().describe());
      views[k] = detail::kernel_view(*a);
      if (views[k].plain()) {
        addresses[k] = a->address();
        continue;
      }
      const bool writable_type = !detail::kernel_view_pointee_is_const(p.type);
      if (a->readonly() && writable_type)
        array_error(context, what + " is a read-only view (a broadcast, or a read-only import)",
                    "declare the parameter const if the operation only reads it");
      if (detail::used_other_than_indexed(s.operation, p.name)) {
        if (writable_type)
          array_error(context,
                      what + " is a strided view (strides " + shape_to_string(a->strides()) +
                          ") that the operation uses other than as " + p.name +
                          "[...], so it needs flat memory, and writes to a copy would be lost",
                      "index it as " + p.name + "[i], or pass a contiguous array (copy())");
        // Read through a pointer: one extra pass makes a contiguous copy.
        Array copy = empty(a->shape(), a->dtype(), stream ? *stream : first->stream());
        copy.assign(*a);
        staged.push_back(copy);
        addresses[k] = copy.address();
        views[k] = detail::KernelView{};
      }
    } else if (p.pointer) {
      array_error(context,
                  what + " is a pointer, but " +
                      (std::holds_alternative<StructValue>(args[k]) ? "a struct" : "a number") +
                      " was passed");
    } else {
      check_value_argument(context, what, p, args[k]);
    }
  }
  if (!first)
    array_error(context, "at least one argument must be an array (its size sets the index range)");
  Range r = range ? *range : Range{0, first->size(), 1};
  if (r.step == 0) array_error(context, "the range step cannot be zero");
  const std::int64_t count = detail::range_length(r.start, r.stop, r.step);
  if (count == 0) return;
  check_arrays_cover(s.name, s.operation, s.params, args, r, count, range.has_value(), *first);
  const Device& device = first->device();
  // The fused expressions' launch shape: a grid covering the range on a GPU.
  const LaunchConfig config = detail::elementwise_config(
      device, count, stream ? StreamRef(*stream) : StreamRef(first->stream()));
  // 32-bit indices whenever every number the loop computes fits: each index
  // lies between start and the last index, and the position k stays below
  // count plus a grid.
  const std::uint64_t limit = (std::uint64_t{1} << 31) - 1;
  const auto threads = static_cast<std::uint64_t>(config.grid.x) * config.block.x;
  auto magnitude = [](std::int64_t v) {
    return v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  };
  // (|k * step| <= |stop - start| <= |start| + |stop|.)
  const bool index64 = magnitude(r.step) >= limit ||
                       magnitude(r.start) + magnitude(r.stop) >= limit ||
                       static_cast<std::uint64_t>(first->size()) >= limit ||
                       static_cast<std::uint64_t>(count) + threads >= limit;
  std::string key = "ek|" + s.name + "|" + s.arguments + "|" + s.operation + "|" + s.preamble +
                    "|" + s.loop_prep + "|" + s.after_loop + (index64 ? "|64" : "|32");
  // Strided arguments change the parameter list and add their view structs.
  std::string arguments, view_structs;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Param& p = s.params[k];
    if (!arguments.empty()) arguments += ", ";
    if (std::holds_alternative<Array>(args[k]) && !views[k].plain()) {
      arguments += detail::kernel_view_type(p.name) + " " + p.name;
      view_structs += detail::kernel_view_source(p.name, p.type, views[k]);
      key += "|" + p.name + ":" + detail::kernel_view_key(views[k]);
    } else {
      arguments += p.type + " " + p.name;
    }
  }
  auto make_source = [&] {
    if (view_structs.empty()) return source(index64);
    return render_kernel(s.name, arguments,
                         s.preamble.empty() ? view_structs : s.preamble + "\n" + view_structs,
                         s.operation, declares_n(s.params), index64,
                         loop_frame(s.loop_prep, s.after_loop, s.params));
  };
  detail::observe_source(s.name, make_source);
  // The kernel cache compiles with the default options; other options
  // (--use_fast_math, -G, -D...) compile through the compile cache.
  Kernel kernel = [&] {
    if (default_options(s.options)) return detail::cached_kernel(device, key, s.name, make_source);
    return compile(make_source(), s.options, device).kernel(s.name);
  }();
  detail::ArgPack pack;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const Param& p = s.params[k];
    if (const auto* a = std::get_if<Array>(&args[k])) {
      if (addresses[k]) {
        pack.push_pointer(*addresses[k]);
      } else {
        const auto bytes = detail::kernel_view_bytes(*a, views[k]);
        pack.push_aggregate(bytes.data(), bytes.size());
      }
      continue;
    }
    if (const auto* record = std::get_if<StructValue>(&args[k])) {
      pack.push_aggregate(record->bytes.data(), record->bytes.size());
      continue;
    }
    const Scalar& v = std::get<Scalar>(args[k]);
    DType d = *p.dtype;
    if (v.is_weak() && !v.fits(d))
      array_error(context, "argument " + std::to_string(k) + " '" + p.name + "' (" + p.type +
                               "): " + v.to_string() + " is out of range for " +
                               std::string(to_string(d)));
    if (is_integer(d) && (v.kind() == ScalarKind::floating || v.kind() == ScalarKind::complex))
      array_error(context,
                  "argument " + std::to_string(k) + " '" + p.name + "' (" + p.type +
                      ") is an integer, but " + v.to_string() + " was passed",
                  "pass an integer (the value would be truncated)");
    unsigned char bytes[16] = {};
    v.store(d, bytes);
    // 16-bit floats and complex numbers are structs in the kernel's source.
    if (is_complex(d) || d == DType::float16 || d == DType::bfloat16)
      pack.push_aggregate(bytes, itemsize(d));
    else
      pack.push_raw(ParamKind::scalar, scalar_type_of(d), bytes, itemsize(d), "scalar");
  }
  if (index64) {
    pack.push_scalar<long long>(r.start);
    pack.push_scalar<long long>(count);
    pack.push_scalar<long long>(r.step);
  } else {
    pack.push_scalar<int>(static_cast<int>(r.start));
    pack.push_scalar<int>(static_cast<int>(count));
    pack.push_scalar<int>(static_cast<int>(r.step));
  }
  if (index64)
    pack.push_scalar<long long>(first->size());
  else
    pack.push_scalar<int>(static_cast<int>(first->size()));
  pack.launch(kernel, config);
}

}  // namespace cudakit
