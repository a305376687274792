// NumPy 2 ufunc typing for the elementwise operations.
#include "array/expr_types.hpp"

#include <string>
#include <unordered_map>

#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

// The smallest inexact type for an input (NumPy picks the first loop the
// input casts to safely: e, f, d, ...; bfloat16 stays itself).
DType inexact_of(DType d) {
  if (is_inexact(d)) return d;
  return result_type(d, DType::float16);
}

}  // namespace

OpClass op_class(std::string_view op) {
  static const std::unordered_map<std::string_view, OpClass> table = {
      {"add", OpClass::arith},
      {"multiply", OpClass::arith},
      {"minimum", OpClass::arith},
      {"maximum", OpClass::arith},
      {"fmin", OpClass::arith},
      {"fmax", OpClass::arith},
      {"where", OpClass::arith},
      {"subtract", OpClass::subtract},
      {"true_divide", OpClass::true_divide},
      {"floor_divide", OpClass::int_or_float},
      {"remainder", OpClass::int_or_float},
      {"fmod", OpClass::int_or_float},
      {"power", OpClass::int_or_float},
      {"less", OpClass::compare},
      {"less_equal", OpClass::compare},
      {"greater", OpClass::compare},
      {"greater_equal", OpClass::compare},
      {"equal", OpClass::compare},
      {"not_equal", OpClass::compare},
      {"logical_and", OpClass::logical},
      {"logical_or", OpClass::logical},
      {"logical_xor", OpClass::logical},
      {"logical_not", OpClass::logical},
      {"bitwise_and", OpClass::bitwise},
      {"bitwise_or", OpClass::bitwise},
      {"bitwise_xor", OpClass::bitwise},
      {"left_shift", OpClass::shift},
      {"right_shift", OpClass::shift},
      {"invert", OpClass::invert},
      {"exp", OpClass::float_math},
      {"exp2", OpClass::float_math},
      {"expm1", OpClass::float_math},
      {"log", OpClass::float_math},
      {"log2", OpClass::float_math},
      {"log10", OpClass::float_math},
      {"log1p", OpClass::float_math},
      {"sqrt", OpClass::float_math},
      {"cbrt", OpClass::real_math},
      {"sin", OpClass::float_math},
      {"cos", OpClass::float_math},
      {"tan", OpClass::float_math},
      {"arcsin", OpClass::float_math},
      {"arccos", OpClass::float_math},
      {"arctan", OpClass::float_math},
      {"sinh", OpClass::float_math},
      {"cosh", OpClass::float_math},
      {"tanh", OpClass::float_math},
      {"arcsinh", OpClass::float_math},
      {"arccosh", OpClass::float_math},
      {"arctanh", OpClass::float_math},
      {"arctan2", OpClass::real_math},
      {"hypot", OpClass::real_math},
      {"copysign", OpClass::real_math},
      {"frexp_mantissa", OpClass::real_math},
      {"modf_fraction", OpClass::real_math},
      {"modf_integral", OpClass::real_math},
      {"floor", OpClass::rounding},
      {"ceil", OpClass::rounding},
      {"trunc", OpClass::rounding},
      {"rint", OpClass::float_math},
      {"fabs", OpClass::real_math},
      {"negative", OpClass::negative},
      {"absolute", OpClass::absolute},
      {"sign", OpClass::sign},
      {"square", OpClass::int_unary},
      {"reciprocal", OpClass::int_unary},
      {"isnan", OpClass::predicate},
      {"isinf", OpClass::predicate},
      {"isfinite", OpClass::predicate},
      {"conjugate", OpClass::keep},
      {"positive", OpClass::keep},
      {"real", OpClass::absolute},
      {"imag", OpClass::absolute},
      {"ldexp", OpClass::ldexp},
      {"frexp_exponent", OpClass::real_math},
  };
  auto it = table.find(op);
  if (it == table.end())
    throw ArgumentError("array expression", "unknown operation '" + std::string(op) + "'");
  return it->second;
}

std::optional<OpTyping> type_unary(std::string_view op, DType a) {
  switch (op_class(op)) {
    case OpClass::logical:
      return OpTyping{a, DType::bool_};
    case OpClass::predicate:
      return OpTyping{a, DType::bool_};
    case OpClass::float_math: {
      DType r = inexact_of(a);
      return OpTyping{r, r};
    }
    case OpClass::real_math: {
      if (is_complex(a)) return std::nullopt;
      DType r = inexact_of(a);
      if (op == "frexp_exponent") return OpTyping{r, DType::int32};
      return OpTyping{r, r};
    }
    case OpClass::rounding:
      if (is_complex(a)) return std::nullopt;
      return OpTyping{a, a};
    case OpClass::negative:
    case OpClass::sign:
      if (is_bool(a)) return std::nullopt;
      return OpTyping{a, a};
    case OpClass::absolute:
      return OpTyping{a, real_dtype(a)};
    case OpClass::int_unary: {
      DType r = is_bool(a) ? DType::int8 : a;
      return OpTyping{r, r};
    }
    case OpClass::invert:
      if (!is_bool(a) && !is_integer(a)) return std::nullopt;
      return OpTyping{a, a};
    case OpClass::keep: {
      DType r = is_bool(a) && op == "conjugate" ? DType::int8 : a;
      return OpTyping{r, r};
    }
    default:
      return std::nullopt;
  }
}

std::optional<OpTyping> type_binary(std::string_view op, DType a, DType b) {
  DType p = result_type(a, b);
  switch (op_class(op)) {
    case OpClass::arith:
      return OpTyping{p, p};
    case OpClass::subtract:
      if (is_bool(p)) return std::nullopt;
      return OpTyping{p, p};
    case OpClass::true_divide: {
      DType r = is_inexact(p) ? p : DType::float64;
      return OpTyping{r, r};
    }
    case OpClass::int_or_float: {
      if (is_complex(p) && op != "power") return std::nullopt;
      DType r = is_bool(p) ? DType::int8 : p;
      return OpTyping{r, r};
    }
    case OpClass::compare:
      return OpTyping{p, DType::bool_};
    case OpClass::logical:
      return OpTyping{p, DType::bool_};
    case OpClass::bitwise:
      if (!is_bool(p) && !is_integer(p)) return std::nullopt;
      return OpTyping{p, p};
    case OpClass::shift: {
      DType r = is_bool(p) ? DType::int8 : p;
      if (!is_integer(r)) return std::nullopt;
      return OpTyping{r, r};
    }
    case OpClass::real_math: {
      // Each input goes to its own smallest float first (int8 with uint8 is float16).
      if (is_complex(p)) return std::nullopt;
      DType r = result_type(inexact_of(a), inexact_of(b));
      return OpTyping{r, r};
    }
    case OpClass::ldexp: {
      // The mantissa decides the result; the exponent must be an integer
      // that casts safely to int64.
      if (is_inexact(b) || b == DType::uint64 || is_complex(a)) return std::nullopt;
      DType r = inexact_of(a);
      return OpTyping{r, r};
    }
    default:
      return std::nullopt;
  }
}

}  // namespace cudakit::detail
