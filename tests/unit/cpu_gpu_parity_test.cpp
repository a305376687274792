// The CPU backend's warp semantics against a real GPU: the same kernels on
// the same random inputs give bit-identical results on both backends (the
// reductions add in the same tree order). Needs a GPU; skips without one.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "cudakit/cudakit.hpp"

namespace cudakit {
namespace {

const char* kParitySource = R"(
__global__ void warp_sum(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffff, v, offset);
  if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}
__global__ void ballot(const int* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned b = __ballot_sync(0xffffffff, i < n && in[i] > 0);
  if ((threadIdx.x & 31) == 0) out[i / 32] = b;
}
__inline__ __device__ float warp_reduce(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v = warp_reduce(v);
  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / warpSize ? partial[lane] : 0.0f;
  if (warp == 0) v = warp_reduce(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
)";

class CpuGpuParity : public testing::Test {
 protected:
  void SetUp() override {
    if (!backend_available(BackendKind::cuda))
      GTEST_SKIP() << "no CUDA device: the GPU half of the comparison cannot run";
  }
  static std::vector<Device> devices() {
    return {Device::get(BackendKind::cpu, 0), Device::get(BackendKind::cuda, 0)};
  }
  static std::vector<float> random_floats(std::size_t n) {
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
  }
};

TEST_F(CpuGpuParity, WarpShuffleReductionIsBitIdentical) {
  const int n = 1000, warps = (n + 31) / 32;
  const auto in = random_floats(n);
  std::vector<std::vector<float>> results;
  for (const Device& dev : devices()) {
    Module m = compile(kParitySource, {}, dev);
    DeviceBuffer<float> din(dev, n), dout(dev, warps);
    din.copy_from(std::span<const float>(in));
    m.kernel("warp_sum").launch(LaunchConfig{Dim3(4), Dim3(256)}, din, dout, n);
    results.push_back(dout.to_host());
  }
  EXPECT_EQ(results[0], results[1]);
}

TEST_F(CpuGpuParity, BallotIsIdentical) {
  const int n = 250;
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> d(-5, 5);
  std::vector<int> in(256);
  for (auto& x : in) x = d(rng);
  std::vector<std::vector<unsigned>> results;
  for (const Device& dev : devices()) {
    Module m = compile(kParitySource, {}, dev);
    DeviceBuffer<int> din(dev, in.size());
    DeviceBuffer<unsigned> dout(dev, 8);
    din.copy_from(std::span<const int>(in));
    m.kernel("ballot").launch(LaunchConfig{Dim3(2), Dim3(128)}, din, dout, n);
    results.push_back(dout.to_host());
  }
  EXPECT_EQ(results[0], results[1]);
}

TEST_F(CpuGpuParity, BlockReductionMixingBarriersAndShufflesIsBitIdentical) {
  const int n = 100003, block = 512, blocks = (n + block - 1) / block;
  const auto in = random_floats(n);
  std::vector<std::vector<float>> results;
  for (const Device& dev : devices()) {
    Module m = compile(kParitySource, {}, dev);
    DeviceBuffer<float> din(dev, n), dout(dev, blocks);
    din.copy_from(std::span<const float>(in));
    m.kernel("block_sum").launch(LaunchConfig{Dim3(blocks), Dim3(block)}, din, dout, n);
    results.push_back(dout.to_host());
  }
  EXPECT_EQ(results[0], results[1]);
}

}  // namespace
}  // namespace cudakit
