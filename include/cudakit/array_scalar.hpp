// A single number as it enters an array operation (fill, full, a + 2.5): a
// plain C++ number is "weak" like a Python scalar under NEP 50 and takes the
// array's dtype; Scalar::typed gives one a fixed dtype.
#pragma once

#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "cudakit/dtype.hpp"

namespace cudakit {

class Scalar {
 public:
  Scalar() = default;
  Scalar(bool v) noexcept : kind_(ScalarKind::boolean), i_(v ? 1 : 0), d_(v ? 1.0 : 0.0) {}
  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) Scalar(T v)
  noexcept
      : kind_(ScalarKind::integer),
        unsigned_(std::is_unsigned_v<T> && sizeof(T) == 8 &&
                  static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(INT64_MAX)),
        i_(static_cast<std::int64_t>(v)),
        u_(static_cast<std::uint64_t>(v)),
        d_(static_cast<double>(v)) {}
  template <class T>
  requires std::is_floating_point_v<T> Scalar(T v)
  noexcept : kind_(ScalarKind::floating), d_(static_cast<double>(v)) {}
  template <class T>
  Scalar(std::complex<T> v) noexcept
      : kind_(ScalarKind::complex),
        d_(static_cast<double>(v.real())),
        im_(static_cast<double>(v.imag())) {}
  Scalar(Half v) noexcept : Scalar(static_cast<float>(v)) { dtype_ = DType::float16; }
  Scalar(BFloat16 v) noexcept : Scalar(static_cast<float>(v)) { dtype_ = DType::bfloat16; }

  // A scalar with a fixed ("strong") dtype, like np.float32(2.5).
  static Scalar typed(const Scalar& value, DType dtype) {
    Scalar s = value;
    s.dtype_ = dtype;
    return s;
  }

  ScalarKind kind() const noexcept { return kind_; }
  // The fixed dtype, or nullopt for a weak scalar.
  std::optional<DType> strong_dtype() const noexcept { return dtype_; }
  bool is_weak() const noexcept { return !dtype_; }
  // The dtype it has when nothing else decides: the strong dtype, or int64 /
  // float64 / complex128 / bool for a weak one (uint64 for integers above INT64_MAX).
  DType dtype() const noexcept;

  bool as_bool() const noexcept;
  std::int64_t as_int64() const noexcept;
  std::uint64_t as_uint64() const noexcept;
  double as_double() const noexcept;
  std::complex<double> as_complex() const noexcept;

  // Whether the value is representable in `dtype` without overflow (NumPy 2
  // refuses `uint8_array + 300`); integers into floats always fit.
  bool fits(DType dtype) const noexcept;
  // Writes the value converted to `dtype` (itemsize(dtype) bytes) to `dst`.
  void store(DType dtype, void* dst) const noexcept;
  // "2.5", "-3", "True", "(1+2j)"
  std::string to_string() const;

 private:
  ScalarKind kind_ = ScalarKind::integer;
  bool unsigned_ = false;  // an integer above INT64_MAX, held in u_
  std::optional<DType> dtype_;
  std::int64_t i_ = 0;
  std::uint64_t u_ = 0;
  double d_ = 0.0;
  double im_ = 0.0;
};

}  // namespace cudakit
