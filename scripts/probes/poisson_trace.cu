// One Poisson draw of the rejection method (MRG32k3a, the pinned case 1 of
// tests/python/test_curand_kernel_cpu.py, draw 1700, lambda 300 as a constant)
// with its intermediate values: how it showed that ptxas evaluates
// __cr_log(300.0f) exactly at compile time (logl 0x40b68563) where the SFU
// gives 0x40b68562 for a lambda known only at run time.
// Build and run: nvcc -arch=sm_90 -O3 -o poisson_trace poisson_trace.cu && ./poisson_trace
#include <curand_kernel.h>
#include <cstdio>
__device__ void trace_draw(curandStateMRG32k3a_t* s, float lambda, float* o) {
  float logl = __cr_log(lambda);
  o[0] = logl;
  float y = curand_uniform(s);
  float x = __cr_pgammaincinv(lambda, y);
  o[1] = y; o[2] = x;
  x = floorf(x);
  float z = curand_uniform(s);
  float p1 = __cr_pgammainc(lambda, x + 1.0f), p0 = __cr_pgammainc(lambda, x);
  float v = (p1 - p0) * 1.3f;
  o[3] = z; o[4] = p1; o[5] = p0; o[6] = v;
  z = z * v;
  float lg = (float)__cr_lgamma_integer((int)(1.0f + x));
  float arg = -lambda + x * logl - lg;
  float t = (float)__cr_exp(arg);
  o[7] = z; o[8] = lg; o[9] = arg; o[10] = t;
}
__global__ void k(float* o, unsigned* draws) {
  const int n = 2000;
  curandStateMRG32k3a_t s;
  curand_init(0ull, 0ull, 0ull, &s);
  for (int i = 0; i < n; ++i) curand(&s);
  for (int i = 0; i < n; ++i) curand_uniform(&s);
  for (int i = 0; i < n; ++i) curand_uniform_double(&s);
  skipahead(12345678901ull, &s);
  for (int i = 0; i < n; ++i) curand(&s);
  skipahead_sequence(3, &s);
  for (int i = 0; i < n; ++i) curand(&s);
  for (int i = 0; i < n; ++i) curand_normal(&s);
  for (int i = 0; i < n; ++i) curand_normal_double(&s);
  for (int i = 0; i < n; ++i) curand_poisson(&s, 5.5);
  for (int i = 0; i < 1700; ++i) curand_poisson(&s, 300.0);
  curandStateMRG32k3a_t c = s;
  trace_draw(&c, 300.0f, o);
  draws[0] = curand_poisson(&s, 300.0);
}
int main() {
  float* o; unsigned* d;
  cudaMallocManaged(&o, 64 * 4); cudaMallocManaged(&d, 16);
  k<<<1, 1>>>(o, d);
  cudaDeviceSynchronize();
  const char* names[] = {"logl", "y", "pinv", "z", "p1", "p0", "v", "zv", "lgamma", "arg", "t"};
  for (int i = 0; i < 11; ++i) printf("%-7s %.9g 0x%08x\n", names[i], o[i], *(unsigned*)&o[i]);
  printf("draw %u\n", d[0]);
}
