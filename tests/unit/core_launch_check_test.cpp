// Every launch is checked against the device's limits and the kernel's
// parameters before it reaches the backend.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>

#include "cudakit/error.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/memory_pool.hpp"
#include "unit/core_fake_module.hpp"

namespace cudakit {
namespace {

using testing::aggregate_param;
using testing::fake;
using testing::FakeKernelSpec;
using testing::FakeModuleSpec;
using testing::load_fake_module;
using testing::make_layout;
using testing::pointer_param;
using testing::scalar_param;

constexpr const char* kSource = R"(
__global__ void vec_add(const float* a, const float* b, float* c, int n) {}
__global__ void scale(double* x, double factor, long long n) {}
__global__ void with_struct(Params p, float* out) {}
__global__ void narrow(float f, unsigned u, short s) {}
)";

// c[i] = a[i] + b[i] over every thread of the grid, as the CUDA kernel would.
void vec_add_body(void** args, Dim3 grid, Dim3 block) {
  const float* a;
  const float* b;
  float* c;
  int n;
  std::memcpy(&a, args[0], 8);
  std::memcpy(&b, args[1], 8);
  std::memcpy(&c, args[2], 8);
  std::memcpy(&n, args[3], 4);
  std::size_t threads = grid.volume() * block.volume();
  for (std::size_t i = 0; i < threads && i < static_cast<std::size_t>(n); ++i) c[i] = a[i] + b[i];
}

class LaunchCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    fake().reset();
    FakeModuleSpec spec;
    spec.kernels.push_back({"vec_add",
                            make_layout({pointer_param(), pointer_param(), pointer_param(),
                                         scalar_param(ScalarType::unknown, 4)}),
                            {32, 0, 0, 0, 1024, 0, 0, 0},
                            vec_add_body});
    spec.kernels.push_back({"scale",
                            make_layout({pointer_param(), scalar_param(ScalarType::unknown, 8),
                                         scalar_param(ScalarType::unknown, 8)}),
                            {32, 1024, 0, 0, 1024, 0, 0, 0},
                            {}});
    spec.kernels.push_back({"with_struct",
                            make_layout({aggregate_param(12, 4), pointer_param()}),
                            {32, 0, 0, 0, 1024, 0, 0, 0},
                            {}});
    spec.kernels.push_back(
        {"narrow",
         make_layout({scalar_param(ScalarType::unknown, 4), scalar_param(ScalarType::unknown, 4),
                      scalar_param(ScalarType::unknown, 2)}),
         {32, 0, 0, 0, 256, 0, 0, 0},
         {}});
    module_.emplace(load_fake_module(std::move(spec), kSource));
  }
  Kernel kernel(const char* name) { return module_->kernel(name); }
  const testing::FakeLaunch& last() { return fake().launches.back(); }

  std::optional<Module> module_;
};

template <class T>
T arg_as(const testing::FakeLaunch& launch, std::size_t i) {
  T value;
  EXPECT_EQ(launch.args[i].size(), sizeof(T));
  std::memcpy(&value, launch.args[i].data(), sizeof(T));
  return value;
}

TEST_F(LaunchCheck, LayoutTypesComeFromTheSource) {
  auto k = kernel("scale");
  ASSERT_EQ(k.params().params.size(), 3u);
  EXPECT_EQ(k.params().params[1].scalar, ScalarType::f64);
  EXPECT_EQ(k.params().params[2].scalar, ScalarType::i64);
  EXPECT_EQ(k.params().signature(), "(double * x, double factor, long long n)");
}

