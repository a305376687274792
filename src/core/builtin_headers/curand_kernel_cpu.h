// <curand_kernel.h> for kernels on cudakit's CPU backend: the device API of
// cuRAND (XORWOW, Philox4_32_10, MRG32k3a and, in curand_kernel_cpu_sobol.h,
// the Sobol quasi-random states) written after the CUDA
// toolkit's own curand_kernel.h, which is its specification. The states have
// the toolkit's layout, and curand_init, curand, curand4, skipahead and
// skipahead_sequence compute the same state and the same 32-bit outputs as
// the GPU; the uniform functions are exact transformations of those bits, so
// they match the GPU bit for bit too, and so do the double normals (the GPU's
// log and sincospi are reproduced step for step below), and so do the float
// normals, log-normals and Poisson draws: the GPU's formulas with its fused
// multiply-adds, its logf and expf, and its hardware approximations
// (__sincosf; ex2, lg2, rsqrt and rcp in the Poisson rejection method) from
// the tables measured on an H200 (the prelude's cudakit_cpu_approx_math.h).
// (Where lambda is a compile-time constant, ptxas evaluates the rejection
// method's lambda-only approximations exactly instead, and a draw can differ.)
// The skip-ahead matrices (the toolkit's curand_precalc.h and
// curand_mrg32k3a.h tables) are computed once, on first use, from the
// generators' recurrences.
// MTGP32 is not provided: its use stops the compile with an error naming the
// state.
#ifndef CUDAKIT_CURAND_KERNEL_CPU_H
#define CUDAKIT_CURAND_KERNEL_CPU_H
#define CURAND_KERNEL_H_

#include <math.h>
#include <string.h>

