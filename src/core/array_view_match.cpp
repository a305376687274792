#include "core/array_view_match.hpp"

#include "support/c_types.hpp"

namespace cudakit::detail {
namespace {

// The first template argument of "ArrayView<...>" as a bare C type:
// "ArrayView<const std::int32_t, 2>" -> "int32_t"; empty when there is none.
std::string element_of(std::string_view type) {
  const auto open = type.find("ArrayView<");
  if (open == std::string_view::npos) return {};
  type.remove_prefix(open + 10);
  int depth = 1;
  std::size_t end = 0;
  while (end < type.size() && depth > 0) {
    if (type[end] == '<') ++depth;
    if (type[end] == '>') --depth;
    ++end;
  }
  const auto args = split_c_list(type.substr(0, depth == 0 ? end - 1 : end));
  return args.empty() ? std::string() : bare_c_type(args[0]);
}

// The dtype name an ArrayView element type holds: a scalar C type by the
// C-types table (its ScalarType's name is the dtype's), complex by name.
std::string dtype_of_element(const std::string& element) {
  if (element == "cudakit_complex64" || element == "float2") return "complex64";
  if (element == "cudakit_complex128" || element == "double2") return "complex128";
  const TypeClass c = classify_c_type(element);
  if (!c.known || c.kind != ParamKind::scalar) return {};
  return std::string(to_string(c.scalar));
}

}  // namespace

std::string array_view_param_dtype(std::string_view param_type) {
  if (param_type.find("ArrayView<") == std::string_view::npos) return {};
  return dtype_of_element(element_of(param_type));
}

std::optional<std::string> array_view_element_mismatch(std::string_view param_type,
                                                       std::string_view param_dtype,
                                                       std::string_view argument_type) {
  if (param_dtype.empty() || !argument_type.starts_with("ArrayView<")) return std::nullopt;
  std::string_view have = argument_type.substr(10);
  have = have.substr(0, have.find(','));
  if (have == param_dtype) return std::nullopt;
  const std::string element = element_of(param_type);
  return "the kernel's ArrayView holds " + element + " (" + std::string(param_dtype) +
         "), the array is " + std::string(have) + ": convert it with astype(" +
         std::string(param_dtype) + ") or declare the parameter with the array's element type";
}

}  // namespace cudakit::detail
