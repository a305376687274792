// A fault inside a CPU-backend kernel (null or wild pointer, failed assert,
// __trap) is a KernelFault naming the kernel, block and thread, and the next
// launch works. Integer division by zero and INT_MIN / -1 do not fault, as
// on a GPU. Kernels defined in included headers are found.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cpu_test_util.hpp"
#include "cudakit/error.hpp"

namespace cudakit::test {
namespace {

const char* kFaulty = R"(__global__ void store_at(int* p, int bad_block, int bad_thread) {
  if (blockIdx.x == bad_block && threadIdx.x == bad_thread) p[0] = 7;
}
__global__ void check_positive(const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(x[i] > 0.0f);
}
__global__ void store_at_sync(int* p, int bad_thread) {
  __shared__ int tile[64];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == bad_thread) p[0] = tile[63 - threadIdx.x];
}
__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}
__global__ void divide(const int* a, const int* b, int* q, int* r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
  }
}
__global__ void divide64(const long long* a, const long long* b, long long* q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = a[i] / b[i];
}
)";

KernelFault launch_expecting_fault(const std::function<void()>& launch) {
  try {
    launch();
    cpu().synchronize_stream(nullptr);
  } catch (const KernelFault& e) {
    return e;
  }
  ADD_FAILURE() << "expected a KernelFault";
  return KernelFault("", "", {}, "");
}

// The module still works: a correct kernel gives the right answer.
void expect_next_launch_works(CpuModuleHandle& m) {
  std::vector<int> host = random_ints<int>(300, -1000, 1000);
  CpuBuffer<int> p(host);
  m.run("add_one", Dim3(3), Dim3(128), p.get(), 300);
  std::vector<int> out = p.to_host();
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(out[i], host[i] + 1) << i;
}

TEST(CpuFault, NullDereferenceNamesKernelBlockAndThread) {
  CpuModuleHandle m(kFaulty);
  KernelFault e = launch_expecting_fault([&] {
    m.launch_on("store_at", Dim3(3), Dim3(64), 0, nullptr, static_cast<int*>(nullptr), 1, 5);
  });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "store_at")) << what;
  EXPECT_TRUE(contains(what, "null pointer")) << what;
  EXPECT_TRUE(contains(what, "block (1,0,0)")) << what;
  EXPECT_TRUE(contains(what, "thread (5,0,0)")) << what;
  ASSERT_FALSE(e.kernels().empty());
  EXPECT_EQ(e.kernels()[0], "store_at");
  expect_next_launch_works(m);
}

TEST(CpuFault, WildPointerInAKernelWithBarriers) {
  CpuModuleHandle m(kFaulty);
  int* wild = reinterpret_cast<int*>(std::uintptr_t{0x10} << 40);
  KernelFault e = launch_expecting_fault(
      [&] { m.launch_on("store_at_sync", Dim3(2), Dim3(64), 0, nullptr, wild, 9); });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "store_at_sync")) << what;
  EXPECT_TRUE(contains(what, "invalid address")) << what;
  EXPECT_TRUE(contains(what, "thread (9,0,0)")) << what;
  expect_next_launch_works(m);
  // And the same kernel again, with a good pointer.
  CpuBuffer<int> one(std::vector<int>{-1});
  m.run("store_at_sync", Dim3(1), Dim3(64), one.get(), 9);
  EXPECT_EQ(one.to_host()[0], 63 - 9);
}

TEST(CpuFault, FailedAssertNamesExpressionBlockAndThread) {
  CpuModuleHandle m(kFaulty);
  const int n = 200;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = 0.5f + static_cast<float>(i);
  x[130] = -2.0f;  // block 1, thread 2 with blocks of 64
  CpuBuffer<float> dx(x);
  KernelFault e = launch_expecting_fault(
      [&] { m.launch_on("check_positive", Dim3(4), Dim3(64), 0, nullptr, dx.get(), n); });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "check_positive")) << what;
  EXPECT_TRUE(contains(what, "assertion 'x[i] > 0.0f' failed")) << what;
  EXPECT_TRUE(contains(what, ":6")) << what;
  EXPECT_TRUE(contains(what, "block (2,0,0), thread (2,0,0)")) << what;
  expect_next_launch_works(m);
}

TEST(CpuFault, IntegerDivisionDoesNotTrapAndGivesTheGpuValues) {
  CpuModuleHandle m(kFaulty);
  const int n = 133;
  std::vector<int> a = random_ints<int>(n, -100000, 100000);
  std::vector<int> b = random_ints<int>(n, 1, 1000);
  b[3] = 0;
  b[70] = 0;
  a[71] = INT_MIN;
  b[71] = -1;
  CpuBuffer<int> da(a), db(b), dq(n), dr(n);
  m.run("divide", Dim3(3), Dim3(64), da.get(), db.get(), dq.get(), dr.get(), n);
  std::vector<int> q = dq.to_host(), r = dr.to_host();
  for (int i = 0; i < n; ++i) {
    if (b[i] == 0) {
      EXPECT_EQ(q[i], -1) << i;  // all bits set
      EXPECT_EQ(r[i], a[i]) << i;
    } else if (a[i] == INT_MIN && b[i] == -1) {
      EXPECT_EQ(q[i], INT_MIN) << i;
      EXPECT_EQ(r[i], 0) << i;
    } else {
      EXPECT_EQ(q[i], a[i] / b[i]) << i;
      EXPECT_EQ(r[i], a[i] % b[i]) << i;
    }
  }
  std::vector<long long> a64 = {LLONG_MIN, 5, 123456789012345LL};
  std::vector<long long> b64 = {-1, 0, 7};
  CpuBuffer<long long> ea(a64), eb(b64), eq(3);
  m.run("divide64", Dim3(1), Dim3(32), ea.get(), eb.get(), eq.get(), 3);
  std::vector<long long> q64 = eq.to_host();
  EXPECT_EQ(q64[0], LLONG_MIN);
  EXPECT_EQ(q64[1], -1);
  EXPECT_EQ(q64[2], 123456789012345LL / 7);
}

TEST(CpuHeaders, KernelsDefinedInIncludedHeadersAreFound) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("cudakit_hdr_" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "disk_kernels.cuh") << "#include \"sub/more.cuh\"\n"
                                             "__global__ void from_disk(int* p) { p[0] = 11; }\n";
  std::ofstream(dir / "sub" / "more.cuh") << "__global__ void from_nested(int* p) { p[0] = 12; }\n";
  for (bool use_flag : {false, true}) {
    CompileOptions options;
    if (use_flag)
      options.extra_flags.push_back("-I" + dir.string());
    else
      options.include_dirs.push_back(dir.string());
    options.headers.push_back(
        {"mem_kernels.cuh", "__global__ void from_memory(int* p) { p[0] = 13; }\n"});
    CpuModuleHandle m(
        "#include \"disk_kernels.cuh\"\n#include <mem_kernels.cuh>\n"
        "__global__ void from_source(int* p) { p[0] = 14; }\n",
        options);
    int expected = 11;
    for (const char* name : {"from_disk", "from_nested", "from_memory", "from_source"}) {
      CpuBuffer<int> p(std::vector<int>{0});
      m.run(name, Dim3(1), Dim3(1), p.get());
      EXPECT_EQ(p.to_host()[0], expected++) << name;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cudakit::test