// C++ linkage (the functions are overloaded on the state) even where the
// kernel's source is wrapped in extern "C", as SourceModule wraps it.
extern "C++" {

#define CUDAKIT_CURAND_FN static inline

// ---- constants (curand_globals.h, curand_kernel.h) ---------------------------
#define CURAND_2POW32 (4294967296.f)
#define CURAND_2POW32_DOUBLE (4294967296.)
#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW32_INV_DOUBLE (2.3283064365386963e-10)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)
#define CURAND_2PI (6.2831855f)
#define CURAND_2POW53_INV_2PI_DOUBLE (1.1102230246251565e-16 * 6.2831853071795860)
#define CURAND_PI_DOUBLE (3.1415926535897932)
#define CURAND_2PI_DOUBLE (6.2831853071795860)
#define CURAND_SQRT2 (-1.4142135f)
#define CURAND_SQRT2_DOUBLE (-1.4142135623730951)
#define EXTRA_FLAG_NORMAL 0x00000001
#define EXTRA_FLAG_LOG_NORMAL 0x00000002
#define MRG32K3A_MOD1 4294967087.
#define MRG32K3A_MOD2 4294944443.
#define MRG32K3A_A12 1403580.
#define MRG32K3A_A13N 810728.
#define MRG32K3A_A21 527612.
#define MRG32K3A_A23N 1370589.
#define MRG32K3A_NORM (2.3283065498378288e-10)
#define MRG32K3A_BITS_NORM 1.000000048662
#define PRECALC_NUM_MATRICES (32)
#define PRECALC_BLOCK_SIZE (2)
#define PRECALC_BLOCK_MASK ((1 << PRECALC_BLOCK_SIZE) - 1)
#define XORWOW_SEQUENCE_SPACING (67)
#define PHILOX_W32_0 (0x9E3779B9)
#define PHILOX_W32_1 (0xBB67AE85)
#define PHILOX_M4x32_0 (0xD2511F53)
#define PHILOX_M4x32_1 (0xCD9E8D57)

// ---- states (the toolkit's layouts) ------------------------------------------
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

struct curandStateMRG32k3a {
  unsigned int s1[3];
  unsigned int s2[3];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;

// ---- what the CPU backend does not provide ------------------------------------
// Declared so that a kernel naming them compiles up to the use, which then
// stops the compile with this message.
#define CUDAKIT_CURAND_UNSUPPORTED(what)                                                           \
  __attribute__((error(what " is not available on cudakit's CPU backend (its <curand_kernel.h> "   \
                            "provides the XORWOW, Philox4_32_10, MRG32k3a and Sobol states): use " \
                            "one of those, or run this kernel on a GPU")))
struct curandStateMtgp32 {
  unsigned int unsupported_;
};
typedef struct curandStateMtgp32 curandStateMtgp32_t;
#define CUDAKIT_CURAND_UNSUPPORTED_STATE(State, Name)                             \
  CUDAKIT_CURAND_UNSUPPORTED(Name) unsigned int curand(State*);                   \
  CUDAKIT_CURAND_UNSUPPORTED(Name) float curand_uniform(State*);                  \
  CUDAKIT_CURAND_UNSUPPORTED(Name) double curand_uniform_double(State*);          \
  CUDAKIT_CURAND_UNSUPPORTED(Name) float curand_normal(State*);                   \
  CUDAKIT_CURAND_UNSUPPORTED(Name) double curand_normal_double(State*);           \
  CUDAKIT_CURAND_UNSUPPORTED(Name) float curand_log_normal(State*, float, float); \
  CUDAKIT_CURAND_UNSUPPORTED(Name) unsigned int curand_poisson(State*, double);   \
  CUDAKIT_CURAND_UNSUPPORTED(Name) void skipahead(unsigned int, State*);
CUDAKIT_CURAND_UNSUPPORTED_STATE(curandStateMtgp32_t, "the MTGP32 generator (curandStateMtgp32_t)")
CUDAKIT_CURAND_UNSUPPORTED("the MTGP32 generator (curand_mtgp32_single)")
float curand_mtgp32_single(curandStateMtgp32_t*);
#undef CUDAKIT_CURAND_UNSUPPORTED_STATE

// ---- skip-ahead matrices -------------------------------------------------------
namespace cudakit_curand {

// XORWOW: a 160 x 160 matrix over GF(2), stored as the toolkit stores it: row
// r (the image of state bit r) is words [5 r, 5 r + 5).
struct XorwowMatrix {
  unsigned int w[5 * 160];
};

inline void xorwow_matvec(const unsigned int* vector, const XorwowMatrix& m, unsigned int* out) {
  unsigned int result[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 32; ++j)
      if (vector[i] & (1u << j))
        for (int k = 0; k < 5; ++k) result[k] ^= m.w[5 * (i * 32 + j) + k];
  for (int k = 0; k < 5; ++k) out[k] = result[k];
}

inline XorwowMatrix xorwow_square(const XorwowMatrix& m) {
  XorwowMatrix out;
  for (int r = 0; r < 160; ++r) xorwow_matvec(&m.w[5 * r], m, &out.w[5 * r]);
  return out;
}

// offset[i] = M^(4^i) (curand_precalc.h's precalc_xorwow_offset_matrix) and
// sequence[i] = M^(2^67 4^i) (precalc_xorwow_matrix), M one XORWOW step.
struct XorwowTables {
  XorwowMatrix offset[PRECALC_NUM_MATRICES];
  XorwowMatrix sequence[PRECALC_NUM_MATRICES];
  XorwowTables() {
    XorwowMatrix m;
    for (int r = 0; r < 160; ++r) {
      unsigned int v[5] = {0, 0, 0, 0, 0};
      v[r / 32] = 1u << (r % 32);
      const unsigned int t = v[0] ^ (v[0] >> 2);
      const unsigned int next[5] = {v[1], v[2], v[3], v[4], (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))};
      for (int k = 0; k < 5; ++k) m.w[5 * r + k] = next[k];
    }
    XorwowMatrix s = m;
    for (int i = 0; i < XORWOW_SEQUENCE_SPACING; ++i) s = xorwow_square(s);
    for (int i = 0; i < PRECALC_NUM_MATRICES; ++i) {
      offset[i] = m;
      sequence[i] = s;
      for (int b = 0; b < PRECALC_BLOCK_SIZE; ++b) {
        m = xorwow_square(m);
        s = xorwow_square(s);
      }
    }
  }
};

inline const XorwowTables& xorwow_tables() {
  static const XorwowTables tables;
  return tables;
}

// MRG32k3a: 3 x 3 matrices modulo m1 and m2; power[i] = A^(2^(first + i)).
struct MrgMatrix {
  unsigned int a[3][3];
};

inline MrgMatrix mrg_multiply(const MrgMatrix& x, const MrgMatrix& y, unsigned long long m) {
  MrgMatrix out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      unsigned long long sum = 0;
      for (int k = 0; k < 3; ++k) sum = (sum + (unsigned long long)x.a[i][k] * y.a[k][j] % m) % m;
      out.a[i][j] = (unsigned int)sum;
    }
  return out;
}

struct MrgPowers {
  MrgMatrix power[64];
  MrgPowers(MrgMatrix base, unsigned long long m, int first) {
    for (int i = 0; i < first; ++i) base = mrg_multiply(base, base, m);
    for (int i = 0; i < 64; ++i) {
      power[i] = base;
      base = mrg_multiply(base, base, m);
    }
  }
};

// The recurrences' matrices (curand_mrg32k3a.h's M1 and M2).
constexpr unsigned long long kMrgMod1 = 4294967087ull;
constexpr unsigned long long kMrgMod2 = 4294944443ull;
inline MrgMatrix mrg_m1() { return {{{0, 1, 0}, {0, 0, 1}, {4294156359u, 1403580u, 0}}}; }
inline MrgMatrix mrg_m2() { return {{{0, 1, 0}, {0, 0, 1}, {4293573854u, 0, 527612u}}}; }

// Element steps (2^0...), subsequences (2^76...) and sequences (2^127...).
struct MrgTables {
  MrgPowers step1{mrg_m1(), kMrgMod1, 0}, step2{mrg_m2(), kMrgMod2, 0};
  MrgPowers subsequence1{mrg_m1(), kMrgMod1, 76}, subsequence2{mrg_m2(), kMrgMod2, 76};
  MrgPowers sequence1{mrg_m1(), kMrgMod1, 127}, sequence2{mrg_m2(), kMrgMod2, 127};
};

inline const MrgTables& mrg_tables() {
  static const MrgTables tables;
  return tables;
}

inline void mrg_skip(const MrgPowers& powers, unsigned long long m, unsigned long long n,
                     unsigned int v[3]) {
  MrgMatrix t = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  for (int i = 0; n; ++i, n >>= 1)
    if (n & 1) t = mrg_multiply(powers.power[i], t, m);
  unsigned int out[3];
  for (int k = 0; k < 3; ++k) {
    unsigned long long sum = 0;
    for (int j = 0; j < 3; ++j) sum = (sum + (unsigned long long)t.a[k][j] * v[j] % m) % m;
    out[k] = (unsigned int)sum;
  }
  for (int k = 0; k < 3; ++k) v[k] = out[k];
}

// The GPU contracts a * b + c into one fused multiply-add; so does this.
inline float fmul_add(float a, float b, float c) { return fmaf(a, b, c); }
inline double fmul_add(double a, double b, double c) { return fma(a, b, c); }
// logf and expf as the GPU computes them (the CUDA math library's, with the
// SFU's ex2.approx: the prelude's cudakit_cpu_approx_math.h); expf is the
// host's where the runtime has no tables.
inline float log_float(float x) { return ::cudakit_approx::gpu_logf(x); }
inline float exp_float(float x) {
  const unsigned* fraction = ::cudakit_cpu::approx_table(::cudakit_cpu::kApproxFraction);
  return fraction ? ::cudakit_approx::gpu_expf(fraction, x) : (float)exp((double)x);
}
// The Poisson rejection method's __cr_exp, __cr_log, __cr_rsqrt and __cr_rcp:
// the SFU's ex2/lg2 (scaled by log2(e) and ln 2 in double), rsqrt and rcp
// approximations; the host's functions where the runtime has no tables.
inline float approx_exp(float x) {
  const unsigned* fraction = ::cudakit_cpu::approx_table(::cudakit_cpu::kApproxFraction);
  return fraction
             ? ::cudakit_approx::ex2_approx(fraction, (float)((double)x * 1.4426950408889634074))
             : (float)exp((double)x);
}
inline float approx_log(float x) {
  const unsigned* below = ::cudakit_cpu::approx_table(::cudakit_cpu::kApproxLog2Below);
  const unsigned* above = ::cudakit_cpu::approx_table(::cudakit_cpu::kApproxLog2Above);
  return below && above ? (float)((double)::cudakit_approx::lg2_approx(below, above, x) *
                                  0.69314718055994530942)
                        : (float)log((double)x);
}
inline float approx_rsqrt(float x) {
  const unsigned* table = ::cudakit_cpu::approx_table(::cudakit_cpu::kApproxRsqrt);
  return table ? ::cudakit_approx::rsqrt_approx(table, x) : 1.0f / sqrtf(x);
}
inline float approx_rcp(float x) {
  const unsigned* table = ::cudakit_cpu::approx_table(::cudakit_cpu::kApproxReciprocal);
  return table ? ::cudakit_approx::rcp_approx(table, x) : 1.0f / x;
}
// The GPU's double log and sincospi (the CUDA math library's algorithms,
// step for step), so the double normals are the GPU's.
inline double from_words(unsigned int hi, unsigned int lo) {
  const unsigned long long bits = ((unsigned long long)hi << 32) | lo;
  double out;
  memcpy(&out, &bits, sizeof out);
  return out;
}
inline unsigned int high_word(double x) {
  unsigned long long bits;
  memcpy(&bits, &x, sizeof bits);
  return (unsigned int)(bits >> 32);
}
inline unsigned int low_word(double x) {
  unsigned long long bits;
  memcpy(&bits, &x, sizeof bits);
  return (unsigned int)bits;
}
// rcp.approx.ftz.f64: the reciprocal of the operand's upper 32 bits, kept to
// its upper 32 bits (the step after it makes the result exact to ~2^-60).
inline double reciprocal_approx(double x) {
  const double reciprocal = 1.0 / from_words(high_word(x), 0);
  return from_words(high_word(reciprocal), 0);
}
inline double log_double(double a) {
  unsigned int hi = high_word(a), lo = low_word(a);
  int e = -1023;
  if ((int)hi < 0x00100000) {  // subnormal, zero or negative
    a *= 0x1p54;
    e -= 54;
    hi = high_word(a);
    lo = low_word(a);
  }
  if ((int)hi <= 0 || hi >= 0x7ff00000u) {
    if ((high_word(a) & 0x7fffffffu) == 0) return -HUGE_VAL;  // zero
    return fma(a, HUGE_VAL, HUGE_VAL);  // negative: NaN; infinity, NaN: itself
  }
  e += (int)(hi >> 20);
  const unsigned int mantissa_hi = (hi & 0x800fffffu) | 0x3ff00000u;
  double m = from_words(mantissa_hi, lo);
  if (mantissa_hi > 0x3ff6a09eu) {
    m = from_words(high_word(m) - (1u << 20), low_word(m));
    e += 1;
  }
  const double f = m - 1.0;
  const double g = m + 1.0;
  const double r0 = reciprocal_approx(g);
  double t = fma(-g, r0, 1.0);
  t = fma(t, t, t);
  const double r = fma(t, r0, r0);
  double u = f * r;
  u = u + u;
  const double v = u * u;
  double p = fma(0x1.1380b3ae80f1ep-20, v, 0x1.0ee258b7a8b04p-18);
  p = fma(p, v, 0x1.3b2669f02676fp-16);
  p = fma(p, v, 0x1.745cba9ab0956p-14);
  p = fma(p, v, 0x1.c71c72d1b5154p-12);
  p = fma(p, v, 0x1.24924923be72dp-9);
  p = fma(p, v, 0x1.999999999a3c4p-7);
  p = fma(p, v, 0x1.5555555555554p-4);
  const double w = r * fma(-u, f, 2.0 * (f - u));
  const double tail = fma(p * v, u, w);
  const double fe = (double)e;
  const double head = fma(fe, 0x1.62e42fefa39efp-1, u);
  const double lost = fma(-fe, 0x1.62e42fefa39efp-1, head) - u;
  return head + fma(fe, 0x1.abc9e3b39803fp-56, tail - lost);
}
inline void sincospi_double(double a, double* sine, double* cosine) {
  unsigned int hi = high_word(a);
  if (hi + hi > 0x86800000u) a = a * 0.0;  // an integer, infinity or NaN
  const double twice = from_words(high_word(a) + (1u << 20), low_word(a));
  const double q = nearbyint(twice);
  const int quadrant = (int)(long long)q;
  const double reduced = fma(-q, 0.5, a);
  const double x = fma(reduced, 0x1.921fb54442d18p+1, reduced * 0x1.1a62633145c07p-53);
  const double z = x * x;
  double c = fma(-0x1.8ff8320fd8164p-37, z, 0x1.1eea7c1ef8528p-29);
  c = fma(c, z, -0x1.27e4f8e06e6d9p-22);
  c = fma(c, z, 0x1.a01a019ddbce9p-16);
  c = fma(c, z, -0x1.6c16c16c15d47p-10);
  c = fma(c, z, 0x1.5555555555551p-5);
  c = fma(c, z, -0.5);
  c = fma(c, z, 1.0);
  double s = fma(0x1.5db65f9785ebap-33, z, -0x1.ae5f12cb0d246p-26);
  s = fma(s, z, 0x1.71de369ace392p-19);
  s = fma(s, z, -0x1.a01a019db62a1p-13);
  s = fma(s, z, 0x1.1111111110818p-7);
  s = fma(s, z, -0x1.5555555555554p-3);
  s = fma(s, z, 0.0);
  s = fma(s, x, x);
  if (quadrant & 1) {
    const double swapped = s;
    s = c;
    c = -swapped;
  }
  if (quadrant & 2) {
    s = -s;
    c = -c;
  }
  *cosine = c + 0.0;
  *sine = (a == trunc(a)) ? a * 0.0 : s;
}

}  // namespace cudakit_curand

