// cudakit::Linker with the real driver's linker: an extern __device__
// function across two sources, a kernel launching a child grid (dynamic
// parallelism, linked with libcudadevrt.a), and the linker's log for an
// undefined symbol. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cudakit/cudakit.hpp"
#include "gpu/cuda_device_test.hpp"
#include "unit/cpu_test_util.hpp"

namespace cudakit {
namespace {

using cudakit_test::CudaDeviceTest;

using test::contains;
using test::random_floats;

class LinkerGpu : public CudaDeviceTest {};

TEST_F(LinkerGpu, AnExternDeviceFunctionFromAnotherSource) {
  constexpr const char* outer = R"(
extern __device__ float scale(float x);
__global__ void apply_scale(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = scale(a[i]);
}
)";
  constexpr const char* inner = R"(
__device__ float scale(float x) { return 2.0f * x + 1.0f; }
)";
  Linker linker(*device_);
  linker.add_source(outer).add_source(inner);
  Module module = linker.link_module();

  const int n = 1000;  // not a multiple of the block
  std::vector<float> host = random_floats(n), out(n);
  DeviceBuffer<float> buffer(*device_, n);
  buffer.copy_from(std::span<const float>(host));
  module.kernel("apply_scale").launch(LaunchConfig{Dim3((n + 255) / 256), Dim3(256)}, buffer, n);
  out = buffer.to_host();
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(out[i], 2.0f * host[i] + 1.0f) << "at " << i;
}

TEST_F(LinkerGpu, AKernelLaunchesAChildGridOnTheDevice) {
  if (device_->compute_capability() < std::pair{3, 5})
    GTEST_SKIP() << "dynamic parallelism needs compute capability 3.5 or newer";
  constexpr const char* source = R"(
__global__ void child(const float* a, float* b, int offset, int n) {
  int i = offset + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * a[i] - 3.0f;
}
__global__ void parent(const float* a, float* b, int n, int chunk) {
  int offset = blockIdx.x * chunk;
  if (threadIdx.x == 0 && offset < n)
    child<<<(chunk + 63) / 64, 64>>>(a, b, offset, min(n, offset + chunk));
}
)";
  Linker linker(*device_);
  linker.add_source(source);
  linker.add_library("cudadevrt");
  Module module = linker.link_module();

  const int n = 3001, chunk = 500;
  std::vector<float> host = random_floats(n), out(n);
  DeviceBuffer<float> a(*device_, n), b(*device_, n);
  a.copy_from(std::span<const float>(host));
  const std::vector<float> filler(n, -1.0f);
  b.copy_from(std::span<const float>(filler));
  module.kernel("parent").launch(LaunchConfig{Dim3((n + chunk - 1) / chunk), Dim3(32)}, a, b, n,
                                 chunk);
  out = b.to_host();
  // The GPU contracts a*a - 3 into one fused multiply-add (one rounding):
  // near a*a == 3 the two roundings of the host's product and difference
  // differ in the last float32 bits of the operands' scale.
  for (int i = 0; i < n; ++i)
    ASSERT_NEAR(out[i], std::fma(host[i], host[i], -3.0f), 1e-5f * (1.0f + host[i] * host[i]))
        << "at " << i;
}

TEST_F(LinkerGpu, AnUndefinedSymbolIsAnErrorWithTheLinkersLog) {
  Linker linker(*device_);
  linker.add_source(
      "extern __device__ int undefined_function_xyz(int);\n"
      "__global__ void uses_it(int* a) { a[threadIdx.x] = undefined_function_xyz(a[0]); }\n");
  try {
    linker.link();
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_TRUE(contains(e.message(), "undefined_function_xyz")) << e.what();
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST_F(LinkerGpu, ALaunchFromTheDeviceWithoutCudadevrtSaysToAddIt) {
  Linker linker(*device_);
  linker.add_source(
      "__global__ void leaf(int* a) { a[threadIdx.x] = 1; }\n"
      "__global__ void root(int* a) { leaf<<<1, 4>>>(a); }\n");
  try {
    linker.link();
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_TRUE(contains(e.hint(), "cudadevrt")) << e.what();
  }
}

}  // namespace
}  // namespace cudakit
