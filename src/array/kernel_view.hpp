// Strided arrays as arguments of the kernel generators (ElementwiseKernel,
// ReductionKernel): a C-contiguous array reaches the user's code as its own
// pointer; any other layout (transposes, steps, negative steps, broadcast
// axes) as a small struct whose operator[] turns the flat C-order index into
// the view's memory offset, so `x[i]` names the same element either way.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "cudakit/array.hpp"
#include "support/c_types.hpp"

namespace cudakit::detail {

struct KernelView {
  Shape shape;      // coalesced: extent-1 axes dropped, axes walked as one merged
  Strides strides;  // elements, per coalesced axis
  bool index64 = false;
  // Whether the array is read as a plain pointer: C-contiguous, or a layout
  // that coalesces to unit steps (or a single element).
  bool plain() const { return shape.empty() || (shape.size() == 1 && strides[0] == 1); }
};

inline KernelView kernel_view(const Array& a) {
  KernelView v;
  if (a.is_c_contiguous()) return v;
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

// True when `code` uses the parameter `name` other than as `name[...]`
// (pointer arithmetic, passing it on): such code needs a real pointer.
inline bool used_other_than_indexed(const std::string& code, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t pos = code.find(name); pos != std::string::npos;
       pos = code.find(name, pos + 1)) {
    const std::size_t end = pos + name.size();
    if (pos > 0 && ident(code[pos - 1])) continue;
    if (end < code.size() && ident(code[end])) continue;
    // A member or qualified name (s.x, p->x, ns::x) is another thing.
    std::size_t before = pos;
    while (before > 0 && std::isspace(static_cast<unsigned char>(code[before - 1]))) --before;
    if (before > 0 && (code[before - 1] == '.' || code[before - 1] == ':' ||
                       (code[before - 1] == '>' && before > 1 && code[before - 2] == '-')))
      continue;
    std::size_t after = end;
    while (after < code.size() && std::isspace(static_cast<unsigned char>(code[after]))) ++after;
    if (after >= code.size() || code[after] != '[') return true;
  }
  return false;
}

// True when `code` indexes the parameter `name` with the loop's index, as
// `name[i]` (spaces allowed): the array must then hold every index the loop
// runs. Other uses (`lut[x[i]]`, `name[i + 1]`) are not read.
inline bool indexed_by_loop_index(const std::string& code, const std::string& name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto skip_space = [&](std::size_t p) {
    while (p < code.size() && std::isspace(static_cast<unsigned char>(code[p]))) ++p;
    return p;
  };
  for (std::size_t pos = code.find(name); pos != std::string::npos;
       pos = code.find(name, pos + 1)) {
    const std::size_t end = pos + name.size();
    if (pos > 0 && ident(code[pos - 1])) continue;
    if (end < code.size() && ident(code[end])) continue;
    std::size_t before = pos;  // a member or qualified name (s.x, p->x, ns::x) is another thing
    while (before > 0 && std::isspace(static_cast<unsigned char>(code[before - 1]))) --before;
    if (before > 0 && (code[before - 1] == '.' || code[before - 1] == ':' ||
                       (code[before - 1] == '>' && before > 1 && code[before - 2] == '-')))
      continue;
    std::size_t p = skip_space(end);
    if (p >= code.size() || code[p] != '[') continue;
    p = skip_space(p + 1);
    if (p >= code.size() || code[p] != 'i' || (p + 1 < code.size() && ident(code[p + 1]))) continue;
    p = skip_space(p + 1);
    if (p < code.size() && code[p] == ']') return true;
  }
  return false;
}

// The struct type that carries parameter `name` as a view.
inline std::string kernel_view_type(const std::string& name) { return "ck_view_" + name; }

// The element type as declared, qualifiers kept: "const float * __restrict__" -> "const float"
// (read by the core's C-types module: "Pair<int*, float>*" -> "Pair<int*, float>").
inline std::string kernel_view_pointee(const std::string& declared_type) {
  const std::string t = pointee_c_type(declared_type);
  const auto b = t.find_first_not_of(" \t\n\r");
  const auto e = t.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
}

// Whether the pointee of `declared_type` is const ("const float *",
// "float const *"): the code only reads through it.
inline bool kernel_view_pointee_is_const(const std::string& declared_type) {
  const std::string t = kernel_view_pointee(declared_type);
  for (const std::string_view token : tokenize_c(t))
    if (token == "const") return true;
  return false;
}

// The struct definition for parameter `name` declared as `declared_type`.
inline std::string kernel_view_source(const std::string& name, const std::string& declared_type,
                                      const KernelView& v) {
  const std::string it = v.index64 ? "long long" : "int";
  const std::string t = kernel_view_pointee(declared_type);
  const std::string nd = std::to_string(v.shape.size());
  std::string s;
  s += "// '" + name + "' is a strided view: element j (C order) is at ptr[offset(j)].\n";
  s += "struct " + kernel_view_type(name) + " {\n";
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
inline std::vector<unsigned char> kernel_view_bytes(const Array& a, const KernelView& v) {
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

// The layout pattern of a view for a kernel cache key: rank and index width.
inline std::string kernel_view_key(const KernelView& v) {
  return v.plain() ? "c" : "s" + std::to_string(v.shape.size()) + (v.index64 ? "l" : "i");
}

}  // namespace cudakit::detail
