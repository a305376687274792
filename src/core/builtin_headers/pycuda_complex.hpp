// <pycuda-complex.hpp> (also <cudakit-complex.hpp>): PyCUDA's
// pycuda::complex<T> for kernels, built into cudakit for NVRTC and the CPU
// backend. cudakit's own implementation of PyCUDA's API (the class keeps
// PyCUDA's public members _M_re and _M_im, which PyCUDA's helpers and users'
// kernels read): arithmetic with complex and real operands, comparisons,
// real/imag/abs/arg/norm/conj/polar and sqrt/exp/log/log10/pow/sin/cos/tan/
// sinh/cosh/tanh. Not cuda::std::complex, whose members are private.
#ifndef CUDAKIT_PYCUDA_COMPLEX_HPP
#define CUDAKIT_PYCUDA_COMPLEX_HPP

extern "C++" {
namespace pycuda {
namespace complex_math {
#define CUDAKIT_CX_FN __host__ __device__ inline
CUDAKIT_CX_FN float sqrt_(float x) { return sqrtf(x); }
CUDAKIT_CX_FN double sqrt_(double x) { return ::sqrt(x); }
CUDAKIT_CX_FN float exp_(float x) { return expf(x); }
CUDAKIT_CX_FN double exp_(double x) { return ::exp(x); }
CUDAKIT_CX_FN float log_(float x) { return logf(x); }
CUDAKIT_CX_FN double log_(double x) { return ::log(x); }
CUDAKIT_CX_FN float sin_(float x) { return sinf(x); }
CUDAKIT_CX_FN double sin_(double x) { return ::sin(x); }
CUDAKIT_CX_FN float cos_(float x) { return cosf(x); }
CUDAKIT_CX_FN double cos_(double x) { return ::cos(x); }
CUDAKIT_CX_FN float sinh_(float x) { return sinhf(x); }
CUDAKIT_CX_FN double sinh_(double x) { return ::sinh(x); }
CUDAKIT_CX_FN float cosh_(float x) { return coshf(x); }
CUDAKIT_CX_FN double cosh_(double x) { return ::cosh(x); }
CUDAKIT_CX_FN float atan2_(float y, float x) { return atan2f(y, x); }
CUDAKIT_CX_FN double atan2_(double y, double x) { return ::atan2(y, x); }
CUDAKIT_CX_FN float hypot_(float x, float y) { return hypotf(x, y); }
CUDAKIT_CX_FN double hypot_(double x, double y) { return ::hypot(x, y); }
CUDAKIT_CX_FN float fabs_(float x) { return fabsf(x); }
CUDAKIT_CX_FN double fabs_(double x) { return ::fabs(x); }
CUDAKIT_CX_FN float copysign_(float x, float y) { return copysignf(x, y); }
CUDAKIT_CX_FN double copysign_(double x, double y) { return ::copysign(x, y); }

// pow(z, n) for integer n only (by squaring), so pow(z, 2.5) with a
// complex<float> takes the real exponent, converted, and not 2.
template <class I>
struct is_integer {
  static const bool value = false;
};
#define CUDAKIT_CX_INTEGER(I)        \
  template <>                        \
  struct is_integer<I> {             \
    static const bool value = true;  \
  };
CUDAKIT_CX_INTEGER(char)
CUDAKIT_CX_INTEGER(signed char)
CUDAKIT_CX_INTEGER(unsigned char)
CUDAKIT_CX_INTEGER(short)
CUDAKIT_CX_INTEGER(unsigned short)
CUDAKIT_CX_INTEGER(int)
CUDAKIT_CX_INTEGER(unsigned int)
CUDAKIT_CX_INTEGER(long)
CUDAKIT_CX_INTEGER(unsigned long)
CUDAKIT_CX_INTEGER(long long)
CUDAKIT_CX_INTEGER(unsigned long long)
#undef CUDAKIT_CX_INTEGER
template <bool condition, class R>
struct enable_if {};
template <class R>
struct enable_if<true, R> {
  typedef R type;
};
// A parameter of type same<T>::type takes no part in deducing T.
template <class T>
struct same {
  typedef T type;
};
}  // namespace complex_math

template <class T>
struct complex {
  typedef T value_type;
  typedef complex<T> _Self;
  T _M_re;
  T _M_im;

  CUDAKIT_CX_FN complex(const T& re = T(), const T& im = T()) : _M_re(re), _M_im(im) {}
  complex(const complex&) = default;
  complex& operator=(const complex&) = default;
  // complex<float> <-> complex<double> (PyCUDA: double from float).
  template <class U>
  CUDAKIT_CX_FN complex(const complex<U>& z) : _M_re(T(z._M_re)), _M_im(T(z._M_im)) {}

  CUDAKIT_CX_FN T real() const { return _M_re; }
  CUDAKIT_CX_FN T imag() const { return _M_im; }
  CUDAKIT_CX_FN void real(T value) { _M_re = value; }
  CUDAKIT_CX_FN void imag(T value) { _M_im = value; }

  CUDAKIT_CX_FN complex& operator=(const T& x) {
    _M_re = x;
    _M_im = T(0);
    return *this;
  }
  CUDAKIT_CX_FN complex& operator+=(const T& x) {
    _M_re += x;
    return *this;
  }
  CUDAKIT_CX_FN complex& operator-=(const T& x) {
    _M_re -= x;
    return *this;
  }
  CUDAKIT_CX_FN complex& operator*=(const T& x) {
    _M_re *= x;
    _M_im *= x;
    return *this;
  }
  CUDAKIT_CX_FN complex& operator/=(const T& x) {
    _M_re /= x;
    _M_im /= x;
    return *this;
  }
  template <class U>
  CUDAKIT_CX_FN complex& operator=(const complex<U>& z) {
    _M_re = T(z._M_re);
    _M_im = T(z._M_im);
    return *this;
  }
  template <class U>
  CUDAKIT_CX_FN complex& operator+=(const complex<U>& z) {
    _M_re += T(z._M_re);
    _M_im += T(z._M_im);
    return *this;
  }
  template <class U>
  CUDAKIT_CX_FN complex& operator-=(const complex<U>& z) {
    _M_re -= T(z._M_re);
    _M_im -= T(z._M_im);
    return *this;
  }
  template <class U>
  CUDAKIT_CX_FN complex& operator*=(const complex<U>& z) {
    const T re = _M_re * T(z._M_re) - _M_im * T(z._M_im);
    _M_im = _M_re * T(z._M_im) + _M_im * T(z._M_re);
    _M_re = re;
    return *this;
  }
  template <class U>
  CUDAKIT_CX_FN complex& operator/=(const complex<U>& z) {
    _div(_M_re, _M_im, T(z._M_re), T(z._M_im), _M_re, _M_im);
    return *this;
  }

  // (a + bi) / (c + di), scaled by the larger of |c| and |d| (Smith) so
  // that neither square overflows.
  static CUDAKIT_CX_FN void _div(const T& a, const T& b, const T& c, const T& d, T& re, T& im) {
    const T abs_c = complex_math::fabs_(c), abs_d = complex_math::fabs_(d);
    if (abs_c >= abs_d) {
      const T ratio = d / c, denominator = c + d * ratio;
      const T r = (a + b * ratio) / denominator, i = (b - a * ratio) / denominator;
      re = r;
      im = i;
    } else {
      const T ratio = c / d, denominator = c * ratio + d;
      const T r = (a * ratio + b) / denominator, i = (b * ratio - a) / denominator;
      re = r;
      im = i;
    }
  }
  static CUDAKIT_CX_FN void _div(const T& a, const T& c, const T& d, T& re, T& im) {
    _div(a, T(0), c, d, re, im);
  }
};

template <class T>
CUDAKIT_CX_FN complex<T> operator+(const complex<T>& z) { return z; }
template <class T>
CUDAKIT_CX_FN complex<T> operator-(const complex<T>& z) { return complex<T>(-z._M_re, -z._M_im); }

template <class T>
CUDAKIT_CX_FN complex<T> operator+(const complex<T>& a, const complex<T>& b) {
  return complex<T>(a._M_re + b._M_re, a._M_im + b._M_im);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator+(const complex<T>& z, const T& x) {
  return complex<T>(z._M_re + x, z._M_im);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator+(const T& x, const complex<T>& z) {
  return complex<T>(x + z._M_re, z._M_im);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator-(const complex<T>& a, const complex<T>& b) {
  return complex<T>(a._M_re - b._M_re, a._M_im - b._M_im);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator-(const complex<T>& z, const T& x) {
  return complex<T>(z._M_re - x, z._M_im);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator-(const T& x, const complex<T>& z) {
  return complex<T>(x - z._M_re, -z._M_im);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator*(const complex<T>& a, const complex<T>& b) {
  return complex<T>(a._M_re * b._M_re - a._M_im * b._M_im, a._M_re * b._M_im + a._M_im * b._M_re);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator*(const complex<T>& z, const T& x) {
  return complex<T>(z._M_re * x, z._M_im * x);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator*(const T& x, const complex<T>& z) {
  return complex<T>(x * z._M_re, x * z._M_im);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator/(const complex<T>& a, const complex<T>& b) {
  complex<T> out;
  complex<T>::_div(a._M_re, a._M_im, b._M_re, b._M_im, out._M_re, out._M_im);
  return out;
}
template <class T>
CUDAKIT_CX_FN complex<T> operator/(const complex<T>& z, const T& x) {
  return complex<T>(z._M_re / x, z._M_im / x);
}
template <class T>
CUDAKIT_CX_FN complex<T> operator/(const T& x, const complex<T>& z) {
  complex<T> out;
  complex<T>::_div(x, z._M_re, z._M_im, out._M_re, out._M_im);
  return out;
}

template <class T>
CUDAKIT_CX_FN bool operator==(const complex<T>& a, const complex<T>& b) {
  return a._M_re == b._M_re && a._M_im == b._M_im;
}
template <class T>
CUDAKIT_CX_FN bool operator==(const complex<T>& z, const T& x) {
  return z._M_re == x && z._M_im == T(0);
}
template <class T>
CUDAKIT_CX_FN bool operator==(const T& x, const complex<T>& z) {
  return z == x;
}
template <class T>
CUDAKIT_CX_FN bool operator!=(const complex<T>& a, const complex<T>& b) {
  return !(a == b);
}
template <class T>
CUDAKIT_CX_FN bool operator!=(const complex<T>& z, const T& x) {
  return !(z == x);
}
template <class T>
CUDAKIT_CX_FN bool operator!=(const T& x, const complex<T>& z) {
  return !(z == x);
}

template <class T>
CUDAKIT_CX_FN T real(const complex<T>& z) { return z._M_re; }
template <class T>
CUDAKIT_CX_FN T imag(const complex<T>& z) { return z._M_im; }
template <class T>
CUDAKIT_CX_FN T abs(const complex<T>& z) { return complex_math::hypot_(z._M_re, z._M_im); }
template <class T>
CUDAKIT_CX_FN T arg(const complex<T>& z) { return complex_math::atan2_(z._M_im, z._M_re); }
template <class T>
CUDAKIT_CX_FN T norm(const complex<T>& z) { return z._M_re * z._M_re + z._M_im * z._M_im; }
template <class T>
CUDAKIT_CX_FN complex<T> conj(const complex<T>& z) { return complex<T>(z._M_re, -z._M_im); }
template <class T>
CUDAKIT_CX_FN complex<T> polar(const T& rho) { return complex<T>(rho, T(0)); }
template <class T>
CUDAKIT_CX_FN complex<T> polar(const T& rho, const T& phi) {
  return complex<T>(rho * complex_math::cos_(phi), rho * complex_math::sin_(phi));
}

template <class T>
CUDAKIT_CX_FN complex<T> sqrt(const complex<T>& z) {
  const T magnitude = abs(z);
  if (magnitude == T(0)) return complex<T>(T(0), z._M_im);
  if (z._M_re > T(0)) {
    const T t = complex_math::sqrt_(T(0.5) * (magnitude + z._M_re));
    return complex<T>(t, z._M_im / (T(2) * t));
  }
  const T t = complex_math::sqrt_(T(0.5) * (magnitude - z._M_re));
  return complex<T>(complex_math::fabs_(z._M_im) / (T(2) * t), complex_math::copysign_(t, z._M_im));
}
template <class T>
CUDAKIT_CX_FN complex<T> exp(const complex<T>& z) {
  return polar(complex_math::exp_(z._M_re), z._M_im);
}
template <class T>
CUDAKIT_CX_FN complex<T> log(const complex<T>& z) {
  return complex<T>(complex_math::log_(abs(z)), arg(z));
}
template <class T>
CUDAKIT_CX_FN complex<T> log10(const complex<T>& z) {
  return log(z) * (T(1) / complex_math::log_(T(10)));
}
template <class T, class I>
CUDAKIT_CX_FN typename complex_math::enable_if<complex_math::is_integer<I>::value, complex<T> >::type
pow(const complex<T>& z, I n) {
  complex<T> result(T(1)), base = n < I(0) ? T(1) / z : z;
  for (unsigned long long k = n < I(0) ? 0ull - (unsigned long long)(n) : (unsigned long long)(n);
       k; k >>= 1) {
    if (k & 1u) result *= base;
    base *= base;
  }
  return result;
}
template <class T>
CUDAKIT_CX_FN complex<T> pow(const complex<T>& a, const complex<T>& b) {
  if (a._M_re == T(0) && a._M_im == T(0)) return complex<T>(T(0));
  return exp(b * log(a));
}
template <class T>
CUDAKIT_CX_FN complex<T> pow(const complex<T>& a, const typename complex_math::same<T>::type& b) {
  if (a._M_re == T(0) && a._M_im == T(0)) return complex<T>(T(0));
  return exp(log(a) * b);
}
template <class T>
CUDAKIT_CX_FN complex<T> pow(const T& a, const complex<T>& b) {
  if (a == T(0)) return complex<T>(T(0));
  return exp(b * complex_math::log_(a));
}
template <class T>
CUDAKIT_CX_FN complex<T> sin(const complex<T>& z) {
  return complex<T>(complex_math::sin_(z._M_re) * complex_math::cosh_(z._M_im),
                    complex_math::cos_(z._M_re) * complex_math::sinh_(z._M_im));
}
template <class T>
CUDAKIT_CX_FN complex<T> cos(const complex<T>& z) {
  return complex<T>(complex_math::cos_(z._M_re) * complex_math::cosh_(z._M_im),
                    -complex_math::sin_(z._M_re) * complex_math::sinh_(z._M_im));
}
template <class T>
CUDAKIT_CX_FN complex<T> sinh(const complex<T>& z) {
  return complex<T>(complex_math::sinh_(z._M_re) * complex_math::cos_(z._M_im),
                    complex_math::cosh_(z._M_re) * complex_math::sin_(z._M_im));
}
template <class T>
CUDAKIT_CX_FN complex<T> cosh(const complex<T>& z) {
  return complex<T>(complex_math::cosh_(z._M_re) * complex_math::cos_(z._M_im),
                    complex_math::sinh_(z._M_re) * complex_math::sin_(z._M_im));
}
template <class T>
CUDAKIT_CX_FN complex<T> tanh(const complex<T>& z) {
  // (sinh 2x + i sin 2y) / (cosh 2x + cos 2y)
  const T x2 = T(2) * z._M_re, y2 = T(2) * z._M_im;
  const T denominator = complex_math::cosh_(x2) + complex_math::cos_(y2);
  return complex<T>(complex_math::sinh_(x2) / denominator, complex_math::sin_(y2) / denominator);
}
template <class T>
CUDAKIT_CX_FN complex<T> tan(const complex<T>& z) {
  // tan z = -i tanh(i z)
  const complex<T> t = tanh(complex<T>(-z._M_im, z._M_re));
  return complex<T>(t._M_im, -t._M_re);
}
#undef CUDAKIT_CX_FN
}  // namespace pycuda
// cudakit's name for the same type and functions (cudakit::complex<float>,
// as a program with `pycuda` renamed to `cudakit` writes it).
namespace cudakit {
using namespace ::pycuda;
}  // namespace cudakit
}  // extern "C++"

#endif  // CUDAKIT_PYCUDA_COMPLEX_HPP