TEST_F(LaunchCheck, VecAddWithBuffersComputesTheSum) {
  const std::size_t n = 1000003;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-10.f, 10.f);
  std::vector<float> a(n), b(n), c(n);
  for (auto& v : a) v = dist(rng);
  for (auto& v : b) v = dist(rng);
  auto da = to_device(a), db = to_device(b);
  DeviceBuffer<float> dc(n);
  kernel("vec_add").launch(grid_for(n, 256), da, db, dc, static_cast<int>(n));
  dc.copy_to(c);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST_F(LaunchCheck, VecAddWithInOutStagesTheHostData) {
  const std::size_t n = 1000003;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-10.f, 10.f);
  std::vector<float> a(n), b(n), c(n, 0.f);
  for (auto& v : a) v = dist(rng);
  for (auto& v : b) v = dist(rng);
  const auto active_before = MemoryPool::of(Device::get(0)).stats().active_bytes;
  kernel("vec_add").launch(grid_for(n, 256), In(a), In(b), Out(c), static_cast<int>(n));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  EXPECT_EQ(MemoryPool::of(Device::get(0)).stats().active_bytes, active_before);
}

TEST_F(LaunchCheck, BlockOf2048ThreadsIsAConfigError) {
  DeviceBuffer<float> x(10);
  LaunchConfig config{Dim3(1), Dim3(2048)};
  try {
    kernel("vec_add").launch(config, x, x, x, 10);
    FAIL() << "expected LaunchConfigError";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.limit(), "max threads per block");
    EXPECT_EQ(e.requested(), 2048);
    EXPECT_EQ(e.device_value(), 1024);
    EXPECT_NE(e.hint().find("grid_for"), std::string::npos);
  }
  EXPECT_TRUE(fake().launches.empty());
}

TEST_F(LaunchCheck, KernelThreadLimitBelowTheDevicesIsChecked) {
  LaunchConfig config{Dim3(1), Dim3(512)};
  try {
    kernel("narrow").launch(config, 1.f, 2u, short(3));
    FAIL() << "expected LaunchConfigError";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.limit(), "max threads per block for this kernel");
    EXPECT_EQ(e.device_value(), 256);
  }
}

TEST_F(LaunchCheck, OneMegabyteOfSharedMemoryIsAConfigError) {
  DeviceBuffer<float> x(10);
  LaunchConfig config{Dim3(1), Dim3(128), 1 << 20};
  try {
    kernel("vec_add").launch(config, x, x, x, 10);
    FAIL() << "expected LaunchConfigError";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.limit(), "shared memory per block (static + dynamic)");
    EXPECT_EQ(e.requested(), 1 << 20);
    EXPECT_EQ(e.device_value(), 48 * 1024);
    EXPECT_NE(e.hint().find("even with an opt-in"), std::string::npos) << e.what();
  }
}

TEST_F(LaunchCheck, StaticSharedMemoryCountsTowardsTheLimit) {
  DeviceBuffer<double> x(4);
  LaunchConfig config{Dim3(1), Dim3(32), 48 * 1024 - 512};  // scale uses 1024 B statically
  try {
    kernel("scale").launch(config, x, 2.0, 4LL);
    FAIL() << "expected LaunchConfigError";
  } catch (const LaunchConfigError& e) {
    EXPECT_EQ(e.requested(), 48 * 1024 - 512 + 1024);
    EXPECT_NE(e.hint().find("set_max_dynamic_shared_memory"), std::string::npos) << e.what();
  }
}

TEST_F(LaunchCheck, OptInRaisesTheSharedMemoryLimit) {
  DeviceBuffer<float> x(10);
  auto k = kernel("vec_add");
  k.set_max_dynamic_shared_memory(100 * 1024);
  ASSERT_EQ(fake().max_dynamic_shared_calls.size(), 1u);
  k.launch(LaunchConfig{Dim3(1), Dim3(128), 100 * 1024}, x, x, x, 10);
  EXPECT_EQ(last().shared, 100u * 1024);
  EXPECT_THROW(k.launch(LaunchConfig{Dim3(1), Dim3(128), 101 * 1024}, x, x, x, 10),
               LaunchConfigError);
}

TEST_F(LaunchCheck, OptInBeyondTheDeviceIsAConfigError) {
  EXPECT_THROW(kernel("vec_add").set_max_dynamic_shared_memory(228 * 1024), LaunchConfigError);
  EXPECT_TRUE(fake().max_dynamic_shared_calls.empty());
}