// ---- XORWOW -------------------------------------------------------------------
CUDAKIT_CURAND_FN void skipahead(unsigned long long n, curandStateXORWOW_t* state) {
  const auto& tables = cudakit_curand::xorwow_tables();
  unsigned long long p = n;
  for (int matrix = 0; p; ++matrix, p >>= PRECALC_BLOCK_SIZE)
    for (unsigned int t = 0; t < (p & PRECALC_BLOCK_MASK); ++t)
      cudakit_curand::xorwow_matvec(state->v, tables.offset[matrix], state->v);
  state->d += 362437 * (unsigned int)n;
}

CUDAKIT_CURAND_FN void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* state) {
  const auto& tables = cudakit_curand::xorwow_tables();
  for (int matrix = 0; n; ++matrix, n >>= PRECALC_BLOCK_SIZE)
    for (unsigned int t = 0; t < (n & PRECALC_BLOCK_MASK); ++t)
      cudakit_curand::xorwow_matvec(state->v, tables.sequence[matrix], state->v);
}

CUDAKIT_CURAND_FN void curand_init(unsigned long long seed, unsigned long long subsequence,
                                   unsigned long long offset, curandStateXORWOW_t* state) {
  const unsigned int s0 = ((unsigned int)seed) ^ 0xaad26b49UL;
  const unsigned int s1 = (unsigned int)(seed >> 32) ^ 0xf7dcefddUL;
  const unsigned int t0 = 1099087573UL * s0;
  const unsigned int t1 = 2591861531UL * s1;
  state->d = 6615241 + t1 + t0;
  state->v[0] = 123456789UL + t0;
  state->v[1] = 362436069UL ^ t0;
  state->v[2] = 521288629UL + t1;
  state->v[3] = 88675123UL ^ t1;
  state->v[4] = 5783321UL + t0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
}

