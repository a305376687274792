#include "core/array_view_match.hpp"

#include <array>
#include <utility>

namespace cudakit::detail {
namespace {

// The C element types of a kernel's ArrayView<T, N> and the dtypes they hold.
constexpr std::array<std::pair<std::string_view, std::string_view>, 27> kElementDtypes{{
    {"bool", "bool"},
    {"signedchar", "int8"},
    {"int8_t", "int8"},
    {"unsignedchar", "uint8"},
    {"uint8_t", "uint8"},
    {"short", "int16"},
    {"int16_t", "int16"},
    {"unsignedshort", "uint16"},
    {"uint16_t", "uint16"},
    {"int", "int32"},
    {"int32_t", "int32"},
    {"unsigned", "uint32"},
    {"unsignedint", "uint32"},
    {"uint32_t", "uint32"},
    {"longlong", "int64"},
    {"longlongint", "int64"},
    {"int64_t", "int64"},
    {"unsignedlonglong", "uint64"},
    {"uint64_t", "uint64"},
    {"__half", "float16"},
    {"half", "float16"},
    {"__nv_bfloat16", "bfloat16"},
    {"float", "float32"},
    {"double", "float64"},
    {"cudakit_complex64", "complex64"},
    {"cudakit_complex128", "complex128"},
    {"float2", "complex64"},
}};

// The first template argument after "ArrayView<", without qualifiers,
// namespaces or spaces: "ArrayView<const std::int32_t, 2>" -> "int32_t".
std::string element_of(std::string_view type) {
  const auto open = type.find("ArrayView<");
  if (open == std::string_view::npos) return {};
  type.remove_prefix(open + 10);
  type = type.substr(0, type.find_first_of(",>"));
  std::string out;
  std::string word;
  auto flush = [&] {
    if (word != "const" && word != "volatile") out += word;
    word.clear();
  };
  for (char ch : type) {
    if (ch == ' ' || ch == '\t') {
      flush();
    } else if (ch == ':') {
      word.clear();  // drop a namespace qualifier
    } else {
      word += ch;
    }
  }
  flush();
  return out;
}

std::string_view dtype_of_element(std::string_view element) {
  for (const auto& [c_type, dtype] : kElementDtypes)
    if (c_type == element) return dtype;
  return {};
}

}  // namespace

std::optional<std::string> array_view_element_mismatch(std::string_view param_type,
                                                       std::string_view argument_type) {
  if (!argument_type.starts_with("ArrayView<")) return std::nullopt;
  const std::string element = element_of(param_type);
  const std::string_view want = dtype_of_element(element);
  if (want.empty()) return std::nullopt;
  std::string_view have = argument_type.substr(10);
  have = have.substr(0, have.find(','));
  if (have == want) return std::nullopt;
  return "the kernel's ArrayView holds " + element + " (" + std::string(want) + "), the array is " +
         std::string(have) + ": convert it with astype(" + std::string(want) +
         ") or declare the parameter with the array's element type";
}

}  // namespace cudakit::detail