TEST_F(LaunchCheck, ZeroSizedGridOrBlockIsAConfigError) {
  DeviceBuffer<float> x(10);
  EXPECT_THROW(kernel("vec_add").launch(LaunchConfig{Dim3(0), Dim3(32)}, x, x, x, 10),
               LaunchConfigError);
  EXPECT_THROW(kernel("vec_add").launch(LaunchConfig{Dim3(1), Dim3(32, 0)}, x, x, x, 10),
               LaunchConfigError);
}

TEST_F(LaunchCheck, BlockAndGridDimensionsAreChecked) {
  DeviceBuffer<float> x(10);
  EXPECT_THROW(kernel("vec_add").launch(LaunchConfig{Dim3(1), Dim3(1, 1, 65)}, x, x, x, 10),
               LaunchConfigError);
  EXPECT_THROW(kernel("vec_add").launch(LaunchConfig{Dim3(1, 65536), Dim3(32)}, x, x, x, 10),
               LaunchConfigError);
}

TEST_F(LaunchCheck, WrongArgumentCountNamesExpectedAndGiven) {
  DeviceBuffer<float> x(10);
  try {
    kernel("vec_add").launch(grid_for(10), x, x, x);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("expected 4 arguments, got 3"), std::string::npos) << what;
    EXPECT_NE(what.find("(const float * a, const float * b, float * c, int n)"), std::string::npos)
        << what;
  }
}

TEST_F(LaunchCheck, FloatForADoubleIsWidened) {
  DeviceBuffer<double> x(4);
  kernel("scale").launch(grid_for(4), x, 1.5f, 4LL);
  EXPECT_EQ(arg_as<double>(last(), 1), 1.5);
}

TEST_F(LaunchCheck, DoubleForAFloatIsAnErrorWithAHint) {
  try {
    kernel("narrow").launch(grid_for(1), 1.0, 2u, short(3));
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("parameter 0 'f' (float)"), std::string::npos) << what;
    EXPECT_NE(what.find("passed a double"), std::string::npos) << what;
    EXPECT_NE(e.hint().find("1.0f"), std::string::npos) << e.hint();
  }
}

TEST_F(LaunchCheck, IntForAPointerIsAnError) {
  DeviceBuffer<float> x(10);
  try {
    kernel("vec_add").launch(grid_for(10), x, 0, x, 10);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("parameter 1 'b' (const float *)"), std::string::npos) << what;
    EXPECT_NE(e.hint().find("DeviceBuffer"), std::string::npos);
  }
}

TEST_F(LaunchCheck, BufferForAScalarIsAnError) {
  DeviceBuffer<float> x(10);
  EXPECT_THROW(kernel("vec_add").launch(grid_for(10), x, x, x, x), ArgumentError);
}

TEST_F(LaunchCheck, IntIsWidenedToLongLong) {
  DeviceBuffer<double> x(4);
  kernel("scale").launch(grid_for(4), x, 2.0, -7);
  EXPECT_EQ(arg_as<long long>(last(), 2), -7);
}

TEST_F(LaunchCheck, UnsignedIsWidenedWithoutSignExtension) {
  DeviceBuffer<double> x(4);
  kernel("scale").launch(grid_for(4), x, 2.0, 0xFFFFFFFFu);
  EXPECT_EQ(arg_as<long long>(last(), 2), 0xFFFFFFFFLL);
}

TEST_F(LaunchCheck, SameSizeSignednessIsAccepted) {
  kernel("narrow").launch(grid_for(1), 1.f, 5, short(3));
  EXPECT_EQ(arg_as<unsigned>(last(), 1), 5u);
}

// A value that changes when it is reinterpreted is refused, not wrapped:
// -1 for an unsigned parameter would arrive as 4294967295.
TEST_F(LaunchCheck, NegativeValueForAnUnsignedParameterIsAnError) {
  try {
    kernel("narrow").launch(grid_for(1), 1.f, -1, short(3));
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(e.hint().find("negative value for an unsigned parameter"), std::string::npos)
        << e.hint();
  }
  EXPECT_THROW(
      kernel("scale").launch(grid_for(4), DeviceBuffer<double>(4), 2.0, 0xFFFFFFFFFFFFFFFFull),
      ArgumentError);  // past long long's maximum
}

