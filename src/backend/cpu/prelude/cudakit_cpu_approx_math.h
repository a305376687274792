// The GPU's approximate functions (the SFU's MUFU.SIN, COS, EX2, LG2, RSQ
// and RCP behind sin.approx.f32, cos.approx.f32 and the .ftz forms of
// ex2.approx, lg2.approx, rsqrt.approx and rcp.approx) and the CUDA math
// library's expf and logf, bit for bit as an H200 computes them (checked
// there on all 2^32 inputs, scripts/probes/approx_math.cu). The SFU
// interpolates in tables of its own; cudakit carries their outputs, measured
// on the GPU:
//   half_turn[q], q < 2^24: sin(2 pi q 2^-25) as MUFU.SIN gives it, for the
//     first half turn (the input in turns, cut to 25 fraction bits);
//   fraction[f], f < 2^23: 2^(f 2^-23) as MUFU.EX2 gives it;
//   lg2 of [0.5, 1) and of [1, 2), rsqrt of [1, 4), rcp of [1, 2): every float.
// The rules around the tables were measured the same way: sin.approx.f32
// first multiplies by 1/(2 pi) rounding toward zero; MUFU.SIN takes the
// fraction of |turns|, negates the second half turn and follows the input's
// sign; MUFU.COS is MUFU.SIN a quarter turn on (and even); MUFU.EX2 cuts |x|
// to 23 fraction bits, takes negative inputs in one's complement and flushes
// results below 2^-126 to zero. NaN gives the GPU's NaN (0x7fffffff).
//
// Plain C++ (host or, with CUDAKIT_APPROX_FN defined as __host__ __device__,
// CUDA device code), so the probe that checks it runs the same lines.
#ifndef CUDAKIT_CPU_APPROX_MATH_H
#define CUDAKIT_CPU_APPROX_MATH_H

#ifndef CUDAKIT_APPROX_FN
#define CUDAKIT_APPROX_FN inline
#endif