CUDAKIT_CURAND_FN unsigned int curand(curandStateXORWOW_t* state) {
  const unsigned int t = state->v[0] ^ (state->v[0] >> 2);
  state->v[0] = state->v[1];
  state->v[1] = state->v[2];
  state->v[2] = state->v[3];
  state->v[3] = state->v[4];
  state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
  state->d += 362437;
  return state->v[4] + state->d;
}

// ---- Philox4_32_10 ------------------------------------------------------------
CUDAKIT_CURAND_FN void Philox_State_Incr(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  const unsigned int nlo = (unsigned int)(n);
  unsigned int nhi = (unsigned int)(n >> 32);
  s->ctr.x += nlo;
  if (s->ctr.x < nlo) nhi++;
  s->ctr.y += nhi;
  if (nhi <= s->ctr.y) return;
  if (++s->ctr.z) return;
  ++s->ctr.w;
}

CUDAKIT_CURAND_FN void Philox_State_Incr_hi(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  const unsigned int nlo = (unsigned int)(n);
  unsigned int nhi = (unsigned int)(n >> 32);
  s->ctr.z += nlo;
  if (s->ctr.z < nlo) nhi++;
  s->ctr.w += nhi;
}

CUDAKIT_CURAND_FN void Philox_State_Incr(curandStatePhilox4_32_10_t* s) {
  if (++s->ctr.x) return;
  if (++s->ctr.y) return;
  if (++s->ctr.z) return;
  ++s->ctr.w;
}

