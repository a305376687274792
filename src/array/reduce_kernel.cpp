#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <string>

#include "array/array_util.hpp"
#include "array/reduce_codegen.hpp"
#include "array/reduce_ops.hpp"
#include "array/reduce_source_hook.hpp"
#include "array/reduce_workspace.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/error.hpp"
#include "cudakit/reduction_kernel.hpp"

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

// "const float * __restrict__" -> "float"; "unsigned   int" -> "unsigned int".
std::string base_type(const std::string& type) {
  std::string words, word;
  auto flush = [&] {
    if (!word.empty() && word != "const" && word != "volatile" && word != "__restrict__" &&
        word != "restrict") {
      if (!words.empty()) words += ' ';
      words += word;
    }
    word.clear();
  };
  for (char c : type) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
      word += c;
    else
      flush();
  }
  flush();
  return words;
}

std::optional<DType> dtype_of_c_type(const std::string& name) {
  static const std::map<std::string, DType> table = {
      {"bool", DType::bool_},
      {"char", DType::int8},
      {"signed char", DType::int8},
      {"unsigned char", DType::uint8},
      {"short", DType::int16},
      {"unsigned short", DType::uint16},
      {"int", DType::int32},
      {"unsigned int", DType::uint32},
      {"unsigned", DType::uint32},
      {"long", DType::int64},
      {"unsigned long", DType::uint64},
      {"long long", DType::int64},
      {"unsigned long long", DType::uint64},
      {"int8_t", DType::int8},
      {"int16_t", DType::int16},
      {"int32_t", DType::int32},
      {"int64_t", DType::int64},
      {"uint8_t", DType::uint8},
      {"uint16_t", DType::uint16},
      {"uint32_t", DType::uint32},
      {"uint64_t", DType::uint64},
      {"float", DType::float32},
      {"double", DType::float64},
      {"__half", DType::float16},
      {"half", DType::float16},
      {"__nv_bfloat16", DType::bfloat16},
  };
  auto it = table.find(name);
  if (it != table.end()) return it->second;
  for (int d = 0; d < dtype_count; ++d)
    if (c_type_name(static_cast<DType>(d)) == name) return static_cast<DType>(d);
  return std::nullopt;
}

