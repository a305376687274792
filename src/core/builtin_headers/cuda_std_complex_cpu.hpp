// cuda::std::complex<T> (libcu++'s <cuda/std/complex>) for cudakit's CPU
// backend, which also names it thrust::complex<T> for <thrust/complex.h>.
// Laid out as two T aligned to 2 * sizeof(T), as on the GPU; the math goes
// through the host's std::complex.
#pragma once

// (The CPU backend reads the standard headers below before the prelude's
// CUDA macros: g++ 13's libstdc++ spells __attribute__((__noinline__)).)
#include <cmath>
#include <complex>
#include <type_traits>

namespace cuda {
namespace std {

template <class T>
class alignas(2 * sizeof(T)) complex {
  using host = ::std::complex<T>;

 public:
  using value_type = T;
  constexpr complex(const T& re = T(), const T& im = T()) : re_(re), im_(im) {}
  template <class U>
  constexpr complex(const complex<U>& other)
      : re_(static_cast<T>(other.real())), im_(static_cast<T>(other.imag())) {}
  template <class U>
  complex(const ::std::complex<U>& other)
      : re_(static_cast<T>(other.real())), im_(static_cast<T>(other.imag())) {}
  operator ::std::complex<T>() const { return host(re_, im_); }

  constexpr T real() const { return re_; }
  constexpr T imag() const { return im_; }
  void real(T re) { re_ = re; }
  void imag(T im) { im_ = im; }

  complex& operator=(const T& re) {
    re_ = re;
    im_ = T();
    return *this;
  }
  template <class U>
  complex& operator=(const complex<U>& other) {
    re_ = static_cast<T>(other.real());
    im_ = static_cast<T>(other.imag());
    return *this;
  }
  complex& operator+=(const complex& o) { return *this = *this + o; }
  complex& operator-=(const complex& o) { return *this = *this - o; }
  complex& operator*=(const complex& o) { return *this = *this * o; }
  complex& operator/=(const complex& o) { return *this = *this / o; }
  complex& operator+=(const T& o) { return *this = *this + o; }
  complex& operator-=(const T& o) { return *this = *this - o; }
  complex& operator*=(const T& o) { return *this = *this * o; }
  complex& operator/=(const T& o) { return *this = *this / o; }

  friend complex operator+(const complex& a) { return a; }
  friend complex operator-(const complex& a) { return complex(-a.re_, -a.im_); }
  friend complex operator+(const complex& a, const complex& b) {
    return complex(a.re_ + b.re_, a.im_ + b.im_);
  }
  friend complex operator-(const complex& a, const complex& b) {
    return complex(a.re_ - b.re_, a.im_ - b.im_);
  }
  friend complex operator*(const complex& a, const complex& b) {
    return complex(host(a) * host(b));
  }
  friend complex operator/(const complex& a, const complex& b) {
    return complex(host(a) / host(b));
  }
  friend complex operator+(const complex& a, const T& b) { return complex(a.re_ + b, a.im_); }
  friend complex operator+(const T& a, const complex& b) { return complex(a + b.re_, b.im_); }
  friend complex operator-(const complex& a, const T& b) { return complex(a.re_ - b, a.im_); }
  friend complex operator-(const T& a, const complex& b) { return complex(a - b.re_, -b.im_); }
  friend complex operator*(const complex& a, const T& b) { return complex(a.re_ * b, a.im_ * b); }
  friend complex operator*(const T& a, const complex& b) { return complex(a * b.re_, a * b.im_); }
  friend complex operator/(const complex& a, const T& b) { return complex(a.re_ / b, a.im_ / b); }
  friend complex operator/(const T& a, const complex& b) { return complex(a) / b; }
  friend bool operator==(const complex& a, const complex& b) {
    return a.re_ == b.re_ && a.im_ == b.im_;
  }
  friend bool operator!=(const complex& a, const complex& b) { return !(a == b); }
  friend bool operator==(const complex& a, const T& b) { return a.re_ == b && a.im_ == T(); }
  friend bool operator!=(const complex& a, const T& b) { return !(a == b); }

 private:
  T re_, im_;
};

template <class T>
T real(const complex<T>& z) {
  return z.real();
}
template <class T>
T imag(const complex<T>& z) {
  return z.imag();
}
template <class T>
T abs(const complex<T>& z) {
  return ::std::abs(::std::complex<T>(z));
}
template <class T>
T arg(const complex<T>& z) {
  return ::std::arg(::std::complex<T>(z));
}
template <class T>
T norm(const complex<T>& z) {
  return z.real() * z.real() + z.imag() * z.imag();
}
template <class T>
complex<T> conj(const complex<T>& z) {
  return complex<T>(z.real(), -z.imag());
}
template <class T>
complex<T> proj(const complex<T>& z) {
  return complex<T>(::std::proj(::std::complex<T>(z)));
}
template <class T, class U = T>
complex<T> polar(const T& magnitude, const U& angle = U()) {
  return complex<T>(::std::polar(magnitude, static_cast<T>(angle)));
}

#define CUDAKIT_CPU_COMPLEX_UNARY(name)                   \
  template <class T>                                      \
  complex<T> name(const complex<T>& z) {                  \
    return complex<T>(::std::name(::std::complex<T>(z))); \
  }
CUDAKIT_CPU_COMPLEX_UNARY(exp)
CUDAKIT_CPU_COMPLEX_UNARY(log)
CUDAKIT_CPU_COMPLEX_UNARY(log10)
CUDAKIT_CPU_COMPLEX_UNARY(sqrt)
CUDAKIT_CPU_COMPLEX_UNARY(sin)
CUDAKIT_CPU_COMPLEX_UNARY(cos)
CUDAKIT_CPU_COMPLEX_UNARY(tan)
CUDAKIT_CPU_COMPLEX_UNARY(asin)
CUDAKIT_CPU_COMPLEX_UNARY(acos)
CUDAKIT_CPU_COMPLEX_UNARY(atan)
CUDAKIT_CPU_COMPLEX_UNARY(sinh)
CUDAKIT_CPU_COMPLEX_UNARY(cosh)
CUDAKIT_CPU_COMPLEX_UNARY(tanh)
CUDAKIT_CPU_COMPLEX_UNARY(asinh)
CUDAKIT_CPU_COMPLEX_UNARY(acosh)
CUDAKIT_CPU_COMPLEX_UNARY(atanh)
#undef CUDAKIT_CPU_COMPLEX_UNARY

template <class T, class U>
complex<::std::common_type_t<T, U>> pow(const complex<T>& base, const complex<U>& exponent) {
  using R = ::std::common_type_t<T, U>;
  return complex<R>(
      ::std::pow(::std::complex<R>(complex<R>(base)), ::std::complex<R>(complex<R>(exponent))));
}
template <class T, class U, class = ::std::enable_if_t<::std::is_arithmetic<U>::value>>
complex<::std::common_type_t<T, U>> pow(const complex<T>& base, const U& exponent) {
  using R = ::std::common_type_t<T, U>;
  return complex<R>(::std::pow(::std::complex<R>(complex<R>(base)), static_cast<R>(exponent)));
}
template <class T, class U, class = ::std::enable_if_t<::std::is_arithmetic<T>::value>>
complex<::std::common_type_t<T, U>> pow(const T& base, const complex<U>& exponent) {
  using R = ::std::common_type_t<T, U>;
  return complex<R>(::std::pow(static_cast<R>(base), ::std::complex<R>(complex<R>(exponent))));
}

}  // namespace std
}  // namespace cuda
