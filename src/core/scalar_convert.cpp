#include "core/scalar_convert.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace cudakit::detail {
namespace {

void store(std::uint64_t* slot, const void* value, std::size_t size) {
  *slot = 0;
  std::memcpy(slot, value, size);
}

template <class T>
void store_as(std::uint64_t* slot, T value) {
  store(slot, &value, sizeof value);
}

// Rounds |value| (finite, not negative) to a binary format with `mantissa`
// explicit bits, exponent bias `bias` and `exponent_bits`; the bits without
// sign. Round to nearest even (std::nearbyint in the default mode).
std::uint32_t round_magnitude(double value, int mantissa, int bias, int exponent_bits) {
  const int max_biased = (1 << exponent_bits) - 1;  // inf / nan
  const std::uint32_t inf = static_cast<std::uint32_t>(max_biased) << mantissa;
  if (value == 0.0) return 0;
  int exp = 0;
  std::frexp(value, &exp);  // value = m * 2^exp, m in [0.5, 1)
  int e = exp - 1;          // value in [2^e, 2^(e+1))
  const int min_normal = 1 - bias;
  if (e < min_normal) {
    // Subnormal: multiples of 2^(min_normal - mantissa); a carry into the
    // smallest normal encodes correctly as it is.
    const double q = std::nearbyint(std::ldexp(value, mantissa - min_normal));
    return static_cast<std::uint32_t>(q);
  }
  double q = std::nearbyint(std::ldexp(value, mantissa - e));  // in [2^m, 2^(m+1)]
  if (q == std::ldexp(1.0, mantissa + 1)) {
    q = std::ldexp(1.0, mantissa);
    ++e;
  }
  const int biased = e + bias;
  if (biased >= max_biased) return inf;
  return (static_cast<std::uint32_t>(biased) << mantissa) |
         (static_cast<std::uint32_t>(q) - (1u << mantissa));
}

std::uint16_t small_float_bits(double value, int mantissa, int bias, int exponent_bits) {
  const std::uint32_t sign = std::signbit(value) ? 1u << (mantissa + exponent_bits) : 0u;
  const std::uint32_t inf = static_cast<std::uint32_t>((1 << exponent_bits) - 1) << mantissa;
  if (std::isnan(value)) return static_cast<std::uint16_t>(sign | inf | (1u << (mantissa - 1)));
  if (std::isinf(value)) return static_cast<std::uint16_t>(sign | inf);
  return static_cast<std::uint16_t>(
      sign | round_magnitude(std::fabs(value), mantissa, bias, exponent_bits));
}

double small_float_value(std::uint16_t bits, int mantissa, int bias, int exponent_bits) {
  const bool negative = (bits >> (mantissa + exponent_bits)) & 1u;
  const int biased = (bits >> mantissa) & ((1 << exponent_bits) - 1);
  const std::uint32_t frac = bits & ((1u << mantissa) - 1u);
  double v;
  if (biased == (1 << exponent_bits) - 1)
    v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (biased == 0)
    v = std::ldexp(static_cast<double>(frac), 1 - bias - mantissa);
  else
    v = std::ldexp(static_cast<double>(frac | (1u << mantissa)), biased - bias - mantissa);
  return negative ? -v : v;
}

// Whether `value` (an integer) converts to the floating-point `to` exactly.
LiteralFit exact_float(long double value, ScalarType to, std::uint64_t* slot) {
  switch (to) {
    case ScalarType::f64: {
      const double d = static_cast<double>(value);
      if (static_cast<long double>(d) != value) return LiteralFit::inexact;
      store_as(slot, d);
      return LiteralFit::ok;
    }
    case ScalarType::f32: {
      const float f = static_cast<float>(value);
      if (static_cast<long double>(f) != value) return LiteralFit::inexact;
      store_as(slot, f);
      return LiteralFit::ok;
    }
    case ScalarType::f16:
    case ScalarType::bf16: {
      const double d = static_cast<double>(value);
      if (static_cast<long double>(d) != value) return LiteralFit::inexact;
      const bool half = to == ScalarType::f16;
      const std::uint16_t bits = half ? half_bits_of(d) : bfloat16_bits_of(d);
      const double back = half ? double_of_half_bits(bits) : double_of_bfloat16_bits(bits);
      if (std::isinf(back)) return LiteralFit::out_of_range;
      if (back != d) return LiteralFit::inexact;
      store_as(slot, bits);
      return LiteralFit::ok;
    }
    default:
      return LiteralFit::unknown_type;
  }
}

// An integer literal for an integer (or bool) parameter: in range or not.
LiteralFit integer_in_range(bool negative, unsigned long long magnitude, ScalarType to,
                            std::uint64_t* slot) {
  if (to == ScalarType::boolean) {
    if (negative || magnitude > 1) return LiteralFit::out_of_range;
    store_as(slot, static_cast<std::uint8_t>(magnitude));
    return LiteralFit::ok;
  }
  const std::size_t size = scalar_size(to);
  const unsigned bits = static_cast<unsigned>(8 * size);
  if (is_signed_integer(to)) {
    const unsigned long long max = (1ull << (bits - 1)) - 1;  // largest positive
    if (negative ? magnitude > max + 1 : magnitude > max) return LiteralFit::out_of_range;
  } else {
    if (negative && magnitude != 0) return LiteralFit::out_of_range;
    const unsigned long long max = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if (magnitude > max) return LiteralFit::out_of_range;
  }
  // Two's complement of the value, truncated to the parameter's width.
  const std::uint64_t v = negative ? ~magnitude + 1 : magnitude;
  store(slot, &v, size);
  return LiteralFit::ok;
}

}  // namespace

