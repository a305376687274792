// Scalar conversions of the launch check: a typed value to a parameter of
// another type where nothing is lost, and a literal (a number with no C type)
// to the parameter's type where its value is kept. Results are written as the
// parameter's bytes into an 8-byte slot (little-endian, zero-filled).
#pragma once

#include <cstdint>

#include "cudakit/param_layout.hpp"

namespace cudakit::detail {

bool is_integer(ScalarType t) noexcept;  // i8..u64 (not bool)
bool is_signed_integer(ScalarType t) noexcept;
bool is_floating(ScalarType t) noexcept;  // f16, bf16, f32, f64

// Typed value -> parameter type: integer widening, integers of the same size
// and other signedness when the value fits, float -> double. False otherwise.
bool convert_typed(ScalarType from, const void* value, ScalarType to, std::uint64_t* slot);

enum class LiteralFit : std::uint8_t {
  ok,
  out_of_range,  // an integer outside the integer type's range, a float past the float's largest
  inexact,       // an integer the floating-point type cannot hold exactly
  not_integer,   // a float for an integer parameter
  unknown_type,  // the parameter's scalar type is not known
};

LiteralFit convert_integer_literal(long long value, ScalarType to, std::uint64_t* slot);
LiteralFit convert_unsigned_literal(unsigned long long value, ScalarType to, std::uint64_t* slot);
LiteralFit convert_float_literal(double value, ScalarType to, std::uint64_t* slot);

// IEEE half and bfloat16 from a double, rounded to nearest even; inf when
// the value rounds past the largest finite one.
std::uint16_t half_bits_of(double value) noexcept;
std::uint16_t bfloat16_bits_of(double value) noexcept;
double double_of_half_bits(std::uint16_t bits) noexcept;
double double_of_bfloat16_bits(std::uint16_t bits) noexcept;

}  // namespace cudakit::detail
