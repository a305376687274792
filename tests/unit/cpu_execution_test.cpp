// Kernels running on the CPU backend: the tutorials' workloads, shared
// memory and barriers, warp operations with warp-of-32 semantics, atomics,
// dynamic shared memory and printf, each against a host reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "cpu_test_util.hpp"
#include "cudakit/error.hpp"
#include "unit/test_kernels.hpp"
#include "workloads/mean_filter.hpp"
#include "workloads/tiled_matmul.hpp"

namespace cudakit::test {
namespace {

std::vector<float> host_matmul(const std::vector<float>& a, const std::vector<float>& b, int m,
                               int n, int k) {
  std::vector<float> c(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += double(a[i * k + p]) * b[p * n + j];
      c[i * n + j] = static_cast<float>(s);
    }
  return c;
}

TEST(CpuExecution, TutorialTiledMatmulMatchesHostAtOddSizes) {
  const int m = 45, n = 37, k = 53;  // none a multiple of the 16x16 tile
  auto a = random_floats(m * k), b = random_floats(k * n);
  CpuBuffer<float> da(a), db(b), dc(m * n);
  CpuModuleHandle mod(workloads::tiled_matmul_source);
  mod.run("matmul_shared", Dim3((n + 15) / 16, (m + 15) / 16), Dim3(16, 16), da.get(), db.get(),
          dc.get(), m, n, k);
  auto c = dc.to_host();
  auto ref = host_matmul(a, b, m, n, k);
  for (int i = 0; i < m * n; ++i) ASSERT_NEAR(c[i], ref[i], 1e-4f) << i;
}

TEST(CpuExecution, TutorialMeanFilterMatchesHostOnRandomRgbImage) {
  const int width = 83, height = 61, channels = 3;
  auto img = random_ints<unsigned char>(width * height * channels, 0, 255);
  CpuBuffer<unsigned char> din(img), dout(img.size());
  CpuModuleHandle mod(workloads::mean_filter_source);
  mod.run("convolution_3x3", Dim3((width + 15) / 16, (height + 15) / 16), Dim3(16, 16), din.get(),
          dout.get(), width, height);
  auto out = dout.to_host();
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        int idx = (y * width + x) * channels + c;
        int expected = img[idx];
        if (x >= 1 && x < width - 1 && y >= 1 && y < height - 1) {
          int sum = 0;
          for (int ky = -1; ky <= 1; ++ky)
            for (int kx = -1; kx <= 1; ++kx) sum += img[((y + ky) * width + x + kx) * channels + c];
          expected = sum / 9;
        }
        ASSERT_EQ(out[idx], expected) << x << "," << y << "," << c;
      }
}

TEST(CpuExecution, ThreeDimensionalBlocksSeeEveryCoordinate) {
  CpuModuleHandle mod(R"(
__global__ void coords(int* out) {
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int i = b * blockDim.x * blockDim.y * blockDim.z + t;
  out[i] = threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z + 1000 * blockIdx.x +
           10000 * blockIdx.y + 100000 * blockIdx.z;
}
)");
  Dim3 grid(3, 2, 2), block(5, 3, 2);
  const std::size_t total = grid.volume() * block.volume();
  CpuBuffer<int> d(total);
  mod.run("coords", grid, block, d.get());
  auto r = d.to_host();
  std::size_t i = 0;
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned by = 0; by < 2; ++by)
      for (unsigned bx = 0; bx < 3; ++bx)
        for (unsigned tz = 0; tz < 2; ++tz)
          for (unsigned ty = 0; ty < 3; ++ty)
            for (unsigned tx = 0; tx < 5; ++tx)
              ASSERT_EQ(r[i++],
                        int(tx + 10 * ty + 100 * tz + 1000 * bx + 10000 * by + 100000 * bz));
}

const char* const kWarpSource = test_kernels::warp_source;

TEST(CpuWarp, ShuffleDownReductionSumsEachWarp) {
  const int n = 1000;  // the last warp is partly out of range
  auto in = random_floats(n);
  CpuBuffer<float> din(in), dout(32);
  CpuModuleHandle mod(kWarpSource);
  mod.run("warp_sum", Dim3(4), Dim3(256), din.get(), dout.get(), n);
  auto out = dout.to_host();
  for (int w = 0; w < (n + 31) / 32; ++w) {
    double ref = 0;
    for (int i = w * 32; i < std::min(n, w * 32 + 32); ++i) ref += in[i];
    ASSERT_NEAR(out[w], ref, 1e-4) << w;
  }
}

