// cudakit::benchmark (host and device time per run, as
// cupyx.profiler.benchmark) and cudakit::occupancy (blocks per
// multiprocessor with the limiting resource named), on the default backend.
#include "cudakit/profiler.hpp"

#include <gtest/gtest.h>

#include <string>

#include "cudakit/cudakit.hpp"

namespace ck = cudakit;

namespace {

const char* kScale = R"(__global__ void scale(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 1.5f;
})";

TEST(Profiler, BenchmarkRecordsHostAndDeviceTimePerRun) {
  ck::Kernel k = ck::compile(kScale).kernel("scale");
  ck::DeviceBuffer<float> p(10007);
  p.untyped().fill_bytes(0, 4, 10007);
  int calls = 0;
  ck::BenchmarkOptions options;
  options.n_warmup = 2;
  options.n_repeat = 5;
  options.name = "scale";
  ck::BenchmarkResult r = ck::benchmark(
      [&] {
        ++calls;
        k.launch(ck::grid_for(10007, 128), p, 10007);
      },
      options);
  EXPECT_EQ(calls, 7);
  ASSERT_EQ(r.cpu_ms.size(), 5u);
  ASSERT_EQ(r.gpu_ms.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_GE(r.gpu_ms[i], 0.0);
    EXPECT_GE(r.cpu_ms[i], 0.0);
  }
  EXPECT_LE(r.gpu_min(), r.gpu_mean());
  EXPECT_LE(r.gpu_mean(), r.gpu_max());
  const std::string text = r.to_string();
  EXPECT_NE(text.find("scale: CPU:"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU:"), std::string::npos) << text;
}

TEST(Profiler, BenchmarkRejectsNonsenseCounts) {
  ck::BenchmarkOptions options;
  options.n_repeat = 0;
  EXPECT_THROW(ck::benchmark([] {}, options), ck::ArgumentError);
}

TEST(Profiler, OccupancyNamesTheLimitingResource) {
  ck::Kernel k = ck::compile(kScale).kernel("scale");
  const ck::DeviceProperties& p = k.device().properties();
  ck::Occupancy big = ck::occupancy(k, 1024);
  EXPECT_EQ(big.block_size, 1024);
  EXPECT_GT(big.active_blocks_per_multiprocessor, 0);
  EXPECT_EQ(big.limit_by_warps, p.max_threads_per_multiprocessor / 1024);
  EXPECT_FALSE(big.limited_by.empty());
  EXPECT_GT(big.fraction, 0.0);
  EXPECT_LE(big.fraction, 1.0);
  EXPECT_NE(big.to_string().find("limited by"), std::string::npos);

  // Tiny blocks: the per-multiprocessor block count runs out first.
  ck::Occupancy tiny = ck::occupancy(k, 32);
  EXPECT_EQ(tiny.limited_by, "blocks per multiprocessor") << tiny.to_string();

  // A block that asks for most of a multiprocessor's shared memory.
  const std::size_t shared = p.shared_memory_per_multiprocessor / 2 - 4096;
  if (shared <= p.shared_memory_per_block_optin) {
    k.set_max_dynamic_shared_memory(shared);
    ck::Occupancy heavy = ck::occupancy(k, 128, shared);
    EXPECT_EQ(heavy.limit_by_shared_memory, 2) << heavy.to_string();
    EXPECT_EQ(heavy.limited_by, "shared memory") << heavy.to_string();
  }
  EXPECT_THROW(ck::occupancy(k, 0), ck::ArgumentError);
  EXPECT_THROW(ck::occupancy(k, 4096), ck::ArgumentError);
}

}  // namespace