CUDAKIT_CURAND_FN unsigned int mulhilo32(unsigned int a, unsigned int b, unsigned int* hip) {
  const unsigned long long product = ((unsigned long long)a) * ((unsigned long long)b);
  *hip = (unsigned int)(product >> 32);
  return (unsigned int)product;
}

CUDAKIT_CURAND_FN uint4 _philox4x32round(uint4 ctr, uint2 key) {
  unsigned int hi0, hi1;
  const unsigned int lo0 = mulhilo32(PHILOX_M4x32_0, ctr.x, &hi0);
  const unsigned int lo1 = mulhilo32(PHILOX_M4x32_1, ctr.z, &hi1);
  return make_uint4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
}

CUDAKIT_CURAND_FN uint4 curand_Philox4x32_10(uint4 c, uint2 k) {
  for (int round = 0; round < 9; ++round) {
    c = _philox4x32round(c, k);
    k.x += PHILOX_W32_0;
    k.y += PHILOX_W32_1;
  }
  return _philox4x32round(c, k);
}

CUDAKIT_CURAND_FN unsigned int curand(curandStatePhilox4_32_10_t* state) {
  unsigned int ret;
  switch (state->STATE++) {
    default:
      ret = state->output.x;
      break;
    case 1:
      ret = state->output.y;
      break;
    case 2:
      ret = state->output.z;
      break;
    case 3:
      ret = state->output.w;
      break;
  }
  if (state->STATE == 4) {
    Philox_State_Incr(state);
    state->output = curand_Philox4x32_10(state->ctr, state->key);
    state->STATE = 0;
  }
  return ret;
}