bool is_integer(ScalarType t) noexcept {
  return t == ScalarType::i8 || t == ScalarType::u8 || t == ScalarType::i16 ||
         t == ScalarType::u16 || t == ScalarType::i32 || t == ScalarType::u32 ||
         t == ScalarType::i64 || t == ScalarType::u64;
}
bool is_signed_integer(ScalarType t) noexcept {
  return t == ScalarType::i8 || t == ScalarType::i16 || t == ScalarType::i32 ||
         t == ScalarType::i64;
}
bool is_floating(ScalarType t) noexcept {
  return t == ScalarType::f16 || t == ScalarType::bf16 || t == ScalarType::f32 ||
         t == ScalarType::f64;
}

std::uint16_t half_bits_of(double value) noexcept { return small_float_bits(value, 10, 15, 5); }
std::uint16_t bfloat16_bits_of(double value) noexcept { return small_float_bits(value, 7, 127, 8); }
double double_of_half_bits(std::uint16_t bits) noexcept {
  return small_float_value(bits, 10, 15, 5);
}
double double_of_bfloat16_bits(std::uint16_t bits) noexcept {
  return small_float_value(bits, 7, 127, 8);
}

bool convert_typed(ScalarType from, const void* src, ScalarType to, std::uint64_t* slot) {
  if (from == ScalarType::f32 && to == ScalarType::f64) {
    float f;
    std::memcpy(&f, src, sizeof f);
    store_as(slot, static_cast<double>(f));
    return true;
  }
  if (!is_integer(from) || !is_integer(to)) return false;
  const std::size_t fs = scalar_size(from), ts = scalar_size(to);
  if (ts < fs) return false;
  // The value, sign-extended (signed) or zero-extended (unsigned) to 64 bits.
  std::uint64_t bits = 0;
  std::memcpy(&bits, src, fs);
  bool negative = false;
  if (is_signed_integer(from) && fs < 8 && (bits >> (8 * fs - 1)) != 0) {
    bits |= ~0ull << (8 * fs);
    negative = true;
  } else if (is_signed_integer(from) && fs == 8) {
    negative = (bits >> 63) != 0;
  }
  // A negative value has no unsigned counterpart: -1 would arrive as 2^32 - 1.
  if (negative && !is_signed_integer(to)) return false;
  // An unsigned value past the signed parameter's maximum would turn negative.
  if (!is_signed_integer(from) && is_signed_integer(to) && ts == fs && (bits >> (8 * ts - 1)) != 0)
    return false;
  store(slot, &bits, ts);
  return true;
}

LiteralFit convert_integer_literal(long long value, ScalarType to, std::uint64_t* slot) {
  const bool negative = value < 0;
  const unsigned long long magnitude = negative ? 0ull - static_cast<unsigned long long>(value)
                                                : static_cast<unsigned long long>(value);
  if (is_integer(to) || to == ScalarType::boolean)
    return integer_in_range(negative, magnitude, to, slot);
  return exact_float(static_cast<long double>(value), to, slot);
}

LiteralFit convert_unsigned_literal(unsigned long long value, ScalarType to, std::uint64_t* slot) {
  if (is_integer(to) || to == ScalarType::boolean) return integer_in_range(false, value, to, slot);
  return exact_float(static_cast<long double>(value), to, slot);
}

LiteralFit convert_float_literal(double value, ScalarType to, std::uint64_t* slot) {
  if (is_integer(to) || to == ScalarType::boolean) return LiteralFit::not_integer;
  const bool finite = std::isfinite(value);
  switch (to) {
    case ScalarType::f64:
      store_as(slot, value);
      return LiteralFit::ok;
    case ScalarType::f32: {
      // Past FLT_MAX plus half an ulp the nearest float is inf.
      constexpr double limit = 0x1.ffffffp127;
      if (finite && std::fabs(value) >= limit) return LiteralFit::out_of_range;
      store_as(slot, static_cast<float>(value));
      return LiteralFit::ok;
    }
    case ScalarType::f16:
    case ScalarType::bf16: {
      const bool half = to == ScalarType::f16;
      const std::uint16_t bits = half ? half_bits_of(value) : bfloat16_bits_of(value);
      if (finite && std::isinf(half ? double_of_half_bits(bits) : double_of_bfloat16_bits(bits)))
        return LiteralFit::out_of_range;
      store_as(slot, bits);
      return LiteralFit::ok;
    }
    default:
      return LiteralFit::unknown_type;
  }
}

}  // namespace cudakit::detail
