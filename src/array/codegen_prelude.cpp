// The CUDA C every generated array kernel starts with. It compiles with NVRTC
// and, unchanged, with the host compiler of the CPU backend, so it avoids
// toolkit headers: 16-bit floats are bit containers converted through float,
// complex numbers are two-field structs.
#include <string>

#include "cudakit/detail/expr_codegen.hpp"

namespace cudakit::detail {

const std::string& codegen_prelude() {
  static const std::string text = R"PRELUDE(// ---- cudakit array prelude ----
#ifndef CUDAKIT_ARRAY_PRELUDE
#define CUDAKIT_ARRAY_PRELUDE
#if !defined(__CUDACC_RTC__)
#include <math.h>
#endif

template <class T, int N>
struct alignas(sizeof(T) * N) cudakit_vec {
  T v[N];
};

struct cudakit_half {
  unsigned short bits;
};
struct cudakit_bfloat16 {
  unsigned short bits;
};

__device__ inline unsigned int cudakit_float_bits(float f) {
  union { float f; unsigned int u; } x;
  x.f = f;
  return x.u;
}
__device__ inline float cudakit_bits_float(unsigned int u) {
  union { float f; unsigned int u; } x;
  x.u = u;
  return x.f;
}

// Portable integer conversions (the same code on both backends); the
// kernels are memory-bound, so the few extra instructions cost nothing.
__device__ inline float cudakit_h2f(cudakit_half h) {
  unsigned int sign = (unsigned int)(h.bits & 0x8000u) << 16;
  unsigned int e = (h.bits >> 10) & 0x1fu, m = h.bits & 0x3ffu;
  if (e == 0x1f) return cudakit_bits_float(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    if (m == 0) return cudakit_bits_float(sign);
    int shift = 0;
    while (!(m & 0x400u)) { m <<= 1; ++shift; }
    return cudakit_bits_float(sign | ((unsigned int)(113 - shift) << 23) | ((m & 0x3ffu) << 13));
  }
  return cudakit_bits_float(sign | ((e + 112) << 23) | (m << 13));
}

__device__ inline cudakit_half cudakit_f2h(float value) {
  cudakit_half h;
  unsigned int x = cudakit_float_bits(value);
  unsigned int sign = (x >> 16) & 0x8000u, mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) {
    h.bits = (unsigned short)(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0u));
  } else if (mag >= 0x477ff000u) {
    h.bits = (unsigned short)(sign | 0x7c00u);
  } else if (mag < 0x38800000u) {
    if (mag < 0x33000000u) {
      h.bits = (unsigned short)sign;
    } else {
      unsigned int e = mag >> 23, m = (mag & 0x7fffffu) | 0x800000u, shift = 126 - e;
      unsigned int hm = m >> shift, rem = m & ((1u << shift) - 1u), mid = 1u << (shift - 1);
      if (rem > mid || (rem == mid && (hm & 1u))) ++hm;
      h.bits = (unsigned short)(sign | hm);
    }
  } else {
    unsigned int r = (mag - 0x38000000u) >> 13, rem = mag & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
    h.bits = (unsigned short)(sign | r);
  }
  return h;
}

__device__ inline float cudakit_bf2f(cudakit_bfloat16 h) {
  return cudakit_bits_float((unsigned int)h.bits << 16);
}
__device__ inline cudakit_bfloat16 cudakit_f2bf(float value) {
  cudakit_bfloat16 h;
  unsigned int x = cudakit_float_bits(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    h.bits = (unsigned short)((x >> 16) | 0x40u);
  } else {
    x += 0x7fffu + ((x >> 16) & 1u);
    h.bits = (unsigned short)(x >> 16);
  }
  return h;
}
// A float16 / bfloat16 result is rounded after every operation, as NumPy does.
__device__ inline float cudakit_round_f16(float x) { return cudakit_h2f(cudakit_f2h(x)); }
__device__ inline float cudakit_round_bf16(float x) { return cudakit_bf2f(cudakit_f2bf(x)); }

struct cudakit_complex64 {
  float re, im;
};
struct cudakit_complex128 {
  double re, im;
};
__device__ inline cudakit_complex64 cudakit_c64(double re, double im = 0) {
  cudakit_complex64 z;
  z.re = (float)re;
  z.im = (float)im;
  return z;
}
__device__ inline cudakit_complex64 cudakit_c64(cudakit_complex64 z) { return z; }
__device__ inline cudakit_complex64 cudakit_c64(cudakit_complex128 z) {
  return cudakit_c64(z.re, z.im);
}
__device__ inline cudakit_complex128 cudakit_c128(double re, double im = 0) {
  cudakit_complex128 z;
  z.re = re;
  z.im = im;
  return z;
}
__device__ inline cudakit_complex128 cudakit_c128(cudakit_complex128 z) { return z; }
__device__ inline cudakit_complex128 cudakit_c128(cudakit_complex64 z) {
  return cudakit_c128(z.re, z.im);
}

