// Monte Carlo estimate of pi as cuRAND's examples write it: each thread draws
// points from its own XORWOW subsequence and counts those in the unit circle.
#include <curand_kernel.h>

__global__ void curand_pi(int seed, unsigned int* hits, int samples, int n) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n) return;
  curandState state;
  curand_init(seed, id, 0, &state);
  unsigned int count = 0;
  for (int i = 0; i < samples; ++i) {
    const float x = curand_uniform(&state);
    const float y = curand_uniform(&state);
    if (x * x + y * y <= 1.0f) ++count;
  }
  hits[id] = count;
}
