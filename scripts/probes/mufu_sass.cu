// The SASS of the approximate functions and of what cuRAND's float normal,
// log-normal and Poisson draws compile to (cuobjdump -sass).
#include <curand_kernel.h>
extern "C" __global__ void ops(float* o, const float* i) {
  float y;
  asm("sin.approx.f32 %0, %1;" : "=f"(y) : "f"(i[0])); o[0] = y;
  asm("cos.approx.f32 %0, %1;" : "=f"(y) : "f"(i[1])); o[1] = y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(i[2])); o[2] = y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(i[3])); o[3] = y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(i[4])); o[4] = y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(i[5])); o[5] = y;
  o[6] = expf(i[6]);
  o[7] = logf(i[7]);
}
extern "C" __global__ void normals(float* o, unsigned long long seed) {
  curandState s;
  curand_init(seed, threadIdx.x, 0, &s);
  float2 v = curand_normal2(&s);
  o[threadIdx.x] = v.x + v.y + curand_log_normal(&s, 0.5f, 2.0f);
}
extern "C" __global__ void poisson(unsigned* o, unsigned long long seed, double lambda) {
  curandStatePhilox4_32_10_t s;
  curand_init(seed, threadIdx.x, 0, &s);
  o[threadIdx.x] = curand_poisson(&s, lambda);
}
