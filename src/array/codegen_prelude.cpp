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
__device__ inline cudakit_complex64 cudakit_c64(cudakit_complex128 z) { return cudakit_c64(z.re, z.im); }
__device__ inline cudakit_complex128 cudakit_c128(double re, double im = 0) {
  cudakit_complex128 z;
  z.re = re;
  z.im = im;
  return z;
}
__device__ inline cudakit_complex128 cudakit_c128(cudakit_complex128 z) { return z; }
__device__ inline cudakit_complex128 cudakit_c128(cudakit_complex64 z) { return cudakit_c128(z.re, z.im); }

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
  T r = 1;
  while (b) {
    if (b & 1) r = (T)(r * a);
    a = (T)(a * a);
    b = (T)(b >> 1);
  }
  return r;
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
#endif  // CUDAKIT_ARRAY_PRELUDE
// ---- end of prelude ----
)PRELUDE";
  return text;
}

}  // namespace cudakit::detail
