// The core API end to end on a real backend: registered once per backend
// (tests/backend_fixture.hpp): on the CPU (runs everywhere) and on a GPU
// (label gpu; skips where there is none). The same checks, so both backends
// behave alike.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "backend_fixture.hpp"
#include "cudakit/cudakit.hpp"

namespace cudakit {

namespace {

constexpr const char* kVecAdd = R"(
__global__ void vec_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-100.f, 100.f);
  std::vector<float> out(n);
  for (auto& v : out) v = dist(rng);
  return out;
}

class CoreOnBackend : public test::OnBackend {
 protected:
  Module build(std::string_view source, CompileOptions options = {}) {
    return compile(source, options, device());
  }
};

TEST_F(CoreOnBackend, VecAddWithDeviceBuffers) {
  const std::size_t n = 1000003;
  auto a = random_floats(n, 1), b = random_floats(n, 2);
  auto vec_add = build(kVecAdd).kernel("vec_add");
  DeviceBuffer<float> da(device(), n), db(device(), n), dc(device(), n);
  da.copy_from(a);
  db.copy_from(b);
  vec_add.launch(grid_for(n, 256), da, db, dc, static_cast<int>(n));
  auto c = dc.to_host();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
}

TEST_F(CoreOnBackend, VecAddWithInAndOut) {
  const std::size_t n = 1000003;
  auto a = random_floats(n, 3), b = random_floats(n, 4);
  std::vector<float> c(n, -1.f);
  auto vec_add = build(kVecAdd).kernel("vec_add");
  vec_add.launch(grid_for(n, 256), In(a), In(b), Out(c), static_cast<int>(n));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
}

TEST_F(CoreOnBackend, InOutIsCopiedBothWays) {
  const std::size_t n = 4099;
  auto x = random_floats(n, 5);
  auto expected = x;
  for (auto& v : expected) v *= 2.f;
  auto twice = build(R"(
    __global__ void twice(float* x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] *= 2.0f;
    })")
                   .kernel("twice");
  twice.launch(grid_for(n, 128), InOut(x), static_cast<int>(n));
  EXPECT_EQ(x, expected);
}

TEST_F(CoreOnBackend, LayoutKnowsPointersAndScalarTypes) {
  auto vec_add = build(kVecAdd).kernel("vec_add");
  const auto& p = vec_add.params().params;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].kind, ParamKind::pointer);
  EXPECT_EQ(p[2].kind, ParamKind::pointer);
  EXPECT_EQ(p[3].kind, ParamKind::scalar);
  EXPECT_EQ(p[3].scalar, ScalarType::i32);
  EXPECT_EQ(p[3].name, "n");
}

TEST_F(CoreOnBackend, TemplatedKernelByNameExpression) {
  CompileOptions options;
  options.no_extern_c = true;
  options.name_expressions = {"axpy<float>", "axpy<double>"};
  auto module = build(R"(
    template <typename T>
    __global__ void axpy(T a, const T* x, T* y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] = a * x[i] + y[i];
    })",
                      options);
  const std::size_t n = 10007;
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> x(n), y(n);
  for (auto& v : x) v = dist(rng);
  for (auto& v : y) v = dist(rng);
  std::vector<double> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = 2.5 * x[i] + y[i];
  auto axpy = module.kernel("axpy<double>");
  EXPECT_EQ(axpy.params().params[0].scalar, ScalarType::f64);
  axpy.launch(grid_for(n, 256), 2.5, In(x), InOut(y), static_cast<int>(n));
  for (std::size_t i = 0; i < n; ++i) ASSERT_NEAR(y[i], expected[i], 1e-12) << "at " << i;
  EXPECT_THROW(module.kernel("axpy<float>")
                   .launch(grid_for(n, 256), 2.5, In(x), InOut(y), static_cast<int>(n)),
               ArgumentError);
}

TEST_F(CoreOnBackend, PlainNameOfACppKernel) {
  CompileOptions options;
  options.no_extern_c = true;
  auto vec_add = build(kVecAdd, options).kernel("vec_add");
  EXPECT_NE(vec_add.symbol(), "vec_add");  // mangled: C++ linkage
  const std::size_t n = 3001;
  auto a = random_floats(n, 7), b = random_floats(n, 8);
  std::vector<float> c(n);
  vec_add.launch(grid_for(n, 128), In(a), In(b), Out(c), static_cast<int>(n));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
}