TEST(CpuWarp, BallotSetsTheBitOfEachVotingLane) {
  const int n = 250;
  auto in = random_ints<int>(256, -5, 5);
  CpuBuffer<int> din(in);
  CpuBuffer<unsigned> dout(8);
  CpuModuleHandle mod(kWarpSource);
  mod.run("ballot", Dim3(2), Dim3(128), din.get(), dout.get(), n);
  auto out = dout.to_host();
  for (int w = 0; w < 8; ++w) {
    unsigned ref = 0;
    for (int l = 0; l < 32; ++l)
      if (w * 32 + l < n && in[w * 32 + l] > 0) ref |= 1u << l;
    ASSERT_EQ(out[w], ref) << w;
  }
}

TEST(CpuWarp, IndexedUpAndXorShufflesFollowCudaRules) {
  auto in = random_ints<int>(64, -1000, 1000);
  CpuBuffer<int> din(in), di(64), du(64), dx(64);
  CpuModuleHandle mod(kWarpSource);
  mod.run("shuffles", Dim3(1), Dim3(64), din.get(), di.get(), du.get(), dx.get());
  auto ri = di.to_host(), ru = du.to_host(), rx = dx.to_host();
  for (int i = 0; i < 64; ++i) {
    int lane = i % 32, base = i - lane;
    EXPECT_EQ(ri[i], in[base + 7]);
    EXPECT_EQ(ru[i], lane >= 3 ? in[i - 3] : in[i]);  // below the warp: own value
    int seg = lane & ~15;
    EXPECT_EQ(rx[i], in[base + seg + ((lane ^ 5) & 15)]);  // within 16-lane segments
  }
}

TEST(CpuWarp, AnyAndAllVoteOverTheWarp) {
  auto in = random_ints<int>(64, 0, 100);
  in[40] = 95;  // warp 1 has a vote for "any"
  for (int i = 0; i < 32; ++i) in[i] = std::min(in[i], 80);
  CpuBuffer<int> din(in), dany(64), dall(64);
  CpuModuleHandle mod(kWarpSource);
  mod.run("votes", Dim3(1), Dim3(64), din.get(), dany.get(), dall.get());
  auto ra = dany.to_host(), rl = dall.to_host();
  for (int w = 0; w < 2; ++w) {
    bool any = false, all = true;
    for (int l = 0; l < 32; ++l) {
      any = any || in[w * 32 + l] > 90;
      all = all && in[w * 32 + l] > 5;
    }
    for (int l = 0; l < 32; ++l) {
      EXPECT_EQ(ra[w * 32 + l] != 0, any);
      EXPECT_EQ(rl[w * 32 + l] != 0, all);
    }
  }
}

TEST(CpuWarp, PartialLastWarpHasOnlyItsLanesActive) {
  CpuBuffer<unsigned> d(40);
  CpuModuleHandle mod(kWarpSource);
  mod.run("partial_warp", Dim3(1), Dim3(40), d.get());
  auto r = d.to_host();
  for (int i = 0; i < 32; ++i) EXPECT_EQ(r[i], 0xffffffffu);
  for (int i = 32; i < 40; ++i) EXPECT_EQ(r[i], 0xffu);
}

TEST(CpuBarrier, BlockReductionMixingSyncthreadsAndShuffles) {
  CpuModuleHandle mod(test_kernels::block_reduction_source);
  const int n = 100003, block = 512, blocks = (n + block - 1) / block;
  auto in = random_floats(n);
  CpuBuffer<float> din(in), dout(blocks);
  mod.run("block_sum", Dim3(blocks), Dim3(block), din.get(), dout.get(), n);
  auto out = dout.to_host();
  for (int b = 0; b < blocks; ++b) {
    double ref = 0;
    for (int i = b * block; i < std::min(n, (b + 1) * block); ++i) ref += in[i];
    ASSERT_NEAR(out[b], ref, 1e-3) << b;
  }
}

TEST(CpuBarrier, SyncthreadsCountAndOrAnd) {
  CpuModuleHandle mod(R"(
__global__ void k(const int* in, int* out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int c = __syncthreads_count(v > 0);
  int a = __syncthreads_and(v > -100);
  int o = __syncthreads_or(v > 45);
  if (threadIdx.x == 0) { out[3 * blockIdx.x] = c; out[3 * blockIdx.x + 1] = a; out[3 * blockIdx.x + 2] = o; }
}
)");
  auto in = random_ints<int>(3 * 100, -50, 50);
  CpuBuffer<int> din(in), dout(9);
  mod.run("k", Dim3(3), Dim3(100), din.get(), dout.get());
  auto out = dout.to_host();
  for (int b = 0; b < 3; ++b) {
    int c = 0, o = 0;
    for (int i = 0; i < 100; ++i) {
      c += in[b * 100 + i] > 0;
      o |= in[b * 100 + i] > 45;
    }
    EXPECT_EQ(out[3 * b], c);
    EXPECT_EQ(out[3 * b + 1], 1);
    EXPECT_EQ(out[3 * b + 2], o);
  }
}

