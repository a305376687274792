// Kernel::occupancy on every backend: resident blocks and warps per
// multiprocessor, the fraction, each resource's limit and the limiting one
// named; the same answer as the free function cudakit::occupancy; the
// model's per-resource limits agree with the device's (the driver's, or the
// CPU backend's model) resident block count.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <string>

#include "backend_fixture.hpp"
#include "cudakit/cudakit.hpp"
#include "cudakit/profiler.hpp"

namespace cudakit::test {
namespace {

// Few registers, no static shared memory: only warps, blocks per
// multiprocessor and the launch's dynamic shared memory can limit it.
const char* kScale = R"(
extern __shared__ float staging[];
__global__ void scale(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { staging[threadIdx.x % 32] = p[i]; p[i] = staging[threadIdx.x % 32] * 1.5f; }
}
)";

class OccupancyTest : public OnBackend {
 protected:
  Kernel kernel() { return compile(kScale, {}, device()).kernel("scale"); }
  static int lowest_limit(const Occupancy& o) {
    return std::min(
        {o.limit_by_warps, o.limit_by_blocks, o.limit_by_registers, o.limit_by_shared_memory});
  }
};

TEST_F(OccupancyTest, MethodMatchesTheFreeFunctionAndIsSelfConsistent) {
  Kernel k = kernel();
  const DeviceProperties& p = device().properties();
  for (int block : {32, 64, 96, 128, 256, 500, 512, 1024}) {
    const Occupancy o = k.occupancy(block);
    const Occupancy free = occupancy(k, block);
    EXPECT_EQ(o.to_string(), free.to_string());
    EXPECT_EQ(o.block_size, block);
    const int warps_per_block = (block + p.warp_size - 1) / p.warp_size;
    EXPECT_EQ(o.max_warps_per_multiprocessor, p.max_threads_per_multiprocessor / p.warp_size);
    EXPECT_EQ(o.limit_by_warps, o.max_warps_per_multiprocessor / warps_per_block) << block;
    EXPECT_EQ(o.active_warps_per_multiprocessor,
              o.active_blocks_per_multiprocessor * warps_per_block);
    EXPECT_DOUBLE_EQ(o.fraction, double(o.active_warps_per_multiprocessor) /
                                     double(o.max_warps_per_multiprocessor));
    EXPECT_GT(o.fraction, 0.0);
    EXPECT_LE(o.fraction, 1.0);
    EXPECT_EQ(o.limit_by_shared_memory, INT_MAX) << "no shared memory used";
    // The device's own count is what the model's resources allow.
    EXPECT_EQ(o.active_blocks_per_multiprocessor, lowest_limit(o)) << o.to_string();
    EXPECT_NE(o.to_string().find("limited by " + o.limited_by), std::string::npos);
  }
}

TEST_F(OccupancyTest, NamesTheLimitingResource) {
  Kernel k = kernel();
  const DeviceProperties& p = device().properties();
  // Whole-multiprocessor blocks: the threads run out first.
  const Occupancy big = k.occupancy(p.max_threads_per_block);
  EXPECT_EQ(big.limited_by, "threads (warps) per multiprocessor") << big.to_string();
  // One-warp blocks: the count of blocks per multiprocessor does.
  const Occupancy tiny = k.occupancy(32);
  EXPECT_EQ(tiny.limited_by, "blocks per multiprocessor") << tiny.to_string();
  EXPECT_EQ(tiny.active_blocks_per_multiprocessor, p.max_blocks_per_multiprocessor);
  // Dynamic shared memory of a bit under half a multiprocessor's: two fit.
  const std::size_t shared = p.shared_memory_per_multiprocessor / 2 - 4096;
  ASSERT_LE(shared, p.shared_memory_per_block_optin);
  k.set_max_dynamic_shared_memory(shared);
  const Occupancy heavy = k.occupancy(128, shared);
  EXPECT_EQ(heavy.limit_by_shared_memory, 2) << heavy.to_string();
  EXPECT_EQ(heavy.limited_by, "shared memory") << heavy.to_string();
  EXPECT_EQ(heavy.active_blocks_per_multiprocessor, 2) << heavy.to_string();
  EXPECT_EQ(heavy.active_warps_per_multiprocessor, 8);
}

TEST_F(OccupancyTest, ThreeDimensionalBlocksCountTheirThreads) {
  Kernel k = kernel();
  EXPECT_EQ(k.occupancy(Dim3(16, 16)).to_string(), k.occupancy(256).to_string());
  EXPECT_EQ(k.occupancy(Dim3(8, 4, 2), 1024).to_string(), k.occupancy(64, 1024).to_string());
}

TEST_F(OccupancyTest, BlockSizesNoDeviceRunsAreArgumentErrors) {
  Kernel k = kernel();
  EXPECT_THROW((void)k.occupancy(0), ArgumentError);
  EXPECT_THROW((void)k.occupancy(-5), ArgumentError);
  EXPECT_THROW((void)k.occupancy(4096), ArgumentError);
  EXPECT_THROW((void)k.occupancy(Dim3(1024, 1024, 64)), ArgumentError);
  try {
    (void)k.occupancy(2048);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("block size 2048"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cudakit::test
