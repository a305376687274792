// The distributions of cudakit's CPU-backend <curand_kernel.h> (the toolkit's
// curand_uniform.h, curand_normal.h, curand_lognormal.h, curand_poisson.h)
// for the XORWOW, Philox4_32_10 and MRG32k3a states. Included by
// curand_kernel_cpu.h, after the generators.
#ifndef CUDAKIT_CURAND_KERNEL_CPU_DISTRIBUTIONS_H
#define CUDAKIT_CURAND_KERNEL_CPU_DISTRIBUTIONS_H

// ---- uniform ------------------------------------------------------------------
CUDAKIT_CURAND_FN float _curand_uniform(unsigned int x) {
  return x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
}
CUDAKIT_CURAND_FN float4 _curand_uniform4(uint4 x) {
  return make_float4(_curand_uniform(x.x), _curand_uniform(x.y), _curand_uniform(x.z),
                     _curand_uniform(x.w));
}
CUDAKIT_CURAND_FN double _curand_uniform_double(unsigned int x) {
  return x * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;
}
CUDAKIT_CURAND_FN double _curand_uniform_double_hq(unsigned int x, unsigned int y) {
  const unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << (53 - 32));
  return z * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}

CUDAKIT_CURAND_FN float curand_uniform(curandStateXORWOW_t* state) {
  return _curand_uniform(curand(state));
}
CUDAKIT_CURAND_FN double curand_uniform_double(curandStateXORWOW_t* state) {
  const unsigned int x = curand(state);
  const unsigned int y = curand(state);
  return _curand_uniform_double_hq(x, y);
}
CUDAKIT_CURAND_FN float curand_uniform(curandStatePhilox4_32_10_t* state) {
  return _curand_uniform(curand(state));
}
CUDAKIT_CURAND_FN float4 curand_uniform4(curandStatePhilox4_32_10_t* state) {
  return _curand_uniform4(curand4(state));
}
CUDAKIT_CURAND_FN double curand_uniform_double(curandStatePhilox4_32_10_t* state) {
  return _curand_uniform_double(curand(state));
}
CUDAKIT_CURAND_FN double2 curand_uniform2_double(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  return make_double2(_curand_uniform_double_hq(x.x, x.y), _curand_uniform_double_hq(x.z, x.w));
}
CUDAKIT_CURAND_FN float curand_uniform(curandStateMRG32k3a_t* state) {
  return (float)(curand_MRG32k3a(state) * MRG32K3A_NORM);
}
CUDAKIT_CURAND_FN double curand_uniform_double(curandStateMRG32k3a_t* state) {
  return curand_MRG32k3a(state) * MRG32K3A_NORM;
}

// ---- normal (Box-Muller) --------------------------------------------------------
CUDAKIT_CURAND_FN float2 _curand_box_muller(unsigned int x, unsigned int y) {
  using cudakit_curand::fmul_add;
  const float u = fmul_add((float)x, CURAND_2POW32_INV, CURAND_2POW32_INV / 2);
  const float v = fmul_add((float)y, CURAND_2POW32_INV_2PI, CURAND_2POW32_INV_2PI / 2);
  const float s = sqrtf(-2.0f * cudakit_curand::log_float(u));
  return make_float2(::cudakit_cpu::gpu_sinf(v) * s, ::cudakit_cpu::gpu_cosf(v) * s);
}

CUDAKIT_CURAND_FN float2 curand_box_muller_mrg(curandStateMRG32k3a_t* state) {
  const float x = curand_uniform(state);
  const float y = curand_uniform(state) * CURAND_2PI;
  const float s = sqrtf(-2.0f * cudakit_curand::log_float(x));
  return make_float2(::cudakit_cpu::gpu_sinf(y) * s, ::cudakit_cpu::gpu_cosf(y) * s);
}

