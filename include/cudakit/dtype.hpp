// The element types of device arrays, their names (NumPy's and the C type
// used in generated kernels), and NumPy 2 (NEP 50) type promotion, so that an
// expression over cudakit arrays has the dtype NumPy would give it.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "cudakit/param_layout.hpp"

namespace cudakit {

enum class DType : std::uint8_t {
  bool_,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float16,
  bfloat16,
  float32,
  float64,
  complex64,
  complex128,
};
inline constexpr int dtype_count = 15;

// Host-side storage of the 16-bit floats: the bits, with conversions through
// float (round to nearest even). Generated kernels compute on them in float.
struct Half {
  std::uint16_t bits = 0;
  Half() = default;
  explicit Half(float value) noexcept;
  explicit operator float() const noexcept;
  static Half from_bits(std::uint16_t b) noexcept {
    Half h;
    h.bits = b;
    return h;
  }
};
struct BFloat16 {
  std::uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float value) noexcept;
  explicit operator float() const noexcept;
  static BFloat16 from_bits(std::uint16_t b) noexcept {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

// Bytes per element.
std::size_t itemsize(DType dtype) noexcept;
// NumPy's name: "bool", "int8", ..., "float32", "complex128" (bfloat16: "bfloat16").
std::string_view to_string(DType dtype) noexcept;
// The C type used for the element in generated CUDA C: "bool", "signed char",
// "float", "cudakit_half", "cudakit_bfloat16", "cudakit_complex64", ...
std::string_view c_type_name(DType dtype) noexcept;
// The type arithmetic is done in: float for float16/bfloat16, the type itself otherwise.
DType compute_dtype(DType dtype) noexcept;
// NumPy names and common aliases ("float", "double", "int", "half", "f4", "i8", ...).
std::optional<DType> parse_dtype(std::string_view name) noexcept;

// The two scalar vocabularies side by side: DType names array elements,
// ScalarType (param_layout.hpp) the arithmetic kernel parameters the launch
// check knows. Every ScalarType but unknown is a DType; complex dtypes have
// no ScalarType (they are passed as aggregates) and give ScalarType::unknown.
std::optional<DType> dtype_of(ScalarType type) noexcept;
ScalarType scalar_type_of(DType dtype) noexcept;

bool is_bool(DType d) noexcept;
bool is_integer(DType d) noexcept;  // signed or unsigned, not bool
bool is_signed_integer(DType d) noexcept;
bool is_unsigned_integer(DType d) noexcept;
bool is_floating(DType d) noexcept;  // float16, bfloat16, float32, float64
bool is_complex(DType d) noexcept;
bool is_inexact(DType d) noexcept;  // floating or complex
// The real type of a complex dtype (complex64 -> float32); the dtype itself otherwise.
DType real_dtype(DType d) noexcept;

// The dtype of a C++ element type.
template <class T>
constexpr DType dtype_of() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return DType::bool_;
  else if constexpr (std::is_same_v<U, Half>)
    return DType::float16;
  else if constexpr (std::is_same_v<U, BFloat16>)
    return DType::bfloat16;
  else if constexpr (std::is_same_v<U, float>)
    return DType::float32;
  else if constexpr (std::is_same_v<U, double>)
    return DType::float64;
  else if constexpr (std::is_same_v<U, std::complex<float>>)
    return DType::complex64;
  else if constexpr (std::is_same_v<U, std::complex<double>>)
    return DType::complex128;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    if constexpr (sizeof(U) == 1)
      return DType::int8;
    else if constexpr (sizeof(U) == 2)
      return DType::int16;
    else if constexpr (sizeof(U) == 4)
      return DType::int32;
    else
      return DType::int64;
  } else if constexpr (std::is_integral_v<U>) {
    if constexpr (sizeof(U) == 1)
      return DType::uint8;
    else if constexpr (sizeof(U) == 2)
      return DType::uint16;
    else if constexpr (sizeof(U) == 4)
      return DType::uint32;
    else
      return DType::uint64;
  } else {
    static_assert(sizeof(U) == 0, "no cudakit dtype for this type");
    return DType::bool_;
  }
}

// What a Python scalar (or a plain C++ number in an expression) is: under
// NEP 50 it is "weak" and takes the array's dtype where its kind allows.
enum class ScalarKind : std::uint8_t { boolean, integer, floating, complex };

// NumPy 2 promotion of two array dtypes (np.result_type(a, b)). bfloat16,
// which NumPy lacks, promotes like ml_dtypes: with float16 to float32, with
// (u)int8 to bfloat16, with wider integers like float16 does.
DType result_type(DType a, DType b) noexcept;
// An array of `array` combined with a weak scalar of `scalar` kind
// (np.result_type(np.dtype, 1 / 1.0 / 1j / True) under NEP 50).
DType result_type(DType array, ScalarKind scalar) noexcept;
// The dtype a weak scalar has on its own (int -> int64, float -> float64, ...).
DType default_dtype(ScalarKind scalar) noexcept;

enum class Casting : std::uint8_t { no, equiv, safe, same_kind, unsafe };
// np.can_cast(from, to, casting).
bool can_cast(DType from, DType to, Casting casting = Casting::safe) noexcept;

}  // namespace cudakit
