// DType names, sizes and NumPy 2 (NEP 50) promotion and casting rules.
#include "cudakit/dtype.hpp"

#include <array>
#include <cstring>
#include <string>

#include "array/array_util.hpp"
#include "cudakit/param_layout.hpp"
#include "support/c_types.hpp"

namespace cudakit {
namespace {

struct DTypeInfo {
  std::string_view name;
  std::string_view c_name;
  std::size_t size;
};

constexpr std::array<DTypeInfo, dtype_count> kInfo{{
    {"bool", "bool", 1},
    {"int8", "signed char", 1},
    {"int16", "short", 2},
    {"int32", "int", 4},
    {"int64", "long long", 8},
    {"uint8", "unsigned char", 1},
    {"uint16", "unsigned short", 2},
    {"uint32", "unsigned int", 4},
    {"uint64", "unsigned long long", 8},
    {"float16", "cudakit_half", 2},
    {"bfloat16", "cudakit_bfloat16", 2},
    {"float32", "float", 4},
    {"float64", "double", 8},
    {"complex64", "cudakit_complex64", 8},
    {"complex128", "cudakit_complex128", 16},
}};

const DTypeInfo& info(DType d) noexcept { return kInfo[static_cast<std::size_t>(d)]; }

// Rank among the floats for promotion; bfloat16 and float16 share a rank and
// meet at float32.
int float_rank(DType d) noexcept {
  switch (d) {
    case DType::float16:
    case DType::bfloat16:
      return 0;
    case DType::float32:
      return 1;
    default:
      return 2;
  }
}

DType float_of_rank(int rank) noexcept {
  return rank <= 0 ? DType::float16 : rank == 1 ? DType::float32 : DType::float64;
}

// The smallest float that holds every value of an integer (or bool) dtype.
int float_rank_for_int(DType d) noexcept {
  switch (itemsize(d)) {
    case 1:
      return 0;
    case 2:
      return 1;
    default:
      return 2;
  }
}

DType signed_of_size(std::size_t size) noexcept {
  switch (size) {
    case 1:
      return DType::int8;
    case 2:
      return DType::int16;
    case 4:
      return DType::int32;
    default:
      return DType::int64;
  }
}

DType promote_floats(DType a, DType b) noexcept {
  if (a == b) return a;
  int ra = float_rank(a), rb = float_rank(b);
  if (ra == rb) return DType::float32;  // float16 with bfloat16
  return ra > rb ? a : b;
}

// float with integer: the float, widened to hold the integer's values.
DType promote_float_int(DType f, DType i) noexcept {
  int need = float_rank_for_int(i);
  if (float_rank(f) >= need) return f;
  return float_of_rank(need);
}

DType complex_for_rank(int rank) noexcept {
  return rank <= 1 ? DType::complex64 : DType::complex128;
}

int kind_rank(DType d) noexcept {
  if (is_bool(d)) return 0;
  if (is_unsigned_integer(d)) return 1;
  if (is_signed_integer(d)) return 2;
  if (is_floating(d)) return 3;
  return 4;
}

}  // namespace

Half::Half(float value) noexcept {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) {  // inf or nan
    bits = static_cast<std::uint16_t>(sign | 0x7c00u |
                                      (mag > 0x7f800000u ? 0x200u | ((mag >> 13) & 0x3ffu) : 0u));
    return;
  }
  if (mag >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
    bits = static_cast<std::uint16_t>(sign | 0x7c00u);
    return;
  }
  if (mag < 0x38800000u) {    // below the smallest normal half: subnormal or zero
    if (mag < 0x33000000u) {  // below half the smallest subnormal
      bits = static_cast<std::uint16_t>(sign);
      return;
    }
    std::uint32_t e = mag >> 23;
    std::uint32_t m = (mag & 0x7fffffu) | 0x800000u;
    std::uint32_t shift = 126 - e;  // 14 - (e - 127) + 13 - 1 ... exact for the subnormal range
    std::uint32_t half_m = m >> shift;
    std::uint32_t rem = m & ((1u << shift) - 1u);
    std::uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half_m & 1u))) ++half_m;
    bits = static_cast<std::uint16_t>(sign | half_m);
    return;
  }
  std::uint32_t h = ((mag - 0x38000000u) >> 13);
  std::uint32_t rem = mag & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  bits = static_cast<std::uint16_t>(sign | h);
}