CUDAKIT_CURAND_FN double2 _curand_box_muller_double(unsigned int x0, unsigned int x1,
                                                    unsigned int y0, unsigned int y1) {
  const unsigned long long zx = (unsigned long long)x0 ^ ((unsigned long long)x1 << (53 - 32));
  const double u = zx * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
  const unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << (53 - 32));
  const double v = zy * (CURAND_2POW53_INV_DOUBLE * 2.0) + CURAND_2POW53_INV_DOUBLE;
  const double s = sqrt(-2.0 * cudakit_curand::log_double(u));
  double sine, cosine;
  cudakit_curand::sincospi_double(v, &sine, &cosine);
  return make_double2(sine * s, cosine * s);
}

CUDAKIT_CURAND_FN double2 curand_box_muller_mrg_double(curandStateMRG32k3a_t* state) {
  const double x = curand_uniform_double(state);
  const double y = curand_uniform_double(state) * 2.0;
  const double s = sqrt(-2.0 * cudakit_curand::log_double(x));
  double sine, cosine;
  cudakit_curand::sincospi_double(y, &sine, &cosine);
  return make_double2(sine * s, cosine * s);
}

// Two normals per transform; the second is kept in the state for the next call.
CUDAKIT_CURAND_FN float2 cudakit_curand_normal_pair(curandStateXORWOW_t* state) {
  const unsigned int x = curand(state);
  const unsigned int y = curand(state);
  return _curand_box_muller(x, y);
}
CUDAKIT_CURAND_FN float2 cudakit_curand_normal_pair(curandStatePhilox4_32_10_t* state) {
  const unsigned int x = curand(state);
  const unsigned int y = curand(state);
  return _curand_box_muller(x, y);
}
CUDAKIT_CURAND_FN float2 cudakit_curand_normal_pair(curandStateMRG32k3a_t* state) {
  return curand_box_muller_mrg(state);
}
CUDAKIT_CURAND_FN double2 cudakit_curand_normal_double_pair(curandStateXORWOW_t* state) {
  const unsigned int x0 = curand(state);
  const unsigned int x1 = curand(state);
  const unsigned int y0 = curand(state);
  const unsigned int y1 = curand(state);
  return _curand_box_muller_double(x0, x1, y0, y1);
}
CUDAKIT_CURAND_FN double2 cudakit_curand_normal_double_pair(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  return _curand_box_muller_double(x.x, x.y, x.z, x.w);
}
CUDAKIT_CURAND_FN double2 cudakit_curand_normal_double_pair(curandStateMRG32k3a_t* state) {
  return curand_box_muller_mrg_double(state);
}

template <typename State>
CUDAKIT_CURAND_FN float cudakit_curand_normal(State* state) {
  if (state->boxmuller_flag != EXTRA_FLAG_NORMAL) {
    const float2 v = cudakit_curand_normal_pair(state);
    state->boxmuller_extra = v.y;
    state->boxmuller_flag = EXTRA_FLAG_NORMAL;
    return v.x;
  }
  state->boxmuller_flag = 0;
  return state->boxmuller_extra;
}
template <typename State>
CUDAKIT_CURAND_FN double cudakit_curand_normal_double(State* state) {
  if (state->boxmuller_flag_double != EXTRA_FLAG_NORMAL) {
    const double2 v = cudakit_curand_normal_double_pair(state);
    state->boxmuller_extra_double = v.y;
    state->boxmuller_flag_double = EXTRA_FLAG_NORMAL;
    return v.x;
  }
  state->boxmuller_flag_double = 0;
  return state->boxmuller_extra_double;
}
template <typename State>
CUDAKIT_CURAND_FN float cudakit_curand_log_normal(State* state, float mean, float stddev) {
  using cudakit_curand::exp_float;
  using cudakit_curand::fmul_add;
  if (state->boxmuller_flag != EXTRA_FLAG_LOG_NORMAL) {
    const float2 v = cudakit_curand_normal_pair(state);
    state->boxmuller_extra = exp_float(fmul_add(stddev, v.y, mean));
    state->boxmuller_flag = EXTRA_FLAG_LOG_NORMAL;
    return exp_float(fmul_add(stddev, v.x, mean));
  }
  state->boxmuller_flag = 0;
  return state->boxmuller_extra;
}
template <typename State>
CUDAKIT_CURAND_FN double cudakit_curand_log_normal_double(State* state, double mean,
                                                          double stddev) {
  using cudakit_curand::fmul_add;
  if (state->boxmuller_flag_double != EXTRA_FLAG_LOG_NORMAL) {
    const double2 v = cudakit_curand_normal_double_pair(state);
    state->boxmuller_extra_double = exp(fmul_add(stddev, v.y, mean));
    state->boxmuller_flag_double = EXTRA_FLAG_LOG_NORMAL;
    return exp(fmul_add(stddev, v.x, mean));
  }
  state->boxmuller_flag_double = 0;
  return state->boxmuller_extra_double;
}

