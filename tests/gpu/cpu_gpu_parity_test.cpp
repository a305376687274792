// The CPU backend's warp semantics against a real GPU: the same kernels on
// the same random inputs give bit-identical results on both backends (the
// reductions add in the same tree order). Needs a GPU; skips without one.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "cudakit/cudakit.hpp"
#include "unit/test_kernels.hpp"

namespace cudakit {
namespace {

// The CPU tests' own kernels (warp_sum, ballot, block_sum), so the parity
// checked here is that of the kernels the CPU tests verify against the host.
const std::string kParitySource =
    std::string(test_kernels::warp_source) + test_kernels::block_reduction_source;

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
