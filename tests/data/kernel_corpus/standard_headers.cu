// A kernel written for nvcc: host headers for the math constants, fixed-width
// integers, float limits and std::min/max, and nvcc's implicit `uint`.
#include <math.h>
#include <stdint.h>
#include <float.h>
#include <limits.h>
#include <algorithm>

__global__ void standard_headers(const float* x, float* out, int n) {
  const uint i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (uint)n) return;
  const int32_t bucket = (int32_t)(i % 7u);
  const float v = x[i];
  float y = fminf(sqrtf(fabsf(v)) * (float)M_PI, FLT_MAX);
  y += std::min(v, 0.5f) + std::max(v, -0.25f);
  y += (float)bucket + (INT_MAX > 0 ? 1.0f : 0.0f);
  out[i] = y;
}