TEST(CpuBarrier, ExitedThreadsDoNotBlockTheBarrier) {
  CpuModuleHandle mod(R"(
__global__ void k(int* out, int n) {
  __shared__ int s[256];
  int i = threadIdx.x;
  if (i >= n) return;
  s[i] = i * 3;
  __syncthreads();
  out[i] = s[n - 1 - i];
}
)");
  CpuBuffer<int> d(256);
  mod.run("k", Dim3(1), Dim3(256), d.get(), 200);
  auto r = d.to_host();
  for (int i = 0; i < 200; ++i) EXPECT_EQ(r[i], (199 - i) * 3);
}

TEST(CpuBarrier, BarrierNotReachedByAllThreadsIsAKernelFault) {
  CpuModuleHandle mod(R"(
__global__ void k(int* out) {
  if (threadIdx.x < 16) __syncthreads();
  else __syncwarp();
  out[threadIdx.x] = 1;
}
)");
  CpuBuffer<int> d(32);
  try {
    mod.run("k", Dim3(1), Dim3(32), d.get());
    FAIL() << "expected KernelFault";
  } catch (const KernelFault& e) {
    EXPECT_TRUE(contains(e.what(), "can never finish")) << e.what();
  }
}

const char* kCallsHeaderBarrier = R"(
#include "block_sync.h"
__global__ void k(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  block_sync();
  out[threadIdx.x] = s[63 - threadIdx.x];
}
)";
const char* kBlockSyncHeader = "__device__ inline void block_sync() { __syncthreads(); }\n";

TEST(CpuBarrier, BarrierInAnInMemoryHeaderTakesTheFiberPath) {
  CompileOptions options;
  options.headers = {{"block_sync.h", kBlockSyncHeader}};
  CpuModuleHandle mod(kCallsHeaderBarrier, options);
  CpuBuffer<int> d(64);
  mod.run("k", Dim3(1), Dim3(64), d.get());
  auto r = d.to_host();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(r[i], 63 - i);
}

TEST(CpuBarrier, BarrierInAHeaderFromIncludeDirsTakesTheFiberPath) {
  std::string dir = testing::TempDir() + "cudakit_cpu_disk_barrier";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/block_sync.h") << kBlockSyncHeader;
  CompileOptions options;
  options.include_dirs = {dir};
  CpuModuleHandle mod(kCallsHeaderBarrier, options);
  CpuBuffer<int> d(64);
  mod.run("k", Dim3(1), Dim3(64), d.get());
  auto r = d.to_host();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(r[i], 63 - i);
}

TEST(CpuBarrier, BarrierTheScannerCannotSeeIsAKernelFaultThatSaysSo) {
  // A header named through a macro is not followed by the scanner.
  std::string dir = testing::TempDir() + "cudakit_cpu_hidden_barrier";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/block_sync.h") << kBlockSyncHeader;
  CompileOptions options;
  options.include_dirs = {dir};
  options.defines = {{"SYNC_HEADER", "\"block_sync.h\""}};
  std::string source = kCallsHeaderBarrier;
  source.replace(source.find("\"block_sync.h\""), 14, "SYNC_HEADER");
  CpuModuleHandle mod(source, options);
  CpuBuffer<int> d(64);
  try {
    mod.run("k", Dim3(1), Dim3(64), d.get());
    FAIL() << "expected KernelFault";
  } catch (const KernelFault& e) {
    EXPECT_TRUE(contains(e.what(), "none was found in its source")) << e.what();
  }
}

TEST(CpuMemory, DynamicSharedMemoryIsSizedByTheLaunch) {
  CpuModuleHandle mod(R"(
__global__ void reverse(const int* in, int* out, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
  if (j < n) out[j] = s[t];
}
)");
  const int n = 1500, block = 300;
  auto in = random_ints<int>(n, -1000, 1000);
  CpuBuffer<int> din(in), dout(n);
  mod.launch_on("reverse", Dim3(5), Dim3(block), block * sizeof(int), nullptr, din.get(),
                dout.get(), n);
  cpu().synchronize_stream(nullptr);
  auto out = dout.to_host();
  for (int i = 0; i < n; ++i) {
    int start = i / block * block;
    EXPECT_EQ(out[i], in[start + (block - 1 - (i - start))]);  // each block reversed
  }
}

