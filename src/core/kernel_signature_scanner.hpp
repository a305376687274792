// Reads kernel parameter lists from the places that name their C types: the
// CUDA C source (`__global__ void k(const float* a, int n)`) and demangled
// C++ symbols (`k<float>(float const*, int)`). The compiled code only knows
// sizes; these types decide pointer vs 64-bit integer and float vs int.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudakit/param_layout.hpp"
#include "support/c_types.hpp"

namespace cudakit::detail {

struct ScannedParam {
  std::string type;  // tokens joined by single spaces: "const float *"
  std::string name;  // empty when the declaration names none
};

struct KernelSignature {
  std::string name;  // the function name, without scope or template arguments
  std::vector<ScannedParam> params;
  bool is_template = false;
};

// Every `__global__` function declared in `source`, in order. Comments,
// string / character literals and preprocessor lines are skipped; attribute
// macros (__launch_bounds__(..), __attribute__((..)), ...) between
// `__global__` and the name are stepped over.
std::vector<KernelSignature> scan_kernel_signatures(std::string_view source);

// The parameter types of a demangled function name:
// "vec_add<float>(float const*, float*, int)" -> {"float const*", "float*", "int"}.
// nullopt when the text has no parameter list.
std::optional<std::vector<std::string>> demangled_param_types(std::string_view demangled);

// The function name of a demangled symbol without scope, template arguments
// or parameters: "ns::vec_add<float>(float const*)" -> "vec_add".
std::string demangled_base_name(std::string_view demangled);
// The name with template arguments but without parameters:
// "ns::vec_add<float>(float const*)" -> "ns::vec_add<float>".
std::string demangled_without_params(std::string_view demangled);

// "_Z7vec_addIfEvPKfPfi" -> "void vec_add<float>(float const*, float*, int)";
// the input unchanged when it is not a mangled name.
std::string demangle(std::string_view symbol);

// What a C type written in a signature is to the launch check (c_types.hpp).
TypeClass classify_param_type(std::string_view type);

}  // namespace cudakit::detail