namespace cudakit_approx {

CUDAKIT_APPROX_FN float from_bits(unsigned bits) {
#if defined(__CUDA_ARCH__) && !defined(__CUDAKIT_CPU__)
  return __uint_as_float(bits);
#else
  float value;
  __builtin_memcpy(&value, &bits, sizeof value);
  return value;
#endif
}
CUDAKIT_APPROX_FN unsigned to_bits(float value) {
#if defined(__CUDA_ARCH__) && !defined(__CUDAKIT_CPU__)
  return __float_as_uint(value);
#else
  unsigned bits;
  __builtin_memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}
constexpr unsigned kGpuNan = 0x7fffffffu;
constexpr unsigned kHalfTurnEntries = 1u << 24;
constexpr unsigned kFractionEntries = 1u << 23;

// A double rounded toward zero to a float.
CUDAKIT_APPROX_FN float toward_zero(double exact) {
  float rounded = (float)exact;
  if (fabs((double)rounded) > fabs(exact)) rounded = from_bits(to_bits(rounded) - 1);
  return rounded;
}
// a * b rounded toward zero (FMUL.RZ): the product is exact in double.
CUDAKIT_APPROX_FN float mul_toward_zero(float a, float b) {
  return toward_zero((double)a * (double)b);
}
// 1/(2 pi) as sin.approx.f32 and cos.approx.f32 multiply by it.
constexpr float kTurnsPerRadian = 0.15915494f;

// MUFU.SIN of `turns` (cosine: quarter_turns = 1, and the input's sign is dropped).
CUDAKIT_APPROX_FN float sine_of_turns(const unsigned* half_turn, float turns,
                                      unsigned quarter_turns) {
  const unsigned bits = to_bits(turns);
  if ((bits & 0x7fffffffu) >= 0x7f800000u) return from_bits(kGpuNan);
  double magnitude = fabs((double)turns);
  magnitude -= floor(magnitude);
  const unsigned q = ((unsigned)(magnitude * 0x1p25) + (quarter_turns << 23)) & ((1u << 25) - 1);
  unsigned out =
      q >= kHalfTurnEntries ? half_turn[q - kHalfTurnEntries] ^ 0x80000000u : half_turn[q];
  if (quarter_turns == 0) out ^= bits & 0x80000000u;
  return from_bits(out);
}
// sin.approx.f32 and cos.approx.f32 (__sinf, __cosf, __sincosf).
CUDAKIT_APPROX_FN float sin_approx(const unsigned* half_turn, float x) {
  return sine_of_turns(half_turn, mul_toward_zero(x, kTurnsPerRadian), 0);
}
CUDAKIT_APPROX_FN float cos_approx(const unsigned* half_turn, float x) {
  return sine_of_turns(half_turn, mul_toward_zero(x, kTurnsPerRadian), 1);
}

// ex2.approx.ftz.f32.
CUDAKIT_APPROX_FN float ex2_approx(const unsigned* fraction, float x) {
  if (x != x) return from_bits(kGpuNan);
  const bool negative = (to_bits(x) & 0x80000000u) != 0;
  const double magnitude = fabs((double)x);
  if (magnitude >= 128.0) return negative ? 0.0f : from_bits(0x7f800000u);
  const unsigned fixed = (unsigned)(magnitude * 0x1p23);
  const int whole = (int)(fixed >> 23);
  const unsigned part = fixed & (kFractionEntries - 1);
  double result;
  if (!negative)
    result = ldexp((double)from_bits(fraction[part]), whole);
  else if (part == 0)
    result = ldexp((double)from_bits(fraction[0]), -whole);
  else
    result = ldexp((double)from_bits(fraction[kFractionEntries - 1 - part]), -whole - 1);
  return result < 0x1p-126 ? 0.0f : (float)result;
}

// The unbiased exponent of a normal float's bits.
CUDAKIT_APPROX_FN int exponent_of(unsigned bits) { return (int)((bits >> 23) & 0xffu) - 127; }

// lg2.approx.ftz.f32. The SFU's log2 of the mantissa m (a fixed-point value
// finer than a float holds) plus the exponent, cut toward zero to a float:
// the tables hold it for x in [1, 2) (e = 0) and [0.5, 1) (e = -1); for
// e >= 1 the cut of e + F is that of F, for e <= -2 that of F - 1.
CUDAKIT_APPROX_FN float lg2_approx(const unsigned* below_one, const unsigned* from_one, float x) {
  const unsigned bits = to_bits(x);
  if (x != x) return from_bits(kGpuNan);
  if ((bits & 0x7f800000u) == 0) return -from_bits(0x7f800000u);  // zero, flushed subnormal
  if (bits >> 31) return from_bits(kGpuNan);
  if (bits == 0x7f800000u) return x;
  const int e = exponent_of(bits);
  const unsigned m = bits & 0x7fffffu;
  if (e == 0) return from_bits(from_one[m]);
  if (e == -1) return from_bits(below_one[m]);
  const double f = e > 0 ? (double)from_bits(from_one[m]) : (double)from_bits(below_one[m]) + 1.0;
  return toward_zero((double)e + f);
}

// rsqrt.approx.ftz.f32: a table over [1, 4) (mantissa and the exponent's
// parity) and the halved exponent.
CUDAKIT_APPROX_FN float rsqrt_approx(const unsigned* one_to_four, float x) {
  const unsigned bits = to_bits(x);
  if (x != x) return from_bits(kGpuNan);
  if ((bits & 0x7f800000u) == 0) return from_bits((bits & 0x80000000u) | 0x7f800000u);
  if (bits >> 31) return from_bits(kGpuNan);
  if (bits == 0x7f800000u) return 0.0f;
  const int e = exponent_of(bits);
  const int odd = e & 1;
  const float y = from_bits(one_to_four[(bits & 0x7fffffu) | ((unsigned)odd << 23)]);
  return (float)ldexp((double)y, -(e - odd) / 2);
}

// rcp.approx.ftz.f32: a table over [1, 2) and the negated exponent; results
// below 2^-126 flush to zero.
CUDAKIT_APPROX_FN float rcp_approx(const unsigned* one_to_two, float x) {
  const unsigned bits = to_bits(x), sign = bits & 0x80000000u;
  if (x != x) return from_bits(kGpuNan);
  if ((bits & 0x7f800000u) == 0) return from_bits(sign | 0x7f800000u);
  if ((bits & 0x7fffffffu) == 0x7f800000u) return from_bits(sign);
  const double y = ldexp((double)from_bits(one_to_two[bits & 0x7fffffu]), -exponent_of(bits));
  return y < 0x1p-126 ? from_bits(sign) : from_bits(to_bits((float)y) | sign);
}

// The CUDA math library's expf (without fast math): a split of x log2(e)
// into an integer and a fraction, ex2.approx of the fraction.
CUDAKIT_APPROX_FN float gpu_expf(const unsigned* fraction, float x) {
  float t = fmaf(x, from_bits(0x3bbb989du), 0.5f);                // x log2(e) / 252 + 1/2
  t = t != t ? 0.0f : (t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t));  // saturate
  // FFMA.RM: the exact result is positive, so toward minus infinity is toward zero.
  const float scaled =
      toward_zero((double)t * from_bits(0x437c0000u) + (double)from_bits(0x4b400001u));
  const float whole = scaled + from_bits(0xcb40007fu);
  float reduced = fmaf(x, from_bits(0x3fb8aa3bu), -whole);
  reduced = fmaf(x, from_bits(0x32a57060u), reduced);
  return ex2_approx(fraction, reduced) * from_bits(to_bits(scaled) << 23);
}