#define CUDAKIT_CURAND_NORMALS(State)                                                             \
  CUDAKIT_CURAND_FN float curand_normal(State* state) { return cudakit_curand_normal(state); }    \
  CUDAKIT_CURAND_FN float2 curand_normal2(State* state) {                                         \
    return cudakit_curand_normal_pair(state);                                                     \
  }                                                                                               \
  CUDAKIT_CURAND_FN double curand_normal_double(State* state) {                                   \
    return cudakit_curand_normal_double(state);                                                   \
  }                                                                                               \
  CUDAKIT_CURAND_FN double2 curand_normal2_double(State* state) {                                 \
    return cudakit_curand_normal_double_pair(state);                                              \
  }                                                                                               \
  CUDAKIT_CURAND_FN float curand_log_normal(State* state, float mean, float stddev) {             \
    return cudakit_curand_log_normal(state, mean, stddev);                                        \
  }                                                                                               \
  CUDAKIT_CURAND_FN float2 curand_log_normal2(State* state, float mean, float stddev) {           \
    const float2 v = cudakit_curand_normal_pair(state);                                           \
    return make_float2(cudakit_curand::exp_float(cudakit_curand::fmul_add(stddev, v.x, mean)),    \
                       cudakit_curand::exp_float(cudakit_curand::fmul_add(stddev, v.y, mean)));   \
  }                                                                                               \
  CUDAKIT_CURAND_FN double curand_log_normal_double(State* state, double mean, double stddev) {   \
    return cudakit_curand_log_normal_double(state, mean, stddev);                                 \
  }                                                                                               \
  CUDAKIT_CURAND_FN double2 curand_log_normal2_double(State* state, double mean, double stddev) { \
    const double2 v = cudakit_curand_normal_double_pair(state);                                   \
    return make_double2(exp(cudakit_curand::fmul_add(stddev, v.x, mean)),                         \
                        exp(cudakit_curand::fmul_add(stddev, v.y, mean)));                        \
  }
CUDAKIT_CURAND_NORMALS(curandStateXORWOW_t)
CUDAKIT_CURAND_NORMALS(curandStatePhilox4_32_10_t)
CUDAKIT_CURAND_NORMALS(curandStateMRG32k3a_t)
#undef CUDAKIT_CURAND_NORMALS

CUDAKIT_CURAND_FN float4 curand_normal4(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  const float2 a = _curand_box_muller(x.x, x.y);
  const float2 b = _curand_box_muller(x.z, x.w);
  return make_float4(a.x, a.y, b.x, b.y);
}
CUDAKIT_CURAND_FN double4 curand_normal4_double(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  const uint4 y = curand4(state);
  const double2 a = _curand_box_muller_double(x.x, x.y, x.z, x.w);
  const double2 b = _curand_box_muller_double(y.x, y.y, y.z, y.w);
  return make_double4(a.x, a.y, b.x, b.y);
}

// ---- Poisson --------------------------------------------------------------------
// lambda < 64: Knuth's product of uniforms.
template <typename State>
CUDAKIT_CURAND_FN unsigned int curand_poisson_knuth(State* state, float lambda) {
  unsigned int k = 0;
  float p = cudakit_curand::exp_float(lambda);
  do {
    k++;
    p *= curand_uniform(state);
  } while (p > 1.0);
  return k - 1;
}