CUDAKIT_CURAND_FN uint4 curand4(curandStatePhilox4_32_10_t* state) {
  const uint4 tmp = state->output;
  Philox_State_Incr(state);
  state->output = curand_Philox4x32_10(state->ctr, state->key);
  switch (state->STATE) {
    case 1:
      return make_uint4(tmp.y, tmp.z, tmp.w, state->output.x);
    case 2:
      return make_uint4(tmp.z, tmp.w, state->output.x, state->output.y);
    case 3:
      return make_uint4(tmp.w, state->output.x, state->output.y, state->output.z);
    default:
      return tmp;
  }
}

CUDAKIT_CURAND_FN void skipahead(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  state->STATE += (n & 3);
  n /= 4;
  if (state->STATE > 3) {
    n += 1;
    state->STATE -= 4;
  }
  Philox_State_Incr(state, n);
  state->output = curand_Philox4x32_10(state->ctr, state->key);
}

CUDAKIT_CURAND_FN void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  Philox_State_Incr_hi(state, n);
  state->output = curand_Philox4x32_10(state->ctr, state->key);
}

CUDAKIT_CURAND_FN void curand_init(unsigned long long seed, unsigned long long subsequence,
                                   unsigned long long offset, curandStatePhilox4_32_10_t* state) {
  state->ctr = make_uint4(0, 0, 0, 0);
  state->key.x = (unsigned int)seed;
  state->key.y = (unsigned int)(seed >> 32);
  state->STATE = 0;
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
}

