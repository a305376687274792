// ReductionKernel (PyCUDA's semantics) on the CPU backend.
#include <gtest/gtest.h>

#include "cudakit/error.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "unit/array_reduce_test_util.hpp"

namespace {

using namespace cudakit;
using namespace cudakit_test;

class ArrayReductionKernel : public ::testing::Test {
 protected:
  Device device = Device::get(BackendKind::cpu, 0);
  DeviceScope scope{device};
  Stream stream = device.default_stream();
  std::uint32_t seed = fresh_seed();

  template <class T>
  Array upload(const std::vector<T>& host, const Shape& shape) {
    return from_host(host.data(), shape, dtype_of<T>(), stream);
  }
};

TEST_F(ArrayReductionKernel, DotProductMatchesReference) {
  ReductionKernel dot(DType::float64, "0", "a + b", "x[i] * y[i]",
                      "const double* x, const double* y");
  const auto x = random_values<double>(100003, -1.0, 1.0, seed),
             y = random_values<double>(100003, -1.0, 1.0, seed + 1);
  double want = 0;
  for (std::size_t k = 0; k < x.size(); ++k) want += x[k] * y[k];
  const Array r = dot(upload(x, {100003}), upload(y, {100003}));
  EXPECT_EQ(r.ndim(), 0);
  EXPECT_NEAR(r.item().as_double(), want, 1e-9);
}

TEST_F(ArrayReductionKernel, ScalarArgumentsReachTheMap) {
  ReductionKernel scaled_max(DType::float32, "-1e30f", "a > b ? a : b", "x[i] * scale + shift",
                             "const float* x, float scale, int shift");
  const auto x = random_values<float>(5001, -3.0, 3.0, seed);
  float want = -1e30f;
  for (float v : x) want = std::max(want, v * 2.5f + 4);
  EXPECT_FLOAT_EQ(scaled_max(upload(x, {5001}), 2.5, 4).item().as_double(), want);
}

TEST_F(ArrayReductionKernel, PreambleFunctionsCanBeUsed) {
  ReductionKernel count(DType::int64, "0", "a + b", "is_big(x[i]) ? 1 : 0", "const int* x",
                        "count_big", "__device__ bool is_big(int v) { return v > 500; }");
  const auto x = random_values<std::int32_t>(7777, 1.0, 1000.0, seed);
  EXPECT_EQ(count(upload(x, {7777})).item().as_int64(),
            std::count_if(x.begin(), x.end(), [](int v) { return v > 500; }));
}

TEST_F(ArrayReductionKernel, WrongArgumentCountIsAnError) {
  ReductionKernel k(DType::float32, "0", "a + b", "x[i]", "const float* x");
  const Array a = upload(random_values<float>(8, 0.0, 1.0, seed), {8});
  EXPECT_THROW(k(a, a), ArgumentError);
}

TEST_F(ArrayReductionKernel, WrongArrayDtypeIsAnError) {
  ReductionKernel k(DType::float32, "0", "a + b", "x[i]", "const float* x");
  EXPECT_THROW(k(upload(random_values<double>(8, 0.0, 1.0, seed), {8})), ArgumentError);
}

TEST_F(ArrayReductionKernel, NumberForAPointerIsAnError) {
  ReductionKernel k(DType::float32, "0", "a + b", "x[i] * s", "const float* x, float s");
  const Array a = upload(random_values<float>(8, 0.0, 1.0, seed), {8});
  EXPECT_THROW(k(2.0, a), ArgumentError);
}

TEST_F(ArrayReductionKernel, StridedArrayIsAnError) {
  ReductionKernel k(DType::float32, "0", "a + b", "x[i]", "const float* x");
  const Array a = upload(random_values<float>(16, 0.0, 1.0, seed), {16});
  EXPECT_THROW(k(a.slice(0, std::nullopt, std::nullopt, 2)), ArgumentError);
}

TEST_F(ArrayReductionKernel, BadDefinitionsAreErrors) {
  EXPECT_THROW(ReductionKernel(DType::float32, "", "a + b", "x[i]", "const float* x"),
               ArgumentError);
  EXPECT_THROW(ReductionKernel(DType::float32, "0", "a + b", "x[i]", "const float* x", "bad name"),
               ArgumentError);
  EXPECT_THROW(ReductionKernel(DType::float32, "0", "a + b", "n", "int n"), ArgumentError);
  EXPECT_THROW(ReductionKernel(DType::float32, "0", "a + b", "x[i]", "const float*"),
               ArgumentError);
}

}  // namespace
