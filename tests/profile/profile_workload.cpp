// A small program for `cudakit profile`: a hand-written kernel launched
// three times (with its byte count declared for two of them) and a fused
// array expression evaluated twice, each checked against a host reference.
// Exits 0 when the results are right.
#include <cmath>
#include <cstdio>
#include <vector>

#include "cudakit/cudakit.hpp"

namespace ck = cudakit;

int main() try {
  constexpr int n = 10007;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.25f + float(i % 17);
    y[i] = 1.5f - float(i % 5);
  }
  ck::Kernel saxpy = ck::compile(R"(
__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
})")
                         .kernel("saxpy");
  ck::DeviceBuffer<float> dx(n), dy(n);
  dx.copy_from(x);
  dy.copy_from(y);
  ck::LaunchConfig config = ck::grid_for(n, 256);
  saxpy.launch(config, 2.0f, dx, dy, n);
  config.bytes_moved = 3 * sizeof(float) * n;  // x read, y read and written
  saxpy.launch(config, 2.0f, dx, dy, n);
  saxpy.launch(config, 2.0f, dx, dy, n);
  std::vector<float> got = dy.to_host();

  ck::Array a = ck::from_host(x), b = ck::from_host(y), out = ck::empty({n});
  out.assign(a * b + a);
  out.assign(a * b + a);
  std::vector<float> fused = out.to_host<float>();

  for (int i = 0; i < n; ++i) {
    const float want = y[i] + 6.0f * x[i];
    const float want_fused = x[i] * y[i] + x[i];
    if (std::fabs(got[i] - want) > 1e-4f * (1 + std::fabs(want)) ||
        std::fabs(fused[i] - want_fused) > 1e-4f * (1 + std::fabs(want_fused))) {
      std::printf("wrong result at %d\n", i);
      return 1;
    }
  }
  std::printf("profile workload: results correct\n");
  return 0;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