// ---- MRG32k3a -----------------------------------------------------------------
// The GPU's integer form (sm_61 and later): the value in [1, m1], as a double.
CUDAKIT_CURAND_FN double curand_MRG32k3a(curandStateMRG32k3a_t* state) {
  const unsigned int m1 = 4294967087u, m2 = 4294944443u, m1c = 209u, m2c = 22853u;
  const unsigned int a12 = 1403580u, a13n = 810728u, a21 = 527612u, a23n = 1370589u;
  unsigned long long p1 = (unsigned long long)a13n * (m1 - state->s1[0]);
  p1 += (unsigned long long)a12 * state->s1[1];
  p1 = (p1 >> 32) * m1c + (p1 & 0xffffffff);
  if (p1 >= m1) p1 -= m1;
  state->s1[0] = state->s1[1];
  state->s1[1] = state->s1[2];
  state->s1[2] = (unsigned int)p1;
  unsigned long long p2 = (unsigned long long)a23n * (m2 - state->s2[0]);
  p2 += (unsigned long long)a21 * state->s2[2];
  p2 = (p2 >> 32) * m2c + (p2 & 0xffffffff);
  p2 = (p2 >> 32) * m2c + (p2 & 0xffffffff);
  if (p2 >= m2) p2 -= m2;
  state->s2[0] = state->s2[1];
  state->s2[1] = state->s2[2];
  state->s2[2] = (unsigned int)p2;
  const unsigned int p5 = (unsigned int)p1 - (unsigned int)p2;
  if (p1 <= p2) return p5 + m1;  // modulo 2^32, as on the GPU
  return (double)p5;
}

CUDAKIT_CURAND_FN unsigned int curand(curandStateMRG32k3a_t* state) {
  return (unsigned int)(curand_MRG32k3a(state) * (double)MRG32K3A_BITS_NORM);
}

CUDAKIT_CURAND_FN void skipahead(unsigned long long n, curandStateMRG32k3a_t* state) {
  const auto& tables = cudakit_curand::mrg_tables();
  cudakit_curand::mrg_skip(tables.step1, cudakit_curand::kMrgMod1, n, state->s1);
  cudakit_curand::mrg_skip(tables.step2, cudakit_curand::kMrgMod2, n, state->s2);
}

CUDAKIT_CURAND_FN void skipahead_subsequence(unsigned long long n, curandStateMRG32k3a_t* state) {
  const auto& tables = cudakit_curand::mrg_tables();
  cudakit_curand::mrg_skip(tables.subsequence1, cudakit_curand::kMrgMod1, n, state->s1);
  cudakit_curand::mrg_skip(tables.subsequence2, cudakit_curand::kMrgMod2, n, state->s2);
}

CUDAKIT_CURAND_FN void skipahead_sequence(unsigned long long n, curandStateMRG32k3a_t* state) {
  const auto& tables = cudakit_curand::mrg_tables();
  cudakit_curand::mrg_skip(tables.sequence1, cudakit_curand::kMrgMod1, n, state->s1);
  cudakit_curand::mrg_skip(tables.sequence2, cudakit_curand::kMrgMod2, n, state->s2);
}

CUDAKIT_CURAND_FN void curand_init(unsigned long long seed, unsigned long long subsequence,
                                   unsigned long long offset, curandStateMRG32k3a_t* state) {
  for (int i = 0; i < 3; i++) {
    state->s1[i] = 12345u;
    state->s2[i] = 12345u;
  }
  if (seed != 0ull) {
    // x * 12345 modulo m, as the toolkit's curand_MRGmodMul computes it (exactly).
    const unsigned long long x1 = ((unsigned int)seed) ^ 0x55555555UL;
    const unsigned long long x2 = (unsigned int)((seed >> 32) ^ 0xAAAAAAAAUL);
    const unsigned long long m1 = cudakit_curand::kMrgMod1, m2 = cudakit_curand::kMrgMod2;
    state->s1[0] = (unsigned int)(x1 * 12345u % m1);
    state->s1[1] = (unsigned int)(x2 * 12345u % m1);
    state->s1[2] = (unsigned int)(x1 * 12345u % m1);
    state->s2[0] = (unsigned int)(x2 * 12345u % m2);
    state->s2[1] = (unsigned int)(x1 * 12345u % m2);
    state->s2[2] = (unsigned int)(x2 * 12345u % m2);
  }
  skipahead_subsequence(subsequence, state);
  skipahead(offset, state);
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
}

#include "curand_kernel_cpu_distributions.h"
#include "curand_kernel_cpu_sobol.h"

#undef CUDAKIT_CURAND_UNSUPPORTED
#undef CUDAKIT_CURAND_FN
}  // extern "C++"
#endif  // CUDAKIT_CURAND_KERNEL_CPU_H
