// Cooperative launches (LaunchConfig::cooperative) and the grid barrier
// cooperative_groups::this_grid().sync(), on the CPU backend and on a GPU:
// blocks read each other's results after the barrier, checked against host
// references on fresh random data, grids that are not powers of two; and the
// errors (a grid too large to be resident, grid sync without a cooperative
// launch, a block that skips the barrier).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backend_fixture.hpp"
#include "cudakit/cudakit.hpp"

namespace cudakit {
namespace {

// Phase 1: each block sums a grid-strided share of `in` into partial[block].
// Phase 2 (after grid.sync): each block reads every block's partial (the
// total) and its right neighbour's.
constexpr const char* kTwoPhase = R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void two_phase(const float* in, float* partial, float* out, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float sums[1024];
  float s = 0.0f;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
    s += in[i];
  sums[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (unsigned k = 0; k < blockDim.x; ++k) t += sums[k];
    partial[blockIdx.x] = t;
  }
  grid.sync();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
    out[2 * blockIdx.x] = total;
    out[2 * blockIdx.x + 1] = partial[(blockIdx.x + 1) % gridDim.x];
  }
}

// `rounds` times: every thread takes its right neighbour's value (across
// blocks), with a grid barrier between the reads and the writes.
__global__ void rotate(int* data, int rounds) {
  cg::grid_group grid = cg::this_grid();
  const unsigned long long me = grid.thread_rank(), n = grid.size();
  for (int r = 0; r < rounds; ++r) {
    int next = data[(me + 1) % n];
    grid.sync();
    data[me] = next;
    grid.sync();
  }
}

// Blocks other than 0 return before the barrier: never completes on a GPU.
__global__ void skips_barrier(int* data) {
  if (blockIdx.x != 0) return;
  cg::this_grid().sync();
  data[threadIdx.x] = 1;
}
)";

std::uint32_t fresh_seed() {
  std::random_device device;
  return device();
}

class CooperativeLaunch : public test::OnBackend {
 protected:
  void SetUp() override {
    test::OnBackend::SetUp();
    if (IsSkipped()) return;
    if (backend() == BackendKind::cuda &&
        device().attribute(DeviceAttribute::cooperative_launch) == 0)
      GTEST_SKIP() << "the GPU does not support cooperative launches";
    module_.emplace(compile(kTwoPhase, {}, device()));
  }
  Kernel kernel(const char* name) const { return module_->kernel(name); }
  static LaunchConfig cooperative(unsigned blocks, unsigned threads) {
    LaunchConfig config;
    config.grid = Dim3(blocks);
    config.block = Dim3(threads);
    config.cooperative = true;
    return config;
  }
  std::optional<Module> module_;
  std::uint32_t seed_ = fresh_seed();
};

TEST_F(CooperativeLaunch, BlocksReadEachOthersResultsAfterGridSync) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  std::mt19937 rng(seed_);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const unsigned blocks = 13, threads = 96;  // 1248 threads, neither a power of two
  const int n = 10007;
  std::vector<float> in(n);
  for (auto& v : in) v = dist(rng);
  Kernel k = kernel("two_phase");
  ASSERT_GE(k.max_cooperative_grid_blocks(threads), blocks);

  std::vector<float> partial(blocks, -7.0f), out(2 * blocks, -7.0f);
  k.launch(cooperative(blocks, threads), In(in), InOut(partial), Out(out), n);

  // The host reference: the same grid-strided shares, in double.
  const unsigned long long grid_threads = blocks * threads;
  std::vector<double> want_partial(blocks, 0.0), magnitude(blocks, 0.0);
  for (unsigned long long i = 0; i < static_cast<unsigned long long>(n); ++i) {
    const auto block = (i % grid_threads) / threads;
    want_partial[block] += in[i];
    magnitude[block] += std::fabs(in[i]);
  }
  double total = 0.0, total_magnitude = 0.0;
  for (unsigned b = 0; b < blocks; ++b) {
    total += want_partial[b];
    total_magnitude += magnitude[b];
  }
  for (unsigned b = 0; b < blocks; ++b) {
    EXPECT_NEAR(partial[b], want_partial[b], 1e-5 * magnitude[b] + 1e-6) << "block " << b;
    EXPECT_NEAR(out[2 * b], total, 1e-5 * total_magnitude + 1e-6) << "block " << b;
    const unsigned right = (b + 1) % blocks;
    EXPECT_NEAR(out[2 * b + 1], want_partial[right], 1e-5 * magnitude[right] + 1e-6)
        << "block " << b;
  }
}

