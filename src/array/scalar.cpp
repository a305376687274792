// Scalar: conversions, range checks and storing into an element of any dtype.
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "cudakit/array_scalar.hpp"

namespace cudakit {
namespace {

template <class T>
void put(void* dst, T value) noexcept {
  std::memcpy(dst, &value, sizeof(T));
}

// Float to integer the way a C cast does in kernels, but defined for
// out-of-range and NaN inputs (0) so host fills never hit UB.
template <class T>
T float_to_int(double v) noexcept {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest()))
    return std::numeric_limits<T>::lowest();
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

}  // namespace

DType Scalar::dtype() const noexcept {
  if (dtype_) return *dtype_;
  if (kind_ == ScalarKind::integer && unsigned_) return DType::uint64;
  return default_dtype(kind_);
}

bool Scalar::as_bool() const noexcept {
  switch (kind_) {
    case ScalarKind::boolean:
    case ScalarKind::integer:
      return i_ != 0 || u_ != 0;
    case ScalarKind::floating:
      return d_ != 0.0;
    default:
      return d_ != 0.0 || im_ != 0.0;
  }
}

std::int64_t Scalar::as_int64() const noexcept {
  if (kind_ == ScalarKind::floating || kind_ == ScalarKind::complex)
    return float_to_int<std::int64_t>(d_);
  return i_;
}

std::uint64_t Scalar::as_uint64() const noexcept {
  if (kind_ == ScalarKind::floating || kind_ == ScalarKind::complex) {
    if (d_ < 0) return static_cast<std::uint64_t>(float_to_int<std::int64_t>(d_));
    return float_to_int<std::uint64_t>(d_);
  }
  return unsigned_ ? u_ : static_cast<std::uint64_t>(i_);
}

double Scalar::as_double() const noexcept {
  if (kind_ == ScalarKind::integer && unsigned_) return static_cast<double>(u_);
  return d_;
}

std::complex<double> Scalar::as_complex() const noexcept { return {as_double(), im_}; }

bool Scalar::fits(DType dtype) const noexcept {
  if (kind_ != ScalarKind::integer || !is_integer(dtype)) return true;
  if (unsigned_) return dtype == DType::uint64;
  std::int64_t v = i_;
  switch (dtype) {
    case DType::int8:
      return v >= INT8_MIN && v <= INT8_MAX;
    case DType::int16:
      return v >= INT16_MIN && v <= INT16_MAX;
    case DType::int32:
      return v >= INT32_MIN && v <= INT32_MAX;
    case DType::int64:
      return true;
    case DType::uint8:
      return v >= 0 && v <= UINT8_MAX;
    case DType::uint16:
      return v >= 0 && v <= UINT16_MAX;
    case DType::uint32:
      return v >= 0 && v <= static_cast<std::int64_t>(UINT32_MAX);
    case DType::uint64:
      return v >= 0;
    default:
      return true;
  }
}

void Scalar::store(DType dtype, void* dst) const noexcept {
  bool integral = kind_ == ScalarKind::boolean || kind_ == ScalarKind::integer;
  switch (dtype) {
    case DType::bool_:
      put<bool>(dst, as_bool());
      break;
    case DType::int8:
      put(dst, static_cast<std::int8_t>(integral ? as_int64() : float_to_int<std::int8_t>(d_)));
      break;
    case DType::int16:
      put(dst, static_cast<std::int16_t>(integral ? as_int64() : float_to_int<std::int16_t>(d_)));
      break;
    case DType::int32:
      put(dst, static_cast<std::int32_t>(integral ? as_int64() : float_to_int<std::int32_t>(d_)));
      break;
    case DType::int64:
      put(dst, as_int64());
      break;
    case DType::uint8:
      put(dst, static_cast<std::uint8_t>(integral ? as_uint64() : float_to_int<std::uint8_t>(d_)));
      break;
    case DType::uint16:
      put(dst,
          static_cast<std::uint16_t>(integral ? as_uint64() : float_to_int<std::uint16_t>(d_)));
      break;
    case DType::uint32:
      put(dst,
          static_cast<std::uint32_t>(integral ? as_uint64() : float_to_int<std::uint32_t>(d_)));
      break;
    case DType::uint64:
      put(dst, as_uint64());
      break;
    case DType::float16:
      put(dst, Half(static_cast<float>(as_double())));
      break;
    case DType::bfloat16:
      put(dst, BFloat16(static_cast<float>(as_double())));
      break;
    case DType::float32:
      put(dst, static_cast<float>(as_double()));
      break;
    case DType::float64:
      put(dst, as_double());
      break;
    case DType::complex64:
      put(dst, std::complex<float>(static_cast<float>(as_double()), static_cast<float>(im_)));
      break;
    case DType::complex128:
      put(dst, as_complex());
      break;
  }
}

namespace {
// Numbers as text without iostreams: std::to_chars is independent of the
// process's locale (a locale with a decimal comma must not reach generated
// code), and a C++ stream's locale facets are unusable in some extension
// modules that link their own copies of the standard library's templates.
template <class T>
std::string number_text(T value) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}
}  // namespace

std::string Scalar::to_string() const {
  switch (kind_) {
    case ScalarKind::boolean:
      return as_bool() ? "True" : "False";
    case ScalarKind::integer:
      return unsigned_ ? number_text(u_) : number_text(i_);
    case ScalarKind::floating:
      return number_text(d_);
    default:
      return "(" + number_text(d_) + (im_ < 0 || std::signbit(im_) ? "-" : "+") +
             number_text(std::abs(im_)) + "j)";
  }
}

}  // namespace cudakit