TEST(CpuMemory, NamespaceScopeDynamicSharedArrayWorks) {
  CpuModuleHandle mod(R"(
extern __shared__ float smem[];
__global__ void k(float* out) {
  smem[threadIdx.x] = threadIdx.x * 0.5f;
  __syncthreads();
  float* view = (float*)smem;
  out[threadIdx.x] = view[blockDim.x - 1 - threadIdx.x];
}
)");
  CpuBuffer<float> d(64);
  mod.launch_on("k", Dim3(1), Dim3(64), 64 * sizeof(float), nullptr, d.get());
  cpu().synchronize_stream(nullptr);
  auto r = d.to_host();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(r[i], (63 - i) * 0.5f);
}

TEST(CpuMemory, DynamicSharedBeyondTheLimitIsALaunchConfigError) {
  CpuModuleHandle mod("__global__ void k() { extern __shared__ char s[]; s[0] = 1; }");
  EXPECT_THROW(mod.launch_on("k", Dim3(1), Dim3(1), 64 * 1024, nullptr), LaunchConfigError);
  cpu().set_max_dynamic_shared_memory(mod.kernel("k"), 100 * 1024);
  mod.launch_on("k", Dim3(1), Dim3(1), 64 * 1024, nullptr);
  cpu().synchronize_stream(nullptr);
}

TEST(CpuLaunch, BlockOfMoreThan1024ThreadsIsALaunchConfigError) {
  CpuModuleHandle mod("__global__ void k() {}");
  EXPECT_THROW(mod.launch_on("k", Dim3(1), Dim3(32, 33), 0, nullptr), LaunchConfigError);
}

const char* kAtomics = R"(
__global__ void atomics(int* i, unsigned* u, unsigned long long* ull, float* f, double* d,
                        const int* in, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  int v = in[t];
  atomicAdd(&i[0], v);
  atomicSub(&i[1], v);
  atomicMin(&i[2], v);
  atomicMax(&i[3], v);
  atomicAnd(&u[0], (unsigned)v | 0xffff0000u);
  atomicOr(&u[1], 1u << (t % 32));
  atomicXor(&u[2], (unsigned)v);
  atomicInc(&u[3], 16u);
  atomicDec(&u[4], 16u);
  atomicAdd(&ull[0], (unsigned long long)(v + 1000));
  atomicAdd(&f[0], 0.5f);
  atomicAdd(&d[0], 0.25);
  atomicExch(&i[4], 42);
  int old = atomicCAS(&i[5], 0, t + 1);   // exactly one thread wins
  if (old == 0) atomicAdd(&i[6], 1);
}
__global__ void shared_histogram(const int* in, int* out, int n) {
  __shared__ int bins[8];
  if (threadIdx.x < 8) bins[threadIdx.x] = 0;
  __syncthreads();
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) atomicAdd(&bins[in[t] & 7], 1);
  __syncthreads();
  if (threadIdx.x < 8) atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);
}
)";

TEST(CpuAtomics, EveryKindMatchesASequentialReference) {
  const int n = 5000;
  auto in = random_ints<int>(n, -500, 500);
  CpuBuffer<int> di(std::vector<int>{0, 0, 1 << 30, -(1 << 30), 0, 0, 0});
  CpuBuffer<unsigned> du(std::vector<unsigned>{0xffffffffu, 0, 0, 0, 0});
  CpuBuffer<unsigned long long> dull(std::vector<unsigned long long>{0});
  CpuBuffer<float> df(std::vector<float>{0});
  CpuBuffer<double> dd(std::vector<double>{0});
  CpuBuffer<int> din(in);
  CpuModuleHandle mod(kAtomics);
  mod.run("atomics", Dim3((n + 127) / 128), Dim3(128), di.get(), du.get(), dull.get(), df.get(),
          dd.get(), din.get(), n);
  auto ri = di.to_host();
  auto ru = du.to_host();
  long long sum = 0;
  unsigned and_ref = 0xffffffffu, xor_ref = 0;
  unsigned long long ull_ref = 0;
  for (int v : in) {
    sum += v;
    and_ref &= unsigned(v) | 0xffff0000u;
    xor_ref ^= unsigned(v);
    ull_ref += static_cast<unsigned long long>(v + 1000);
  }
  EXPECT_EQ(ri[0], sum);
  EXPECT_EQ(ri[1], -sum);
  EXPECT_EQ(ri[2], *std::min_element(in.begin(), in.end()));
  EXPECT_EQ(ri[3], *std::max_element(in.begin(), in.end()));
  EXPECT_EQ(ri[4], 42);
  EXPECT_GE(ri[5], 1);
  EXPECT_EQ(ri[6], 1);
  EXPECT_EQ(ru[0], and_ref);
  EXPECT_EQ(ru[1], 0xffffffffu);
  EXPECT_EQ(ru[2], xor_ref);
  EXPECT_EQ(ru[3], unsigned(n % 17));              // wraps to 0 after 16
  EXPECT_EQ(ru[4], unsigned((17 - n % 17) % 17));  // 0 -> 16, then counts down
  EXPECT_EQ(dull.to_host()[0], ull_ref);
  EXPECT_EQ(df.to_host()[0], 0.5f * n);
  EXPECT_EQ(dd.to_host()[0], 0.25 * n);
}