Half::operator float() const noexcept {
  std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  std::uint32_t e = (bits >> 10) & 0x1fu;
  std::uint32_t m = bits & 0x3ffu;
  std::uint32_t x;
  if (e == 0x1f) {
    x = sign | 0x7f800000u | (m << 13);
  } else if (e == 0) {
    if (m == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int shift = 0;
      while (!(m & 0x400u)) {
        m <<= 1;
        ++shift;
      }
      m &= 0x3ffu;
      x = sign | (static_cast<std::uint32_t>(113 - shift) << 23) | (m << 13);
    }
  } else {
    x = sign | ((e + 112) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

BFloat16::BFloat16(float value) noexcept {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // nan stays a quiet nan
    bits = static_cast<std::uint16_t>((x >> 16) | 0x40u);
    return;
  }
  x += 0x7fffu + ((x >> 16) & 1u);
  bits = static_cast<std::uint16_t>(x >> 16);
}

BFloat16::operator float() const noexcept {
  std::uint32_t x = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

std::size_t itemsize(DType d) noexcept { return info(d).size; }
std::string_view to_string(DType d) noexcept { return info(d).name; }
std::string_view c_type_name(DType d) noexcept { return info(d).c_name; }

DType compute_dtype(DType d) noexcept {
  return d == DType::float16 || d == DType::bfloat16 ? DType::float32 : d;
}

std::optional<DType> parse_dtype(std::string_view name) noexcept {
  for (int k = 0; k < dtype_count; ++k)
    if (kInfo[static_cast<std::size_t>(k)].name == name) return static_cast<DType>(k);
  struct Alias {
    std::string_view name;
    DType dtype;
  };
  static constexpr Alias aliases[] = {
      {"bool_", DType::bool_},        {"?", DType::bool_},
      {"b1", DType::bool_},           {"i1", DType::int8},
      {"i2", DType::int16},           {"i4", DType::int32},
      {"i8", DType::int64},           {"int", DType::int64},
      {"long", DType::int64},         {"u1", DType::uint8},
      {"u2", DType::uint16},          {"u4", DType::uint32},
      {"u8", DType::uint64},          {"f2", DType::float16},
      {"half", DType::float16},       {"f4", DType::float32},
      {"float", DType::float32},      {"single", DType::float32},
      {"f8", DType::float64},         {"double", DType::float64},
      {"c8", DType::complex64},       {"c16", DType::complex128},
      {"complex", DType::complex128}, {"bf16", DType::bfloat16},
  };
  for (const auto& a : aliases)
    if (a.name == name) return a.dtype;
  return std::nullopt;
}

bool is_bool(DType d) noexcept { return d == DType::bool_; }
bool is_signed_integer(DType d) noexcept { return d >= DType::int8 && d <= DType::int64; }
bool is_unsigned_integer(DType d) noexcept { return d >= DType::uint8 && d <= DType::uint64; }
bool is_integer(DType d) noexcept { return is_signed_integer(d) || is_unsigned_integer(d); }
bool is_floating(DType d) noexcept { return d >= DType::float16 && d <= DType::float64; }
bool is_complex(DType d) noexcept { return d == DType::complex64 || d == DType::complex128; }
bool is_inexact(DType d) noexcept { return is_floating(d) || is_complex(d); }
DType real_dtype(DType d) noexcept {
  return d == DType::complex64 ? DType::float32 : d == DType::complex128 ? DType::float64 : d;
}

DType result_type(DType a, DType b) noexcept {
  if (a == b) return a;
  if (is_bool(a)) return b;
  if (is_bool(b)) return a;
  if (is_complex(a) || is_complex(b)) {
    if (is_complex(a) && is_complex(b)) return DType::complex128;
    DType c = is_complex(a) ? a : b;
    DType o = is_complex(a) ? b : a;
    int rank = is_floating(o) ? float_rank(o) : float_rank_for_int(o);
    return complex_for_rank(std::max(rank, c == DType::complex64 ? 1 : 2));
  }
  if (is_floating(a) && is_floating(b)) return promote_floats(a, b);
  if (is_floating(a)) return promote_float_int(a, b);
  if (is_floating(b)) return promote_float_int(b, a);
  // Two integers.
  bool sa = is_signed_integer(a), sb = is_signed_integer(b);
  if (sa == sb) return itemsize(a) >= itemsize(b) ? a : b;
  DType s = sa ? a : b, u = sa ? b : a;
  if (itemsize(s) > itemsize(u)) return s;
  if (itemsize(u) < 8) return signed_of_size(itemsize(u) * 2);
  return DType::float64;  // int64 with uint64
}

DType default_dtype(ScalarKind scalar) noexcept {
  switch (scalar) {
    case ScalarKind::boolean:
      return DType::bool_;
    case ScalarKind::integer:
      return DType::int64;
    case ScalarKind::floating:
      return DType::float64;
    default:
      return DType::complex128;
  }
}

DType result_type(DType array, ScalarKind scalar) noexcept {
  switch (scalar) {
    case ScalarKind::boolean:
      return array;
    case ScalarKind::integer:
      return is_bool(array) ? DType::int64 : array;
    case ScalarKind::floating:
      return is_inexact(array) ? array : DType::float64;
    default:
      if (is_complex(array)) return array;
      if (is_floating(array)) return float_rank(array) <= 1 ? DType::complex64 : DType::complex128;
      return DType::complex128;
  }
}

bool can_cast(DType from, DType to, Casting casting) noexcept {
  switch (casting) {
    case Casting::no:
    case Casting::equiv:
      return from == to;
    case Casting::unsafe:
      return true;
    case Casting::safe:
      return result_type(from, to) == to;
    case Casting::same_kind:
      return result_type(from, to) == to || kind_rank(from) <= kind_rank(to);
  }
  return false;
}

ScalarType scalar_type_of(DType d) noexcept {
  switch (d) {
    case DType::bool_:
      return ScalarType::boolean;
    case DType::int8:
      return ScalarType::i8;
    case DType::int16:
      return ScalarType::i16;
    case DType::int32:
      return ScalarType::i32;
    case DType::int64:
      return ScalarType::i64;
    case DType::uint8:
      return ScalarType::u8;
    case DType::uint16:
      return ScalarType::u16;
    case DType::uint32:
      return ScalarType::u32;
    case DType::uint64:
      return ScalarType::u64;
    case DType::float16:
      return ScalarType::f16;
    case DType::bfloat16:
      return ScalarType::bf16;
    case DType::float32:
      return ScalarType::f32;
    case DType::float64:
      return ScalarType::f64;
    default:
      return ScalarType::unknown;
  }
}

std::optional<DType> dtype_of(ScalarType type) noexcept {
  for (int d = 0; d < dtype_count; ++d)
    if (type != ScalarType::unknown && scalar_type_of(static_cast<DType>(d)) == type)
      return static_cast<DType>(d);
  return std::nullopt;
}

namespace detail {

std::optional<DType> dtype_of_c_type(std::string_view type) {
  const TypeClass c = classify_c_type(type);
  if (c.known && c.kind == ParamKind::scalar) return dtype_of(c.scalar);
  if (c.known) return std::nullopt;  // a pointer
  // The names generated kernels use for the element types the launch check
  // passes as aggregates (complex) or through the prelude's typedefs.
  const std::string bare = bare_c_type(type);
  for (int d = 0; d < dtype_count; ++d)
    if (c_type_name(static_cast<DType>(d)) == bare) return static_cast<DType>(d);
  if (bare == "complex<float>") return DType::complex64;
  if (bare == "complex<double>") return DType::complex128;
  return std::nullopt;
}

}  // namespace detail
}  // namespace cudakit
