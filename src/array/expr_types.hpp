// Type resolution for the elementwise operations: which dtype each operation
// computes in and returns, following NumPy 2's ufunc loops (tests compare it
// with a table produced by NumPy).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "cudakit/dtype.hpp"

namespace cudakit::detail {

enum class OpClass : std::uint8_t {
  arith,         // add, multiply, minimum, ...: promote
  subtract,      // promote; bool refused
  true_divide,   // promote, integers -> float64
  int_or_float,  // floor_divide, remainder, power, fmod: promote, bool -> int8, complex refused
  compare,       // bool result, computes in the promoted type
  logical,       // bool result, any input
  bitwise,       // bool and integers only
  shift,         // integers only (bool -> int8)
  float_math,    // sqrt, exp, ...: inexact result; integers -> smallest float that holds them
  real_math,     // like float_math, complex refused (arctan2, hypot, cbrt, ...)
  rounding,      // floor, ceil, trunc, rint, fabs: integers kept (fabs: float), complex refused
  negative,      // numeric, bool refused
  absolute,      // complex -> real
  sign,          // bool refused
  int_unary,     // square, reciprocal: bool -> int8
  invert,        // bool and integers
  predicate,     // isnan, isinf, isfinite: bool result
  keep,          // conj, positive: same dtype
  ldexp,         // float mantissa, integer exponent
};

struct OpTyping {
  DType operand;  // what the inputs are converted to before the operation
  DType result;
};

OpClass op_class(std::string_view op);
// The typing of `op` on these input dtypes, or nullopt where NumPy refuses
// (the caller raises an ArgumentError that names the op and the dtypes).
std::optional<OpTyping> type_unary(std::string_view op, DType a);
std::optional<OpTyping> type_binary(std::string_view op, DType a, DType b);

}  // namespace cudakit::detail