TEST_F(LaunchCheck, NarrowingAnIntegerIsAnError) {
  DeviceBuffer<float> x(10);
  std::size_t n = 10;
  try {
    kernel("vec_add").launch(grid_for(10), x, x, x, n);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(e.hint().find("static_cast<int>"), std::string::npos) << e.hint();
  }
  EXPECT_THROW(kernel("narrow").launch(grid_for(1), 1.f, 2u, 3), ArgumentError);
}

TEST_F(LaunchCheck, IntForAFloatIsAnError) {
  EXPECT_THROW(kernel("narrow").launch(grid_for(1), 1, 2u, short(3)), ArgumentError);
}

TEST_F(LaunchCheck, FloatForAnIntIsAnError) {
  DeviceBuffer<float> x(10);
  EXPECT_THROW(kernel("vec_add").launch(grid_for(10), x, x, x, 10.f), ArgumentError);
}

struct Params12 {
  float a, b;
  int c;
};
struct Params16 {
  float a, b;
  int c, d;
};

TEST_F(LaunchCheck, StructOfTheDeclaredSizeIsPassedByValue) {
  DeviceBuffer<float> out(1);
  kernel("with_struct").launch(grid_for(1), Params12{1.f, 2.f, 3}, out);
  EXPECT_EQ(arg_as<Params12>(last(), 0).c, 3);
}

TEST_F(LaunchCheck, StructSizeMismatchIsAnError) {
  DeviceBuffer<float> out(1);
  try {
    kernel("with_struct").launch(grid_for(1), Params16{1.f, 2.f, 3, 4}, out);
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("parameter 0 'p' (Params)"), std::string::npos) << what;
    EXPECT_NE(what.find("16-byte struct"), std::string::npos) << what;
    EXPECT_NE(e.hint().find("12 bytes"), std::string::npos) << e.hint();
  }
}

TEST_F(LaunchCheck, LaunchTimedReturnsTheEventInterval) {
  DeviceBuffer<float> x(10);
  float ms = kernel("vec_add").launch_timed(grid_for(10), x, x, x, 10);
  EXPECT_GE(ms, 0.f);
  EXPECT_EQ(fake().launches.size(), 1u);
}

TEST_F(LaunchCheck, LaunchUsesTheConfigsStream) {
  DeviceBuffer<float> x(10);
  Stream s = Device::get(0).create_stream();
  kernel("vec_add").launch(grid_for(10, 256, s), x, x, x, 10);
  EXPECT_EQ(last().stream, s.native());
  EXPECT_EQ(last().grid, Dim3(1));
  EXPECT_EQ(last().block, Dim3(256));
}

TEST(PointerOrU64, AcceptsPointersAndSixtyFourBitIntegers) {
  fake().reset();
  Param p;
  p.kind = ParamKind::pointer_or_u64;
  p.size = 8;
  p.align = 8;
  FakeModuleSpec spec;
  spec.kernels.push_back({"k", make_layout({p}), {32, 0, 0, 0, 1024, 0, 0, 0}, {}});
  auto module = load_fake_module(std::move(spec));
  auto k = module.kernel("k");
  DeviceBuffer<float> x(4);
  k.launch(grid_for(1), x);
  k.launch(grid_for(1), std::uint64_t(12));
  EXPECT_THROW(k.launch(grid_for(1), 12), ArgumentError);
  EXPECT_THROW(k.launch(grid_for(1), 1.0), ArgumentError);
  // An 8-byte struct (a float2 by value: a cubin's layout has sizes only).
  struct Float2 {
    float x, y;
  };
  k.launch(grid_for(1), Float2{1.5f, 2.5f});
  struct Float3 {
    float x, y, z;
  };
  EXPECT_THROW(k.launch(grid_for(1), Float3{1, 2, 3}), ArgumentError);
}

}  // namespace
}  // namespace cudakit