#define CUDAKIT_COMPLEX_OPS(C, R, MAKE, SQRT, HYPOT)                                          \
  __device__ inline C operator+(C a, C b) { return MAKE(a.re + b.re, a.im + b.im); }           \
  __device__ inline C operator-(C a, C b) { return MAKE(a.re - b.re, a.im - b.im); }           \
  __device__ inline C operator*(C a, C b) {                                                     \
    return MAKE(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);                          \
  }                                                                                             \
  __device__ inline C operator/(C a, C b) {                                                     \
    /* Smith's algorithm: no overflow for large |b|. */                                         \
    R abs_re = b.re < 0 ? -b.re : b.re, abs_im = b.im < 0 ? -b.im : b.im;                       \
    if (abs_re >= abs_im) {                                                                     \
      if (abs_re == 0) return MAKE(a.re / abs_re, a.im / abs_re);                               \
      R r = b.im / b.re, d = b.re + b.im * r;                                                   \
      return MAKE((a.re + a.im * r) / d, (a.im - a.re * r) / d);                                \
    }                                                                                           \
    R r = b.re / b.im, d = b.im + b.re * r;                                                     \
    return MAKE((a.re * r + a.im) / d, (a.im * r - a.re) / d);                                  \
  }                                                                                             \
  __device__ inline C operator-(C a) { return MAKE(-a.re, -a.im); }                             \
  __device__ inline bool operator==(C a, C b) { return a.re == b.re && a.im == b.im; }         \
  __device__ inline bool operator!=(C a, C b) { return !(a == b); }                             \
  __device__ inline C cudakit_conj(C a) { return MAKE(a.re, -a.im); }                           \
  __device__ inline R cudakit_abs(C a) { return HYPOT(a.re, a.im); }                            \
  __device__ inline bool cudakit_truth(C a) { return a.re != 0 || a.im != 0; }                 \
  __device__ inline bool cudakit_isnan(C a) { return a.re != a.re || a.im != a.im; }           \
  __device__ inline bool cudakit_isinf(C a) {                                                   \
    return (a.re - a.re != 0 && a.re == a.re) || (a.im - a.im != 0 && a.im == a.im);            \
  }                                                                                             \
  __device__ inline bool cudakit_isfinite(C a) { return a.re - a.re == 0 && a.im - a.im == 0; }
CUDAKIT_COMPLEX_OPS(cudakit_complex64, float, cudakit_c64, sqrtf, hypotf)
CUDAKIT_COMPLEX_OPS(cudakit_complex128, double, cudakit_c128, sqrt, hypot)
#undef CUDAKIT_COMPLEX_OPS

template <class T>
__device__ inline bool cudakit_truth(T a) { return a != 0; }
template <class T>
__device__ inline bool cudakit_isnan(T a) { return a != a; }
template <class T>
__device__ inline bool cudakit_isinf(T a) { return a - a != 0 && a == a; }
template <class T>
__device__ inline bool cudakit_isfinite(T a) { return a - a == 0; }

// Math on float and double, by the C names both compilers know.
#define CUDAKIT_MATH1(NAME, F, D)                        \
  __device__ inline float NAME(float x) { return F(x); } \
  __device__ inline double NAME(double x) { return D(x); }