TEST_F(CooperativeLaunch, ManyGridBarriersInALoop) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  std::mt19937 rng(seed_);
  const unsigned blocks = 7, threads = 33;
  const std::size_t n = blocks * threads;
  std::vector<int> data(n);
  for (auto& v : data) v = static_cast<int>(rng() % 1000000) + 1;
  DeviceBuffer<int> buffer(device(), n);
  buffer.copy_from(data);
  const int rounds = 25;
  kernel("rotate").launch(cooperative(blocks, threads), buffer, rounds);
  const auto got = buffer.to_host();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], data[(i + rounds) % n]) << "element " << i;
}

TEST_F(CooperativeLaunch, TooLargeAGridIsALaunchConfigErrorNamingTheMaximum) {
  Kernel k = kernel("rotate");
  const long long max_blocks = k.max_cooperative_grid_blocks(64);
  ASSERT_GT(max_blocks, 0);
  DeviceBuffer<int> buffer(device(), 16);
  try {
    k.launch(cooperative(static_cast<unsigned>(max_blocks + 1), 64), buffer, 1);
    FAIL() << "a cooperative grid of " << max_blocks + 1 << " blocks was launched";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.device_value(), max_blocks);
    EXPECT_EQ(e.requested(), max_blocks + 1);
    EXPECT_NE(std::string(e.what()).find("cooperative"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(max_blocks)), std::string::npos)
        << e.what();
  }
}

TEST_F(CooperativeLaunch, MaxCooperativeGridBlocksRejectsAnEmptyBlock) {
  EXPECT_THROW((void)kernel("rotate").max_cooperative_grid_blocks(0), ArgumentError);
}

TEST_F(CooperativeLaunch, LaunchConfigDescribesACooperativeLaunch) {
  EXPECT_NE(cooperative(3, 32).describe().find("cooperative"), std::string::npos);
}

// On a GPU both of these are undefined (a hang at best); the CPU backend
// reports them.
TEST_F(CooperativeLaunch, GridSyncWithoutACooperativeLaunchIsAKernelFault) {
  if (backend() != BackendKind::cpu) GTEST_SKIP() << "undefined behaviour on a GPU";
  DeviceBuffer<int> buffer(device(), 4 * 32);
  LaunchConfig config = cooperative(4, 32);
  config.cooperative = false;
  try {
    kernel("rotate").launch(config, buffer, 1);
    device().synchronize();
    FAIL() << "grid.sync() ran in a launch that was not cooperative";
  } catch (const KernelFault& e) {
    EXPECT_NE(std::string(e.what()).find("cooperative"), std::string::npos) << e.what();
  }
  // The backend goes on: a cooperative launch of the same kernel works.
  std::vector<int> data(4 * 32);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<int>(i) + 5;
  buffer.copy_from(data);
  kernel("rotate").launch(cooperative(4, 32), buffer, 1);
  EXPECT_EQ(buffer.to_host()[0], 6);
}

TEST_F(CooperativeLaunch, ABlockSkippingTheGridBarrierIsAKernelFaultNotAHang) {
  if (backend() != BackendKind::cpu) GTEST_SKIP() << "hangs on a GPU";
  DeviceBuffer<int> buffer(device(), 32);
  try {
    kernel("skips_barrier").launch(cooperative(3, 32), buffer);
    device().synchronize();
    FAIL() << "the grid barrier completed without blocks 1 and 2";
  } catch (const KernelFault& e) {
    EXPECT_NE(std::string(e.what()).find("finished without reaching"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cudakit