TEST(CpuAtomics, SharedMemoryHistogramMatchesHost) {
  const int n = 7777;
  auto in = random_ints<int>(n, 0, 1000);
  CpuBuffer<int> din(in), dout(std::vector<int>(8, 0));
  CpuModuleHandle mod(kAtomics);
  mod.run("shared_histogram", Dim3((n + 255) / 256), Dim3(256), din.get(), dout.get(), n);
  std::vector<int> ref(8, 0);
  for (int v : in) ++ref[v & 7];
  EXPECT_EQ(dout.to_host(), ref);
}

TEST(CpuDevice, MathLibraryAndVectorTypes) {
  CpuModuleHandle mod(R"(
__global__ void k(const float* x, float* out) {
  int i = threadIdx.x;
  float s, c;
  sincosf(x[i], &s, &c);
  float4 v = make_float4(x[i], 2.0f, 3.0f, 4.0f);
  int2 p = make_int2(3, 4);
  out[5 * i + 0] = rsqrtf(fabsf(x[i]) + 1.0f);
  out[5 * i + 1] = __expf(x[i]) + __fdividef(1.0f, 4.0f);
  out[5 * i + 2] = s * s + c * c;
  out[5 * i + 3] = v.x + v.w + p.x * p.y + __saturatef(x[i] * 10.0f);
  out[5 * i + 4] = fmaf(x[i], 2.0f, 1.0f) + min(i, 3) + max(x[i], 0.0f) + __popc(0xf0u);
}
)");
  auto x = random_floats(40);
  CpuBuffer<float> dx(x), dout(200);
  mod.run("k", Dim3(1), Dim3(40), dx.get(), dout.get());
  auto r = dout.to_host();
  for (int i = 0; i < 40; ++i) {
    float sat = std::min(1.0f, std::max(0.0f, x[i] * 10.0f));
    EXPECT_NEAR(r[5 * i + 0], 1.0f / std::sqrt(std::fabs(x[i]) + 1.0f), 1e-6f);
    EXPECT_NEAR(r[5 * i + 1], std::exp(x[i]) + 0.25f, 1e-5f);
    EXPECT_NEAR(r[5 * i + 2], 1.0f, 1e-6f);
    EXPECT_NEAR(r[5 * i + 3], x[i] + 4.0f + 12.0f + sat, 1e-6f);
    EXPECT_NEAR(r[5 * i + 4], x[i] * 2.0f + 1.0f + std::min(i, 3) + std::max(x[i], 0.0f) + 4.0f,
                1e-5f);
  }
}

TEST(CpuDevice, PrintfOutputAppearsByTheTimeTheStreamSynchronizes) {
  CpuModuleHandle mod(R"(
__global__ void hello(int tag) {
  if (threadIdx.x == 3) printf("hello from thread %d of block %d, tag %d\n", threadIdx.x, blockIdx.x, tag);
}
)");
  testing::internal::CaptureStdout();
  mod.run("hello", Dim3(2), Dim3(8), 1234);
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(contains(out, "hello from thread 3 of block 0, tag 1234")) << out;
  EXPECT_TRUE(contains(out, "hello from thread 3 of block 1, tag 1234")) << out;
}

TEST(CpuDevice, TrapIsAKernelFault) {
  CpuModuleHandle mod("__global__ void k(int n) { if (threadIdx.x == n) __trap(); }");
  EXPECT_THROW(mod.run("k", Dim3(4), Dim3(32), 5), KernelFault);
}

}  // namespace
}  // namespace cudakit::test