CUDAKIT_MATH1(cudakit_exp, expf, exp)
CUDAKIT_MATH1(cudakit_exp2, exp2f, exp2)
CUDAKIT_MATH1(cudakit_expm1, expm1f, expm1)
CUDAKIT_MATH1(cudakit_log, logf, log)
CUDAKIT_MATH1(cudakit_log2, log2f, log2)
CUDAKIT_MATH1(cudakit_log10, log10f, log10)
CUDAKIT_MATH1(cudakit_log1p, log1pf, log1p)
CUDAKIT_MATH1(cudakit_sqrt, sqrtf, sqrt)
CUDAKIT_MATH1(cudakit_cbrt, cbrtf, cbrt)
CUDAKIT_MATH1(cudakit_sin, sinf, sin)
CUDAKIT_MATH1(cudakit_cos, cosf, cos)
CUDAKIT_MATH1(cudakit_tan, tanf, tan)
CUDAKIT_MATH1(cudakit_arcsin, asinf, asin)
CUDAKIT_MATH1(cudakit_arccos, acosf, acos)
CUDAKIT_MATH1(cudakit_arctan, atanf, atan)
CUDAKIT_MATH1(cudakit_sinh, sinhf, sinh)
CUDAKIT_MATH1(cudakit_cosh, coshf, cosh)
CUDAKIT_MATH1(cudakit_tanh, tanhf, tanh)
CUDAKIT_MATH1(cudakit_arcsinh, asinhf, asinh)
CUDAKIT_MATH1(cudakit_arccosh, acoshf, acosh)
CUDAKIT_MATH1(cudakit_arctanh, atanhf, atanh)
CUDAKIT_MATH1(cudakit_floor, floorf, floor)
CUDAKIT_MATH1(cudakit_ceil, ceilf, ceil)
CUDAKIT_MATH1(cudakit_trunc, truncf, trunc)
CUDAKIT_MATH1(cudakit_rint, rintf, rint)
CUDAKIT_MATH1(cudakit_fabs, fabsf, fabs)
#undef CUDAKIT_MATH1
#define CUDAKIT_MATH2(NAME, F, D)                                  \
  __device__ inline float NAME(float x, float y) { return F(x, y); } \
  __device__ inline double NAME(double x, double y) { return D(x, y); }
CUDAKIT_MATH2(cudakit_arctan2, atan2f, atan2)
CUDAKIT_MATH2(cudakit_hypot, hypotf, hypot)
CUDAKIT_MATH2(cudakit_copysign, copysignf, copysign)
CUDAKIT_MATH2(cudakit_fmod, fmodf, fmod)
CUDAKIT_MATH2(cudakit_fmin, fminf, fmin)
CUDAKIT_MATH2(cudakit_fmax, fmaxf, fmax)
CUDAKIT_MATH2(cudakit_power, powf, pow)
#undef CUDAKIT_MATH2
__device__ inline float cudakit_ldexp(float x, long long e) {
  return ldexpf(x, (int)(e > 100000 ? 100000 : e < -100000 ? -100000 : e));
}
__device__ inline double cudakit_ldexp(double x, long long e) {
  return ldexp(x, (int)(e > 100000 ? 100000 : e < -100000 ? -100000 : e));
}
__device__ inline float cudakit_frexp_mantissa(float x) { int e; return frexpf(x, &e); }
__device__ inline double cudakit_frexp_mantissa(double x) { int e; return frexp(x, &e); }
__device__ inline int cudakit_frexp_exponent(float x) { int e = 0; frexpf(x, &e); return x - x == 0 ? e : 0; }
__device__ inline int cudakit_frexp_exponent(double x) { int e = 0; frexp(x, &e); return x - x == 0 ? e : 0; }
__device__ inline float cudakit_modf_fraction(float x) { float i; return modff(x, &i); }
__device__ inline double cudakit_modf_fraction(double x) { double i; return modf(x, &i); }
__device__ inline float cudakit_modf_integral(float x) { float i; modff(x, &i); return i; }
__device__ inline double cudakit_modf_integral(double x) { double i; modf(x, &i); return i; }

