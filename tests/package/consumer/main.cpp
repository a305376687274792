// Compiles and runs a kernel through an installed cudakit: on the CPU backend
// (no GPU needed), checked against a host reference. Exit status 0 = right.
#include <cmath>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <cudakit/version.hpp>
#include <random>
#include <string>
#include <vector>

static_assert(CUDAKIT_VERSION_MAJOR >= 0 && CUDAKIT_VERSION_MINOR >= 0 &&
              CUDAKIT_VERSION_PATCH >= 0);

int main() {
  const std::string version = cudakit::version_string;
  if (version != std::to_string(CUDAKIT_VERSION_MAJOR) + "." +
                     std::to_string(CUDAKIT_VERSION_MINOR) + "." +
                     std::to_string(CUDAKIT_VERSION_PATCH)) {
    std::fprintf(stderr, "version string %s does not match the version macros\n", version.c_str());
    return 1;
  }
  try {
    cudakit::Device cpu = cudakit::Device::get(cudakit::BackendKind::cpu, 0);
    cudakit::Module module = cudakit::compile(R"(
__global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)",
                                              {}, cpu);
    const int n = 1000;  // not a multiple of the block size
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = uniform(random);
      y[i] = uniform(random);
    }
    const std::vector<float> y_before = y;
    const float a = 2.5f;
    module.kernel("saxpy").launch(cudakit::grid_for(n, 128), a, cudakit::In(x), cudakit::InOut(y),
                                  n);
    for (int i = 0; i < n; ++i) {
      const float expected = a * x[i] + y_before[i];
      if (std::fabs(y[i] - expected) > 1e-5f) {
        std::fprintf(stderr, "y[%d] = %g, expected %g\n", i, double(y[i]), double(expected));
        return 1;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudakit failed: %s\n", e.what());
    return 1;
  }
  std::printf("cudakit %s: saxpy on the CPU backend is right\n", version.c_str());
  return 0;
}