// The CUDA math library's logf (without fast math): fused multiply-adds only.
CUDAKIT_APPROX_FN float gpu_logf(float x) {
  const bool subnormal = x < from_bits(0x00800000u);
  const float a = subnormal ? x * from_bits(0x4b000000u) : x;
  const float bias = subnormal ? -23.0f : 0.0f;
  const unsigned bits = to_bits(a);
  const unsigned exponent_bits = (bits - 0x3f2aaaabu) & 0xff800000u;
  const float m = from_bits(bits - exponent_bits) - 1.0f;
  const float e = fmaf((float)(int)exponent_bits, from_bits(0x34000000u), bias);
  float p = fmaf(from_bits(0xbe055027u), m, from_bits(0x3e1039f6u));
  p = fmaf(p, m, from_bits(0xbdf8cdccu));
  p = fmaf(p, m, from_bits(0x3e0f2955u));
  p = fmaf(p, m, from_bits(0xbe2ad8b9u));
  p = fmaf(p, m, from_bits(0x3e4ced0bu));
  p = fmaf(p, m, from_bits(0xbe7fff22u));
  p = fmaf(p, m, from_bits(0x3eaaaa78u));
  p = fmaf(p, m, -0.5f);
  const float q = m * p;
  float result = fmaf(e, from_bits(0x3f317218u), fmaf(q, m, m));
  if (bits >= 0x7f800000u) result = fmaf(a, from_bits(0x7f800000u), from_bits(0x7f800000u));
  return a == 0.0f ? -from_bits(0x7f800000u) : result;
}

}  // namespace cudakit_approx

#ifdef CUDAKIT_CPU_PRELUDE_H
// In the CPU backend's prelude: __sinf, __cosf and __sincosf are the GPU's,
// from the runtime's tables (the host's sinf/cosf where the runtime could not
// decode them: no libz.so.1 on the system).
namespace cudakit_cpu {
static inline const unsigned* approx_table(ApproxTableId which) {
  return runtime->approx_table(which);
}
static inline float gpu_sinf(float x) {
  const unsigned* half_turn = approx_table(kApproxHalfTurn);
  return half_turn ? ::cudakit_approx::sin_approx(half_turn, x) : sinf(x);
}
static inline float gpu_cosf(float x) {
  const unsigned* half_turn = approx_table(kApproxHalfTurn);
  return half_turn ? ::cudakit_approx::cos_approx(half_turn, x) : cosf(x);
}
static inline void gpu_sincosf(float x, float* sine, float* cosine) {
  *sine = gpu_sinf(x);
  *cosine = gpu_cosf(x);
}
}  // namespace cudakit_cpu
#endif

#endif  // CUDAKIT_CPU_APPROX_MATH_H
