// The Sobol quasi-random states of cudakit's CPU-backend <curand_kernel.h>
// (the toolkit's curand_kernel.h, curand_uniform.h, curand_normal.h,
// curand_lognormal.h and curand_poisson.h for curandStateSobol32/64 and their
// scrambled forms): the same layouts, the same sequences as on a GPU. A
// state holds one dimension's direction vectors (from cuRAND's host library:
// cudakit::sobol_direction_vectors32, or curandom.generate_direction_vectors
// in Python). Included by curand_kernel_cpu.h, after the distributions.
#ifndef CUDAKIT_CURAND_KERNEL_CPU_SOBOL_H
#define CUDAKIT_CURAND_KERNEL_CPU_SOBOL_H

struct curandStateSobol32 {
  unsigned int i, x, c;
  unsigned int direction_vectors[32];
};
typedef struct curandStateSobol32 curandStateSobol32_t;
struct curandStateScrambledSobol32 {
  unsigned int i, x, c;
  unsigned int direction_vectors[32];
};
typedef struct curandStateScrambledSobol32 curandStateScrambledSobol32_t;
struct curandStateSobol64 {
  unsigned long long i, x, c;
  unsigned long long direction_vectors[64];
};
typedef struct curandStateSobol64 curandStateSobol64_t;
struct curandStateScrambledSobol64 {
  unsigned long long i, x, c;
  unsigned long long direction_vectors[64];
};
typedef struct curandStateScrambledSobol64 curandStateScrambledSobol64_t;
typedef unsigned int curandDirectionVectors32_t[32];
typedef unsigned long long curandDirectionVectors64_t[64];

#define CURAND_SQRT2 (-1.4142135f)
#define CURAND_SQRT2_DOUBLE (-1.4142135623730951)

// ---- from a 32- or 64-bit draw -------------------------------------------------
CUDAKIT_CURAND_FN float _curand_uniform(unsigned long long x) {
  const unsigned int t = (unsigned int)(x >> 32);
  return t * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
}
CUDAKIT_CURAND_FN double _curand_uniform_double(unsigned long long x) {
  return (x >> 11) * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}
CUDAKIT_CURAND_FN double _curand_uniform_double_excluding_one(unsigned int x) {
  return x * CURAND_2POW32_INV_DOUBLE + (CURAND_2POW32_INV_DOUBLE / 2.0);
}
CUDAKIT_CURAND_FN double _curand_uniform_double_excluding_one(unsigned long long x) {
  return (x >> 11) * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 4.0);
}
// The normal quantile of a draw, mirrored to keep precision in the upper half.
CUDAKIT_CURAND_FN float _curand_normal_icdf(unsigned int x) {
  float s = CURAND_SQRT2;
  if (x > 0x80000000UL) {
    x = 0xffffffffUL - x;
    s = -s;
  }
  const float p = x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
  return s * erfcinvf(2.0f * p);
}
CUDAKIT_CURAND_FN float _curand_normal_icdf(unsigned long long x) {
  return _curand_normal_icdf((unsigned int)(x >> 32));
}
CUDAKIT_CURAND_FN double _curand_normal_icdf_double(unsigned int x) {
  double s = CURAND_SQRT2_DOUBLE;
  if (x > 0x80000000UL) {
    x = 0xffffffffUL - x;
    s = -s;
  }
  const double p = x * CURAND_2POW32_INV_DOUBLE + (CURAND_2POW32_INV_DOUBLE / 2.0);
  return s * erfcinv(2.0 * p);
}
CUDAKIT_CURAND_FN double _curand_normal_icdf_double(unsigned long long x) {
  double s = CURAND_SQRT2_DOUBLE;
  x >>= 11;
  if (x > 0x10000000000000ULL) {
    x = 0x1fffffffffffffULL - x;
    s = -s;
  }
  const double p = x * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
  return s * erfcinv(2.0 * p);
}
// Poisson by inversion (Fishman), the toolkit's _curand_poisson for the
// quasi-random states: one draw per number; a normal approximation from
// lambda 1000 on.
template <typename Word>
CUDAKIT_CURAND_FN unsigned int _curand_poisson(Word x, double lambda) {
  if (lambda >= 1000)
    return (unsigned int)((sqrt(lambda) * _curand_normal_icdf_double(x)) + lambda + 0.5);
  const double step = 500.0;
  double p = 1.0, q = 1.0, L;
  unsigned int k = 0;
  int pow = 0;
  const double u = _curand_uniform_double_excluding_one(x);
  do {
    L = lambda > (double)(pow + step) ? exp(-step) : exp((double)(pow - lambda));
    p *= L;
    q *= L;
    pow += (int)step;
    while (u > q) {
      k++;
      p *= ((double)lambda / (double)k);
      q += p;
    }
  } while ((double)pow < lambda);
  return k;
}