// 64 <= lambda <= 4000: rejection on an approximation of the incomplete gamma
// function (the toolkit's __cr_* helpers, in their exact forms).
namespace cudakit_curand {
inline float pgamma_parameter(float a, float m1, float m2, float m3) {
  return fmul_add(m1, approx_rsqrt(a - m2), m3);
}
inline float pgammainc(float a, float x) {
  const float alpha =
      pgamma_parameter(a, 1.43248035075540910f, 0.12400979329415655f, 0.00025361074907033f);
  const float beta =
      pgamma_parameter(a, 0.21096734870196546f, 1.97381164089999420f, 0.94201734077887530f);
  float t = fmul_add(alpha, a - x, -beta);
  t = 1.0f + approx_exp(t);
  return approx_rcp(t * t);
}
inline float pgammaincinv(float a, float y) {
  const float alpha =
      pgamma_parameter(a, 1.43248035075540910f, 0.12400979329415655f, 0.00025361074907033f);
  const float beta =
      pgamma_parameter(a, 0.21096734870196546f, 1.97381164089999420f, 0.94201734077887530f);
  float t = approx_rsqrt(y) - 1.0f;
  t = beta + approx_log(t);
  return a - t * approx_rcp(alpha);  // not fused: the GPU multiplies, then adds
}
inline double lgamma_integer(int a) {
  // log((a - 1)!) for a = 1...9; a rejected candidate (x not finite) may ask
  // for another a, which gets the last entry as in the toolkit's host code.
  static const double table[] = {0.0,
                                 0.0,
                                 6.931471805599453094e-1,
                                 1.791759469228055001e0,
                                 3.178053830347945620e0,
                                 4.787491742782045994e0,
                                 6.579251212010100995e0,
                                 8.525161361065414300e0,
                                 1.060460290274525023e1};
  const double fa = fabs((float)a);
  if (a <= 8) return table[a >= 1 ? a - 1 : 8];
  const double s = 1.0 / fa;
  const double t = s * s;
  double sum = -0.1633436431e-2;
  sum = fmul_add(sum, t, 0.83645878922e-3);
  sum = fmul_add(sum, t, -0.5951896861197e-3);
  sum = fmul_add(sum, t, 0.793650576493454e-3);
  sum = fmul_add(sum, t, -0.277777777735865004e-2);
  sum = fmul_add(sum, t, 0.833333333333331018375e-1);
  sum = fmul_add(sum, s, 0.918938533204672);
  const double half_log = 0.5 * log_double(fa);
  const double product = half_log * (fa - 0.5);
  return (product - fa) + (product + sum);
}
}  // namespace cudakit_curand

template <typename State>
CUDAKIT_CURAND_FN unsigned int curand_poisson_gammainc(State* state, float lambda) {
  using namespace cudakit_curand;
  const float logl = approx_log(lambda);
  float x;
  while (true) {
    const float y = curand_uniform(state);
    x = floorf(pgammaincinv(lambda, y));
    float z = curand_uniform(state);
    const float v = (pgammainc(lambda, x + 1.0f) - pgammainc(lambda, x)) * 1.3f;
    z = z * v;
    const float t = approx_exp(fmul_add(x, logl, -lambda) - (float)lgamma_integer((int)(1.0f + x)));
    if ((z < t) && (v >= 1e-20)) break;
  }
  return (unsigned int)x;
}

template <typename State>
CUDAKIT_CURAND_FN unsigned int cudakit_curand_poisson(State* state, double lambda) {
  if (lambda < 64) return curand_poisson_knuth(state, (float)lambda);
  if (lambda > 4000)
    return (
        unsigned int)(cudakit_curand::fmul_add(sqrt(lambda), curand_normal_double(state), lambda) +
                      0.5);
  return curand_poisson_gammainc(state, (float)lambda);
}
CUDAKIT_CURAND_FN unsigned int curand_poisson(curandStateXORWOW_t* state, double lambda) {
  return cudakit_curand_poisson(state, lambda);
}
CUDAKIT_CURAND_FN unsigned int curand_poisson(curandStatePhilox4_32_10_t* state, double lambda) {
  return cudakit_curand_poisson(state, lambda);
}
CUDAKIT_CURAND_FN unsigned int curand_poisson(curandStateMRG32k3a_t* state, double lambda) {
  return cudakit_curand_poisson(state, lambda);
}

#endif  // CUDAKIT_CURAND_KERNEL_CPU_DISTRIBUTIONS_H