std::vector<ReductionKernel::Param> parse_arguments(const std::string& arguments) {
  std::vector<ReductionKernel::Param> params;
  if (trim(arguments).empty()) return params;
  std::size_t start = 0;
  while (start <= arguments.size()) {
    std::size_t comma = arguments.find(',', start);
    if (comma == std::string::npos) comma = arguments.size();
    const std::string piece = trim(arguments.substr(start, comma - start));
    std::size_t end = piece.size();
    while (end > 0 &&
           (std::isalnum(static_cast<unsigned char>(piece[end - 1])) || piece[end - 1] == '_'))
      --end;
    ReductionKernel::Param p;
    p.name = piece.substr(end);
    p.type = trim(piece.substr(0, end));
    p.pointer = p.type.find('*') != std::string::npos;
    if (!is_identifier(p.name) || p.type.empty())
      throw ArgumentError(what, "cannot read parameter '" + piece + "' of \"" + arguments + "\"",
                          "write parameters as in C: \"const float* x, int n\"");
    params.push_back(std::move(p));
    start = comma + 1;
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

// How a pointer argument reaches the map: as the array's own pointer when it
// is C-contiguous, or as a small struct whose operator[] turns the flat C-order
// index into the view's memory offset (transposes, steps, negative steps,
// broadcast axes), so `x[i]` means the same element either way.
struct ViewLayout {
  Shape shape;      // coalesced: extent-1 axes dropped, mergeable neighbours merged
  Strides strides;  // elements, per coalesced axis
  bool index64 = false;
};

ViewLayout view_layout(const Array& a) {
  ViewLayout v;
  for (std::size_t k = 0; k < a.shape().size(); ++k) {
    const std::int64_t extent = a.shape()[k], stride = a.strides()[k];
    if (extent == 1) continue;
    if (!v.shape.empty() && v.strides.back() == stride * extent) {
      v.shape.back() *= extent;
      v.strides.back() = stride;
    } else {
      v.shape.push_back(extent);
      v.strides.push_back(stride);
    }
  }
  // Offsets and the flat index in 32 bits whenever they fit: a 64-bit
  // division costs several times a 32-bit one on a GPU.
  const std::int64_t limit = (std::int64_t{1} << 31) - 1;
  std::int64_t span = 0;
  for (std::size_t k = 0; k < v.shape.size(); ++k)
    span += (v.strides[k] < 0 ? -v.strides[k] : v.strides[k]) * (v.shape[k] - 1);
  v.index64 = span >= limit || a.size() >= limit;
  return v;
}

// True when the map uses parameter `name` other than as `name[...]` (pointer
// arithmetic, passing it on): such a map needs a real pointer.
bool used_other_than_indexed(const std::string& map_expr, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t pos = map_expr.find(name); pos != std::string::npos;
       pos = map_expr.find(name, pos + 1)) {
    const std::size_t end = pos + name.size();
    if (pos > 0 && ident(map_expr[pos - 1])) continue;
    if (end < map_expr.size() && ident(map_expr[end])) continue;
    // A member or qualified name (s.x, p->x, ns::x) is another thing.
    std::size_t before = pos;
    while (before > 0 && std::isspace(static_cast<unsigned char>(map_expr[before - 1]))) --before;
    if (before > 0 && (map_expr[before - 1] == '.' || map_expr[before - 1] == ':' ||
                       (map_expr[before - 1] == '>' && before > 1 && map_expr[before - 2] == '-')))
      continue;
    std::size_t after = end;
    while (after < map_expr.size() && std::isspace(static_cast<unsigned char>(map_expr[after])))
      ++after;
    if (after >= map_expr.size() || map_expr[after] != '[') return true;
  }
  return false;
}

std::string view_type_name(const ReductionKernel::Param& p) { return "ck_view_" + p.name; }

// The element type as declared, qualifiers kept: "const float * __restrict__" -> "const float".
std::string pointee_text(const ReductionKernel::Param& p) {
  return trim(p.type.substr(0, p.type.find('*')));
}

std::string view_struct_source(const ReductionKernel::Param& p, const ViewLayout& v) {
  const std::string it = v.index64 ? "long long" : "int";
  const std::string t = pointee_text(p);
  const std::string nd = std::to_string(v.shape.size());
  std::string s;
  s += "// '" + p.name + "' is a strided view: element j (C order) is at ptr[offset(j)].\n";
  s += "struct " + view_type_name(p) + " {\n";
  s += "  " + t + "* ptr;\n";
  s += "  " + it + " shape[" + nd + "];\n";
  s += "  " + it + " strides[" + nd + "];\n";
  s += "  __device__ __forceinline__ " + t + "& operator[](long long j) const {\n";
  s += "    " + it + " rest = (" + it + ")j;\n";
  s += "    " + it + " offset = 0;\n";
  for (std::size_t d = v.shape.size(); d-- > 1;) {
    const std::string ds = std::to_string(d);
    s += "    offset += (rest % shape[" + ds + "]) * strides[" + ds + "];\n";
    s += "    rest /= shape[" + ds + "];\n";
  }
  s += "    offset += rest * strides[0];\n";
  s += "    return ptr[offset];\n";
  s += "  }\n";
  s += "  __device__ __forceinline__ " + t + "& operator*() const { return ptr[0]; }\n";
  s += "};\n";
  return s;
}

// The struct's bytes as the kernel lays it out: the pointer, then the
// extents and strides in the index type, padded to the pointer's alignment.
std::vector<unsigned char> view_struct_bytes(const Array& a, const ViewLayout& v) {
  const std::size_t width = v.index64 ? 8 : 4;
  const std::size_t nd = v.shape.size();
  std::vector<unsigned char> bytes((8 + 2 * nd * width + 7) / 8 * 8, 0);
  const std::uint64_t address = a.address();
  std::memcpy(bytes.data(), &address, 8);
  auto put = [&](std::size_t slot, std::int64_t value) {
    unsigned char* at = bytes.data() + 8 + slot * width;
    if (v.index64) {
      std::memcpy(at, &value, 8);
    } else {
      const auto narrow = static_cast<std::int32_t>(value);
      std::memcpy(at, &narrow, 4);
    }
  };
  for (std::size_t d = 0; d < nd; ++d) {
    put(d, v.shape[d]);
    put(nd + d, v.strides[d]);
  }
  return bytes;
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
      const auto pointee = dtype_of_c_type(base_type(p.type.substr(0, p.type.find('*'))));
      if (pointee && *pointee != a->dtype())
        throw ArgumentError(context,
                            which + " got an array of " + std::string(to_string(a->dtype())));
      if (first == nullptr)
        first = a;
      else if (!(a->device() == first->device()))
        throw ArgumentError(context, which + " is on " + a->device().describe() +
                                         ", the first array on " + first->device().describe());
      const ViewLayout view = a->is_c_contiguous() ? ViewLayout{} : view_layout(*a);
      if (view.shape.empty() || (view.shape.size() == 1 && view.strides[0] == 1)) {
        params += p.type + " " + p.name;
        layout_key += "|c";
        pack.push_pointer(a->address());
      } else if (used_other_than_indexed(map_expr_, p.name)) {
        // The map needs a real pointer: one extra pass makes a contiguous
        // copy, on the launch's stream (writes through it would land in the copy).
        Array copy = empty(a->shape(), a->dtype(), first->stream());
        copy.assign(*a);
        staged.push_back(copy);
        params += p.type + " " + p.name;
        layout_key += "|c";
        pack.push_pointer(staged.back().address());
      } else {
        params += view_type_name(p) + " " + p.name;
        views += view_struct_source(p, view);
        layout_key += "|s" + std::to_string(view.shape.size()) + (view.index64 ? "l" : "i");
        const auto bytes = view_struct_bytes(*a, view);
        pack.push_aggregate(bytes.data(), bytes.size());
      }
    } else {
      params += p.type + " " + p.name;
      const Scalar* s = std::get_if<Scalar>(&args[k]);
      if (s == nullptr) throw ArgumentError(context, which + " needs a number, got an Array");
      const auto type = dtype_of_c_type(base_type(p.type));
      if (!type)
        throw ArgumentError(context, which + ": unknown scalar type",
                            "use a plain C arithmetic type");
      unsigned char bytes[16] = {};
      s->store(*type, bytes);
      pack.push_raw(ParamKind::scalar, detail::scalar_type_for(*type), bytes, itemsize(*type),
                    "scalar");
    }
  }
  const Device device = first->device();
  const Stream stream = first->stream();
  const std::int64_t n = first->size();
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