TEST_F(CoreOnBackend, GlobalVariableSetFromTheHost) {
  auto module = build(R"(
    __device__ float factor;
    __global__ void scale(float* x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] *= factor;
    })");
  auto factor = module.get_global("factor");
  EXPECT_EQ(factor.bytes, sizeof(float));
  const float value = 3.25f;
  factor.copy_from_host(&value, sizeof value);
  float back = 0;
  factor.copy_to_host(&back, sizeof back);
  EXPECT_EQ(back, value);
  const std::size_t n = 777;
  auto x = random_floats(n, 9);
  auto expected = x;
  for (auto& v : expected) v *= value;
  module.kernel("scale").launch(grid_for(n, 64), InOut(x), static_cast<int>(n));
  EXPECT_EQ(x, expected);
  EXPECT_THROW(module.get_global("no_such_global"), Error);
}

TEST_F(CoreOnBackend, StreamsAndEventsOrderWork) {
  const std::size_t n = 200003;
  auto a = random_floats(n, 10), b = random_floats(n, 11);
  auto vec_add = build(kVecAdd).kernel("vec_add");
  Stream s1 = device().create_stream(), s2 = device().create_stream();
  PinnedBuffer<float> ha(n), hb(n), hc(n);
  std::copy(a.begin(), a.end(), ha.begin());
  std::copy(b.begin(), b.end(), hb.begin());
  DeviceBuffer<float> da(device(), n), db(device(), n), dc(device(), n);
  Event start(device());
  start.record(s1);
  da.copy_from_async(ha, s1);
  db.copy_from_async(hb, s1);
  vec_add.launch(grid_for(n, 256, s1), da, db, dc, static_cast<int>(n));
  Event done = s1.record();
  s2.wait(done);
  dc.copy_to_async(hc, s2);
  Event stop = s2.record();
  stop.synchronize();
  EXPECT_TRUE(stop.query());
  EXPECT_TRUE(s2.query());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hc[i], a[i] + b[i]) << "at " << i;
  EXPECT_GE(elapsed_ms(start, done), 0.f);
}

TEST_F(CoreOnBackend, LaunchTimedMeasuresTheKernel) {
  const std::size_t n = 100000;
  DeviceBuffer<float> x(device(), n), y(device(), n), z(device(), n);
  x.zero();
  y.zero();
  float ms =
      build(kVecAdd).kernel("vec_add").launch_timed(grid_for(n), x, y, z, static_cast<int>(n));
  EXPECT_GE(ms, 0.f);
}

TEST_F(CoreOnBackend, TenTerabytesIsOutOfMemory) {
  try {
    DeviceBuffer<char> huge(device(), std::size_t(10) << 40);
    FAIL() << "expected OutOfMemory";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.requested(), std::size_t(10) << 40);
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST_F(CoreOnBackend, CompileErrorShowsTheLogAndTheNumberedLine) {
  CompileOptions options;
  options.use_cache = false;
  try {
    build("__global__ void broken(float* x) {\n  int i = 0;\n  oops;\n}\n", options);
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    std::string what = e.what();
    EXPECT_FALSE(e.log().empty());
    EXPECT_NE(e.log().find("oops"), std::string::npos) << e.log();
    EXPECT_NE(what.find(e.log()), std::string::npos) << what;
    EXPECT_NE(what.find(">>3 |   oops;"), std::string::npos) << what;
  }
}

TEST_F(CoreOnBackend, SecondCompileOfTheSameSourceIsTheSameModule) {
  if (!CompileCache::global().enabled())
    GTEST_SKIP() << "the compile cache is disabled (CUDAKIT_CACHE=0)";
  auto a = build(kVecAdd), b = build(kVecAdd);
  EXPECT_EQ(a.native(), b.native());
}

TEST_F(CoreOnBackend, WrongScalarTypeIsRejectedBeforeLaunch) {
  auto vec_add = build(kVecAdd).kernel("vec_add");
  DeviceBuffer<float> x(device(), 16);
  EXPECT_THROW(vec_add.launch(grid_for(16), x, x, x, 16.0), ArgumentError);
  EXPECT_THROW(vec_add.launch(grid_for(16), x, x, x), ArgumentError);
  EXPECT_THROW(vec_add.launch(grid_for(16), x, 0, x, 16), ArgumentError);
}

TEST_F(CoreOnBackend, BlockOf2048ThreadsIsAConfigError) {
  auto vec_add = build(kVecAdd).kernel("vec_add");
  DeviceBuffer<float> x(device(), 16);
  EXPECT_THROW(vec_add.launch(LaunchConfig{Dim3(1), Dim3(2048)}, x, x, x, 16), LaunchConfigError);
  EXPECT_THROW(vec_add.launch(LaunchConfig{Dim3(1), Dim3(64), 1u << 20}, x, x, x, 16),
               LaunchConfigError);
}

TEST_F(CoreOnBackend, DeviceDescribesItself) {
  EXPECT_FALSE(device().name().empty());
  EXPECT_GT(device().properties().max_threads_per_block, 0);
  EXPECT_NE(device().describe().find(device().name()), std::string::npos);
  EXPECT_GT(device().memory_info().total, 0u);
}

}  // namespace
}  // namespace cudakit