// Integer division and remainder with Python's (NumPy's) rounding; a zero
// divisor gives 0 instead of a trap, and MIN / -1 wraps.
template <class T>
__device__ inline T cudakit_floor_divide(T a, T b) {
  if (b == 0) return 0;
  if ((T)-1 < (T)0 && b == (T)-1) return (T)(0 - (unsigned long long)a);
  T q = (T)(a / b);
  if ((T)-1 < (T)0 && (a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
__device__ inline float cudakit_floor_divide(float a, float b) {
  if (b == 0) return a / b;
  float m = fmodf(a, b), d = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
  float f = floorf(d);
  return d - f > 0.5f ? f + 1 : (d == 0 ? copysignf(0.0f, a / b) : f);
}
__device__ inline double cudakit_floor_divide(double a, double b) {
  if (b == 0) return a / b;
  double m = fmod(a, b), d = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
  double f = floor(d);
  return d - f > 0.5 ? f + 1 : (d == 0 ? copysign(0.0, a / b) : f);
}
template <class T>
__device__ inline T cudakit_remainder(T a, T b) {
  if (b == 0 || ((T)-1 < (T)0 && b == (T)-1)) return 0;
  T r = (T)(a % b);
  if ((T)-1 < (T)0 && r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b);
  return r;
}
__device__ inline float cudakit_remainder(float a, float b) {
  if (b == 0) return fmodf(a, b);
  float m = fmodf(a, b);
  if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else m = copysignf(0.0f, b);
  return m;
}
__device__ inline double cudakit_remainder(double a, double b) {
  if (b == 0) return fmod(a, b);
  double m = fmod(a, b);
  if (m != 0) { if ((b < 0) != (m < 0)) m += b; } else m = copysign(0.0, b);
  return m;
}
template <class T>
__device__ inline T cudakit_fmod(T a, T b) {
  if (b == 0 || ((T)-1 < (T)0 && b == (T)-1)) return 0;
  return (T)(a % b);
}
template <class T>
__device__ inline T cudakit_power(T a, T b) {
  if ((T)-1 < (T)0 && b < 0) return a == 1 ? 1 : (a == (T)-1 ? ((b & 1) ? (T)-1 : 1) : 0);
  // Unsigned arithmetic wraps like NumPy's integers (signed overflow is UB in C).
  unsigned long long r = 1, x = (unsigned long long)a, e = (unsigned long long)b;
  for (; e; e >>= 1) {
    if (e & 1) r *= x;
    x *= x;
  }
  return (T)r;
}
template <class T>
__device__ inline T cudakit_reciprocal(T a) { return a == 0 ? 0 : (T)(1 / a); }
__device__ inline float cudakit_reciprocal(float a) { return 1.0f / a; }
__device__ inline double cudakit_reciprocal(double a) { return 1.0 / a; }
__device__ inline cudakit_complex64 cudakit_reciprocal(cudakit_complex64 a) { return cudakit_c64(1.0) / a; }
__device__ inline cudakit_complex128 cudakit_reciprocal(cudakit_complex128 a) { return cudakit_c128(1.0) / a; }
// Shifts by the operand's width or more give 0 (or -1 for negative >>), as NumPy defines them.
template <class T>
__device__ inline T cudakit_left_shift(T a, T b) {
  if (b < 0 || (unsigned long long)b >= sizeof(T) * 8) return 0;
  return (T)((unsigned long long)a << b);
}
template <class T>
__device__ inline T cudakit_right_shift(T a, T b) {
  if (b < 0 || (unsigned long long)b >= sizeof(T) * 8) return (T)(a < 0 ? -1 : 0);
  return (T)(a >> b);
}
template <class T>
__device__ inline T cudakit_sign(T a) { return (T)(a > 0 ? 1 : (a < 0 ? -1 : (a == 0 ? 0 : a))); }
template <class T>
__device__ inline T cudakit_absolute(T a) { return a < 0 ? (T)(0 - a) : a; }
__device__ inline float cudakit_absolute(float a) { return fabsf(a); }
__device__ inline double cudakit_absolute(double a) { return fabs(a); }
// NaN-propagating minimum / maximum (np.minimum / np.maximum).
template <class T>
__device__ inline T cudakit_minimum(T a, T b) { return (a < b || a != a) ? a : b; }
template <class T>
__device__ inline T cudakit_maximum(T a, T b) { return (a > b || a != a) ? a : b; }
template <class T>
__device__ inline T cudakit_fmin(T a, T b) { return a < b ? a : b; }
template <class T>
__device__ inline T cudakit_fmax(T a, T b) { return a > b ? a : b; }

// ---- complex math ----
// NumPy's complex functions with the branch cuts and special values of C99
// Annex G (NumPy uses the C library's, as std::complex does). Written once
// over the component type: float math for complex64, double for complex128.
template <class C> struct cudakit_complex_traits;
template <> struct cudakit_complex_traits<cudakit_complex64> {
  typedef float real;
  // exp(x) overflows above this: larger arguments are split in two factors.
  __device__ static float exp_limit() { return 88.0f; }
  // tanh(x) rounds to +-1 beyond this.
  __device__ static float tanh_limit() { return 9.0f; }
  // Squares of larger components may overflow: the functions switch to
  // scaled or asymptotic forms (exact to rounding at these sizes).
  __device__ static float big() { return 1e18f; }
};
template <> struct cudakit_complex_traits<cudakit_complex128> {
  typedef double real;
  __device__ static double exp_limit() { return 709.0; }
  __device__ static double tanh_limit() { return 22.0; }
  __device__ static double big() { return 1e150; }
};
template <class C>
__device__ inline C cudakit_cmake(typename cudakit_complex_traits<C>::real re,
                                  typename cudakit_complex_traits<C>::real im) {
  C z;
  z.re = re;
  z.im = im;
  return z;
}
// Multiplies by -i (or i): rotates, as the C99 identities casin(z) = -i casinh(iz) need.
template <class C>
__device__ inline C cudakit_mul_i(C z) { return cudakit_cmake<C>(-z.im, z.re); }
template <class C>
__device__ inline C cudakit_mul_minus_i(C z) { return cudakit_cmake<C>(z.im, -z.re); }

template <class C>
__device__ inline C cudakit_cexp(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const R x = z.re, y = z.im;
  if (y == 0) return cudakit_cmake<C>(cudakit_exp(x), y);  // keeps the sign of a zero y
  if (!cudakit_isfinite(y)) {
    if (cudakit_isinf(x))
      return x > 0 ? cudakit_cmake<C>(x, y - y) : cudakit_cmake<C>((R)0, cudakit_copysign((R)0, y));
    return cudakit_cmake<C>(y - y, y - y);
  }
  if (x > cudakit_complex_traits<C>::exp_limit()) {
    // exp(x) * cos(y) may be finite where exp(x) is not.
    const R h = cudakit_exp(x * (R)0.5);
    return cudakit_cmake<C>(h * cudakit_cos(y) * h, h * cudakit_sin(y) * h);
  }
  const R e = cudakit_exp(x);
  return cudakit_cmake<C>(e * cudakit_cos(y), e * cudakit_sin(y));
}

template <class C>
__device__ inline C cudakit_clog(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const R x = z.re, y = z.im;
  R ax = cudakit_fabs(x), ay = cudakit_fabs(y);
  if (ax < ay) { const R t = ax; ax = ay; ay = t; }
  if (ax > cudakit_complex_traits<C>::big() && cudakit_isfinite(ax))  // |z| may overflow
    return cudakit_cmake<C>(
        cudakit_log(cudakit_hypot(x * (R)0.5, y * (R)0.5)) + (R)0.693147180559945309417,
        cudakit_arctan2(y, x));
  const R h = cudakit_hypot(x, y);
  // Near |z| = 1, log(|z|) is tiny: log1p(|z|^2 - 1) keeps its digits.
  const R re = (h > (R)0.75 && h < (R)1.5) ? (R)0.5 * cudakit_log1p((ax - 1) * (ax + 1) + ay * ay)
                                          : cudakit_log(h);  // log(0) = -inf
  return cudakit_cmake<C>(re, cudakit_arctan2(y, x));
}

template <class C>
__device__ inline C cudakit_csqrt(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  R x = z.re, y = z.im;
  if (x == 0 && y == 0) return cudakit_cmake<C>((R)0, y);
  if (cudakit_isinf(y)) return cudakit_cmake<C>(cudakit_fabs(y), y);
  if (x != x) return cudakit_cmake<C>(x, x);
  if (cudakit_isinf(x))
    return x < 0 ? cudakit_cmake<C>(cudakit_fabs(y - y), cudakit_copysign(-x, y))
                 : cudakit_cmake<C>(x, cudakit_copysign(y - y, y));
  // Kahan's form: no cancellation on either side of the cut; scaled so
  // |x| + |z| cannot overflow.
  const bool scale = cudakit_fabs(x) >= cudakit_complex_traits<C>::big() ||
                     cudakit_fabs(y) >= cudakit_complex_traits<C>::big();
  if (scale) { x *= (R)0.25; y *= (R)0.25; }
  const R h = cudakit_hypot(x, y);
  R re, im;
  if (x >= 0) {
    re = cudakit_sqrt((x + h) * (R)0.5);
    im = y / (2 * re);
  } else {
    im = cudakit_copysign(cudakit_sqrt((h - x) * (R)0.5), y);
    re = cudakit_fabs(y) / (2 * cudakit_fabs(im));
  }
  if (scale) { re *= 2; im *= 2; }
  return cudakit_cmake<C>(re, im);
}

template <class C>
__device__ inline C cudakit_csinh(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const R x = z.re, y = z.im;
  if (y == 0) return cudakit_cmake<C>(cudakit_sinh(x), y);
  if (!cudakit_isfinite(y) && x == 0) return cudakit_cmake<C>(x, y - y);
  if (!cudakit_isfinite(y) && cudakit_isinf(x)) return cudakit_cmake<C>(cudakit_fabs(x), y - y);
  if (cudakit_fabs(x) > cudakit_complex_traits<C>::exp_limit()) {
    // sinh(x) ~ cosh(x) ~ exp(|x|) / 2 there, and may overflow before the product does.
    const R h = cudakit_exp(cudakit_fabs(x) * (R)0.5);
    return cudakit_cmake<C>(cudakit_copysign((R)1, x) * (h * ((R)0.5 * cudakit_cos(y)) * h),
                            h * ((R)0.5 * cudakit_sin(y)) * h);
  }
  return cudakit_cmake<C>(cudakit_sinh(x) * cudakit_cos(y), cudakit_cosh(x) * cudakit_sin(y));
}

template <class C>
__device__ inline C cudakit_ccosh(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const R x = z.re, y = z.im;
  if (y == 0) return cudakit_cmake<C>(cudakit_cosh(x), cudakit_copysign((R)0, x) * y);
  if (!cudakit_isfinite(y) && x == 0) return cudakit_cmake<C>(y - y, x);
  if (!cudakit_isfinite(y) && cudakit_isinf(x)) return cudakit_cmake<C>(cudakit_fabs(x), y - y);
  if (cudakit_fabs(x) > cudakit_complex_traits<C>::exp_limit()) {
    const R h = cudakit_exp(cudakit_fabs(x) * (R)0.5);
    return cudakit_cmake<C>(h * ((R)0.5 * cudakit_cos(y)) * h,
                            cudakit_copysign((R)1, x) * (h * ((R)0.5 * cudakit_sin(y)) * h));
  }
  return cudakit_cmake<C>(cudakit_cosh(x) * cudakit_cos(y), cudakit_sinh(x) * cudakit_sin(y));
}

template <class C>
__device__ inline C cudakit_ctanh(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const R x = z.re, y = z.im;
  if (!cudakit_isfinite(x)) {
    if (x != x) return cudakit_cmake<C>(x, y == 0 ? y : x * y);
    const R direction = cudakit_isinf(y) ? y : cudakit_sin(y) * cudakit_cos(y);
    return cudakit_cmake<C>(cudakit_copysign((R)1, x), cudakit_copysign((R)0, direction));
  }
  if (!cudakit_isfinite(y)) return cudakit_cmake<C>(x == 0 ? x : y - y, y - y);
  if (cudakit_fabs(x) >= cudakit_complex_traits<C>::tanh_limit()) {
    const R e = cudakit_exp(-cudakit_fabs(x));
    return cudakit_cmake<C>(cudakit_copysign((R)1, x), 4 * cudakit_sin(y) * cudakit_cos(y) * e * e);
  }
  // Kahan's formulation: no cancellation, exact at y = 0 and x = 0.
  const R t = cudakit_tan(y), beta = 1 + t * t, s = cudakit_sinh(x), rho = cudakit_sqrt(1 + s * s);
  const R d = 1 + beta * s * s;
  return cudakit_cmake<C>(beta * rho * s / d, t / d);
}

// asin by Kahan's formulas ("Branch cuts for complex elementary functions"):
// the square roots of 1 - z and 1 + z carry the signs of zero across the
// cuts, and no sum in them cancels.
template <class C>
__device__ inline C cudakit_casin_kahan(C z) {
  const C s1 = cudakit_csqrt(cudakit_cmake<C>(1 - z.re, -z.im));
  const C s2 = cudakit_csqrt(cudakit_cmake<C>(1 + z.re, z.im));
  return cudakit_cmake<C>(cudakit_arctan2(z.re, s1.re * s2.re - s1.im * s2.im),
                          cudakit_arcsinh(s1.re * s2.im - s1.im * s2.re));
}
template <class C>
__device__ inline bool cudakit_chuge(C z) {
  return cudakit_fabs(z.re) > cudakit_complex_traits<C>::big() ||
         cudakit_fabs(z.im) > cudakit_complex_traits<C>::big();
}
// asinh for huge or infinite |z|: log(2z) in the right half plane, exact to
// rounding there (the next term is 1 / (4 z^2)).
template <class C>
__device__ inline C cudakit_carcsinh_huge(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  C w = cudakit_clog(cudakit_cmake<C>(cudakit_fabs(z.re), cudakit_fabs(z.im)));
  w.re += (R)0.693147180559945309417;
  return cudakit_cmake<C>(cudakit_copysign(w.re, z.re), cudakit_copysign(w.im, z.im));
}
template <class C>
__device__ inline C cudakit_carcsinh(C z) {
  if (z.im == 0 && z.re != z.re) return z;  // C99: asinh(NaN +- 0i) keeps the zero
  if (cudakit_chuge(z)) return cudakit_carcsinh_huge(z);
  return cudakit_mul_minus_i(cudakit_casin_kahan(cudakit_mul_i(z)));  // -i asin(iz)
}
template <class C>
__device__ inline C cudakit_carcsin(C z) {
  if (z.re == 0 && z.im != z.im) return z;
  if (cudakit_chuge(z)) return cudakit_mul_minus_i(cudakit_carcsinh_huge(cudakit_mul_i(z)));
  return cudakit_casin_kahan(z);
}
template <class C>
__device__ inline C cudakit_carccos(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  if (z.re == 0 && z.im != z.im) return cudakit_cmake<C>((R)1.57079632679489661923, z.im);
  if (cudakit_chuge(z)) {
    const C w = cudakit_carcsin(z);
    return cudakit_cmake<C>((R)1.57079632679489661923 - w.re, -w.im);
  }
  const C s1 = cudakit_csqrt(cudakit_cmake<C>(1 - z.re, -z.im));
  const C s2 = cudakit_csqrt(cudakit_cmake<C>(1 + z.re, z.im));
  return cudakit_cmake<C>(2 * cudakit_arctan2(s1.re, s2.re),
                          cudakit_arcsinh(s2.re * s1.im - s2.im * s1.re));
}
template <class C>
__device__ inline C cudakit_carccosh(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  if (z.re == 0 && z.im != z.im) return cudakit_cmake<C>(z.im, (R)1.57079632679489661923);
  if (cudakit_chuge(z)) {
    // acosh(z) = +-i acos(z), the sign making the real part non-negative.
    const C w = cudakit_carccos(z);
    return cudakit_copysign((R)1, z.im) < 0 ? cudakit_mul_minus_i(w) : cudakit_mul_i(w);
  }
  const C s1 = cudakit_csqrt(cudakit_cmake<C>(z.re - 1, z.im));
  const C s2 = cudakit_csqrt(cudakit_cmake<C>(z.re + 1, z.im));
  return cudakit_cmake<C>(cudakit_arcsinh(s1.re * s2.re + s1.im * s2.im),
                          2 * cudakit_arctan2(s1.im, s2.re));
}
template <class C>
__device__ inline C cudakit_carctanh(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  // Odd and conjugate-symmetric: computed for |x| + i|y|, signs put back.
  const R ax = cudakit_fabs(z.re), ay = cudakit_fabs(z.im);
  R re, im;
  if (z.re == 0 && z.im != z.im) return z;
  if (cudakit_chuge(z)) {
    const R h = cudakit_hypot(ax, ay);  // atanh(z) ~ 1/z
    re = cudakit_isinf(h) ? (R)0 : (ax / h) / h;
    im = ay != ay ? ay : (ax != ax && !cudakit_isinf(ay)) ? ax : (R)1.57079632679489661923;
  } else {
    const R d = 1 - ax;
    re = (R)0.25 * cudakit_log1p(4 * ax / (d * d + ay * ay));
    im = (R)0.5 * cudakit_arctan2(2 * ay, d * (1 + ax) - ay * ay);
  }
  return cudakit_cmake<C>(cudakit_copysign(re, z.re), cudakit_copysign(im, z.im));
}

// NumPy's power: exact products for small integral exponents (as numpy's
// cpow), 0 ** 0 = 1, 0 ** (positive real part) = 0, otherwise exp(b log a).
template <class C>
__device__ inline C cudakit_cpower(C a, C b) {
  typedef typename cudakit_complex_traits<C>::real R;
  if (b.re == 0 && b.im == 0) return cudakit_cmake<C>((R)1, (R)0);
  if (a.re == 0 && a.im == 0) {
    if (b.re > 0) return cudakit_cmake<C>((R)0, (R)0);
    const R nan = (R)0 * (R)(1e300 * 1e300);
    return cudakit_cmake<C>(nan, nan);
  }
  if (b.im == 0 && b.re > -100 && b.re < 100 && b.re == (R)(long long)b.re) {
    long long n = (long long)b.re;
    if (n == 1) return a;
    if (n == 2) return a * a;
    if (n == 3) return a * (a * a);
    C r = cudakit_cmake<C>((R)1, (R)0), p = a;
    for (long long m = n < 0 ? -n : n; m; m >>= 1) {
      if (m & 1) r = r * p;
      if (m > 1) p = p * p;
    }
    return n < 0 ? cudakit_cmake<C>((R)1, (R)0) / r : r;
  }
  return cudakit_cexp(b * cudakit_clog(a));
}

// The rest of NumPy's complex ufuncs. The generated code calls the complex
// version of `op` as cudakit_c<op>; all are templates, so a kernel compiles
// only the ones it uses.
template <class C>
__device__ inline C cudakit_cexp2(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const R ln2 = (R)0.693147180559945309417;
  return cudakit_cexp(cudakit_cmake<C>(z.re * ln2, z.im * ln2));
}
template <class C>
__device__ inline C cudakit_cexpm1(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  // exp(x) cos(y) - 1 without cancellation near 0 (NumPy's formula).
  const R s = cudakit_sin(z.im * (R)0.5);
  return cudakit_cmake<C>(cudakit_expm1(z.re) * cudakit_cos(z.im) - 2 * s * s,
                          cudakit_exp(z.re) * cudakit_sin(z.im));
}
template <class C>
__device__ inline C cudakit_clog2(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const C w = cudakit_clog(z);
  const R k = (R)1.44269504088896340736;  // 1 / ln 2
  return cudakit_cmake<C>(w.re * k, w.im * k);
}
template <class C>
__device__ inline C cudakit_clog10(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const C w = cudakit_clog(z);
  const R k = (R)0.434294481903251827651;  // 1 / ln 10
  return cudakit_cmake<C>(w.re * k, w.im * k);
}
template <class C>
__device__ inline C cudakit_clog1p(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const R x = z.re, y = z.im;
  // log|1 + z| = log1p(2x + x^2 + y^2) / 2 keeps the digits of a small z;
  // elsewhere 1 + x is exact or z is not small, and log(1 + z) is as good.
  if (cudakit_fabs(x) < (R)0.5 && cudakit_fabs(y) < (R)0.5)
    return cudakit_cmake<C>((R)0.5 * cudakit_log1p(x * (2 + x) + y * y),
                            cudakit_arctan2(y, 1 + x));
  return cudakit_clog(cudakit_cmake<C>(1 + x, y));
}
// sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan(z) = -i tanh(iz), atan(z) = -i atanh(iz).
template <class C>
__device__ inline C cudakit_csin(C z) {
  return cudakit_mul_minus_i(cudakit_csinh(cudakit_mul_i(z)));
}
template <class C>
__device__ inline C cudakit_ccos(C z) { return cudakit_ccosh(cudakit_mul_i(z)); }
template <class C>
__device__ inline C cudakit_ctan(C z) {
  return cudakit_mul_minus_i(cudakit_ctanh(cudakit_mul_i(z)));
}
template <class C>
__device__ inline C cudakit_carctan(C z) {
  return cudakit_mul_minus_i(cudakit_carctanh(cudakit_mul_i(z)));
}
template <class C>
__device__ inline C cudakit_crint(C z) {
  return cudakit_cmake<C>(cudakit_rint(z.re), cudakit_rint(z.im));
}
// NumPy 2: z / |z|, 0 for 0, NaN for NaN; one infinite part gives its axis.
template <class C>
__device__ inline C cudakit_csign(C z) {
  typedef typename cudakit_complex_traits<C>::real R;
  const R a = cudakit_hypot(z.re, z.im);
  if (a != a) return cudakit_cmake<C>(a, a);
  if (cudakit_isinf(a)) {
    if (cudakit_isinf(z.re) && cudakit_isinf(z.im)) return cudakit_cmake<C>(a - a, a - a);
    if (cudakit_isinf(z.re)) return cudakit_cmake<C>(z.re > 0 ? (R)1 : (R)-1, (R)0);
    return cudakit_cmake<C>((R)0, z.im > 0 ? (R)1 : (R)-1);
  }
  if (a == 0) return cudakit_cmake<C>((R)0, (R)0);
  return cudakit_cmake<C>(z.re / a, z.im / a);
}
// NumPy orders complex numbers lexicographically (real part first) in
// maximum / minimum; a NaN in either part makes the number NaN.
template <class C>
__device__ inline bool cudakit_cnan(C z) { return z.re != z.re || z.im != z.im; }
template <class C>
__device__ inline bool cudakit_cge(C a, C b) {
  return (a.re > b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im >= b.im);
}
template <class C>
__device__ inline bool cudakit_cle(C a, C b) {
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);
}
// a < b and a > b as NumPy's CLT / CGT: a NaN real part compares false.
template <class C>
__device__ inline bool cudakit_clt(C a, C b) {
  return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);
}
template <class C>
__device__ inline bool cudakit_cgt(C a, C b) {
  return (a.re > b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im > b.im);
}
template <class C>
__device__ inline C cudakit_cmaximum(C a, C b) {
  return (cudakit_cnan(a) || cudakit_cge(a, b)) ? a : b;
}
template <class C>
__device__ inline C cudakit_cminimum(C a, C b) {
  return (cudakit_cnan(a) || cudakit_cle(a, b)) ? a : b;
}
template <class C>
__device__ inline C cudakit_cfmax(C a, C b) {
  return (cudakit_cge(a, b) || cudakit_cnan(b)) ? a : b;
}
template <class C>
__device__ inline C cudakit_cfmin(C a, C b) {
  return (cudakit_cle(a, b) || cudakit_cnan(b)) ? a : b;
}
#endif  // CUDAKIT_ARRAY_PRELUDE
// ---- end of prelude ----
)PRELUDE";
  return text;
}

}  // namespace cudakit::detail