// ---- the generators --------------------------------------------------------------
namespace cudakit_curand {

// The position of the lowest zero bit of `i` (the bit the Gray code flips
// next), at most Bits - 1.
template <typename Word, int Bits>
inline int sobol_flipped_bit(Word i) {
  const Word zeros = (Word)~i;
  if (zeros == 0) return Bits - 1;
  const int bit = __builtin_ctzll((unsigned long long)zeros);
  return bit < Bits ? bit : Bits - 1;
}

// Position `state->i + n`: x is the scramble constant xor the direction
// vectors the position's Gray code selects.
template <typename Word, int Bits, typename State>
inline void sobol_skipahead(Word n, State* state) {
  state->x = state->c;
  state->i += n;
  const Word gray = state->i ^ (state->i >> 1);
  for (int k = 0; k < Bits; ++k)
    if (gray & ((Word)1 << k)) state->x ^= state->direction_vectors[k];
}

template <typename Word, int Bits, typename State>
inline void sobol_init(const Word* direction_vectors, Word scramble, Word offset, State* state) {
  state->i = 0;
  state->c = scramble;
  for (int k = 0; k < Bits; ++k) state->direction_vectors[k] = direction_vectors[k];
  state->x = state->c;
  sobol_skipahead<Word, Bits>(offset, state);
}

template <typename Word, int Bits, typename State>
inline Word sobol_next(State* state) {
  const Word result = state->x;
  state->x ^= state->direction_vectors[sobol_flipped_bit<Word, Bits>(state->i)];
  state->i++;
  return result;
}

}  // namespace cudakit_curand

#define CUDAKIT_CURAND_SOBOL(State, Word, Bits)                                                \
  CUDAKIT_CURAND_FN void skipahead(Word n, State* state) {                                     \
    cudakit_curand::sobol_skipahead<Word, Bits>(n, state);                                     \
  }                                                                                            \
  CUDAKIT_CURAND_FN Word curand(State* state) {                                                \
    return cudakit_curand::sobol_next<Word, Bits>(state);                                      \
  }                                                                                            \
  CUDAKIT_CURAND_FN float curand_uniform(State* state) { return _curand_uniform(curand(state)); } \
  CUDAKIT_CURAND_FN double curand_uniform_double(State* state) {                               \
    return _curand_uniform_double(curand(state));                                              \
  }                                                                                            \
  CUDAKIT_CURAND_FN float curand_normal(State* state) {                                        \
    return _curand_normal_icdf(curand(state));                                                 \
  }                                                                                            \
  CUDAKIT_CURAND_FN double curand_normal_double(State* state) {                                \
    return _curand_normal_icdf_double(curand(state));                                          \
  }                                                                                            \
  CUDAKIT_CURAND_FN float curand_log_normal(State* state, float mean, float stddev) {          \
    return expf(mean + (stddev * _curand_normal_icdf(curand(state))));                         \
  }                                                                                            \
  CUDAKIT_CURAND_FN double curand_log_normal_double(State* state, double mean, double stddev) { \
    return exp(mean + (stddev * _curand_normal_icdf_double(curand(state))));                   \
  }                                                                                            \
  CUDAKIT_CURAND_FN unsigned int curand_poisson(State* state, double lambda) {                 \
    return _curand_poisson(curand(state), lambda);                                             \
  }
CUDAKIT_CURAND_SOBOL(curandStateSobol32_t, unsigned int, 32)
CUDAKIT_CURAND_SOBOL(curandStateScrambledSobol32_t, unsigned int, 32)
CUDAKIT_CURAND_SOBOL(curandStateSobol64_t, unsigned long long, 64)
CUDAKIT_CURAND_SOBOL(curandStateScrambledSobol64_t, unsigned long long, 64)
#undef CUDAKIT_CURAND_SOBOL

CUDAKIT_CURAND_FN void curand_init(curandDirectionVectors32_t direction_vectors,
                                   unsigned int offset, curandStateSobol32_t* state) {
  cudakit_curand::sobol_init<unsigned int, 32>(direction_vectors, 0u, offset, state);
}
CUDAKIT_CURAND_FN void curand_init(curandDirectionVectors32_t direction_vectors,
                                   unsigned int scramble_c, unsigned int offset,
                                   curandStateScrambledSobol32_t* state) {
  cudakit_curand::sobol_init<unsigned int, 32>(direction_vectors, scramble_c, offset, state);
}
CUDAKIT_CURAND_FN void curand_init(curandDirectionVectors64_t direction_vectors,
                                   unsigned long long offset, curandStateSobol64_t* state) {
  cudakit_curand::sobol_init<unsigned long long, 64>(direction_vectors, 0ull, offset, state);
}
CUDAKIT_CURAND_FN void curand_init(curandDirectionVectors64_t direction_vectors,
                                   unsigned long long scramble_c, unsigned long long offset,
                                   curandStateScrambledSobol64_t* state) {
  cudakit_curand::sobol_init<unsigned long long, 64>(direction_vectors, scramble_c, offset,
                                                     state);
}

#endif  // CUDAKIT_CURAND_KERNEL_CPU_SOBOL_H
