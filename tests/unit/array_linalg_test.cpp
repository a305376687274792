// matmul on the CPU backend (the generated tiled kernel) against a naive
// double reference: plain, transposed views, batched, broadcast batches,
// vectors, integers, and the shape and dtype errors.
#include "cudakit/array_linalg.hpp"

#include <gtest/gtest.h>

#include "cudakit/array_reduce.hpp"
#include "cudakit/error.hpp"
#include "unit/array_reduce_test_util.hpp"

namespace {

using namespace cudakit;
using namespace cudakit_test;

// C[b] = A[b] @ B[b] for C-order host data; a batch extent of 1 broadcasts.
std::vector<double> naive_matmul(const std::vector<double>& a, const std::vector<double>& b,
                                 std::int64_t batch_a, std::int64_t batch_b, std::int64_t m,
                                 std::int64_t k, std::int64_t n) {
  const std::int64_t batch = std::max(batch_a, batch_b);
  std::vector<double> c(static_cast<std::size_t>(batch * m * n), 0.0);
  for (std::int64_t z = 0; z < batch; ++z) {
    const double* pa = a.data() + (batch_a == 1 ? 0 : z) * m * k;
    const double* pb = b.data() + (batch_b == 1 ? 0 : z) * k * n;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t p = 0; p < k; ++p) s += pa[i * k + p] * pb[p * n + j];
        c[static_cast<std::size_t>((z * m + i) * n + j)] = s;
      }
  }
  return c;
}

class ArrayMatmul : public ::testing::Test {
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

TEST_F(ArrayMatmul, Float32ProductMatchesNaiveReference) {
  const auto a = random_values<float>(37 * 53, -1.0, 1.0, seed),
             b = random_values<float>(53 * 29, -1.0, 1.0, seed + 1);
  const Array c = matmul(upload(a, {37, 53}), upload(b, {53, 29}));
  EXPECT_EQ(c.shape(), (Shape{37, 29}));
  EXPECT_EQ(c.dtype(), DType::float32);
  expect_close(widen(c.to_host<float>()), naive_matmul(widen(a), widen(b), 1, 1, 37, 53, 29), 1e-4,
               "matmul");
}

TEST_F(ArrayMatmul, Float64ProductMatchesNaiveReference) {
  const auto a = random_values<double>(65 * 70, -1.0, 1.0, seed),
             b = random_values<double>(70 * 17, -1.0, 1.0, seed + 1);
  expect_close(matmul(upload(a, {65, 70}), upload(b, {70, 17})).to_host<double>(),
               naive_matmul(a, b, 1, 1, 65, 70, 17), 1e-12, "matmul f64");
}

TEST_F(ArrayMatmul, TransposedOperandsAreReadThroughTheirStrides) {
  const auto at = random_values<double>(40 * 33, -1.0, 1.0, seed),
             bt = random_values<double>(21 * 40, -1.0, 1.0, seed + 2);
  const Array a = upload(at, {40, 33}).T(), b = upload(bt, {21, 40}).T();  // (33, 40) @ (40, 21)
  expect_close(matmul(a, b).to_host<double>(),
               naive_matmul(a.to_host<double>(), b.to_host<double>(), 1, 1, 33, 40, 21), 1e-12,
               "transposed");
}

TEST_F(ArrayMatmul, BatchedProductMatchesReference) {
  const auto a = random_values<float>(3 * 17 * 19, -1.0, 1.0, seed),
             b = random_values<float>(3 * 19 * 23, -1.0, 1.0, seed + 3);
  const Array c = matmul(upload(a, {3, 17, 19}), upload(b, {3, 19, 23}));
  EXPECT_EQ(c.shape(), (Shape{3, 17, 23}));
  expect_close(widen(c.to_host<float>()), naive_matmul(widen(a), widen(b), 3, 3, 17, 19, 23), 1e-4,
               "batched");
}

TEST_F(ArrayMatmul, MatrixTimesStackBroadcastsTheMatrix) {
  const auto a = random_values<float>(9 * 12, -1.0, 1.0, seed),
             b = random_values<float>(4 * 12 * 5, -1.0, 1.0, seed + 4);
  const Array c = matmul(upload(a, {9, 12}), upload(b, {4, 12, 5}));
  EXPECT_EQ(c.shape(), (Shape{4, 9, 5}));
  expect_close(widen(c.to_host<float>()), naive_matmul(widen(a), widen(b), 1, 4, 9, 12, 5), 1e-4,
               "broadcast");
}

TEST_F(ArrayMatmul, VectorOperandsDropTheirAxis) {
  const auto v = random_values<double>(31, -1.0, 1.0, seed),
             m = random_values<double>(31 * 8, -1.0, 1.0, seed + 5);
  const Array left = matmul(upload(v, {31}), upload(m, {31, 8}));
  EXPECT_EQ(left.shape(), Shape{8});
  expect_close(left.to_host<double>(), naive_matmul(v, m, 1, 1, 1, 31, 8), 1e-12,
               "vector @ matrix");
  const auto m2 = random_values<double>(8 * 31, -1.0, 1.0, seed + 6);
  const Array right = matmul(upload(m2, {8, 31}), upload(v, {31}));
  EXPECT_EQ(right.shape(), Shape{8});
  expect_close(right.to_host<double>(), naive_matmul(m2, v, 1, 1, 8, 31, 1), 1e-12,
               "matrix @ vector");
}

TEST_F(ArrayMatmul, DotOfMatricesIsMatmul) {
  const auto a = random_values<double>(6 * 7, -1.0, 1.0, seed),
             b = random_values<double>(7 * 3, -1.0, 1.0, seed + 7);
  expect_close(dot(upload(a, {6, 7}), upload(b, {7, 3})).to_host<double>(),
               naive_matmul(a, b, 1, 1, 6, 7, 3), 1e-12, "dot");
}

TEST_F(ArrayMatmul, Int32ProductIsExact) {
  const auto a = random_values<std::int32_t>(19 * 23, -50.0, 50.0, seed),
             b = random_values<std::int32_t>(23 * 11, -50.0, 50.0, seed + 8);
  const Array c = matmul(upload(a, {19, 23}), upload(b, {23, 11}));
  EXPECT_EQ(c.dtype(), DType::int32);
  const auto want = naive_matmul({a.begin(), a.end()}, {b.begin(), b.end()}, 1, 1, 19, 23, 11);
  const auto got = c.to_host<std::int32_t>();
  for (std::size_t k = 0; k < got.size(); ++k)
    ASSERT_EQ(got[k], static_cast<std::int32_t>(want[k]));
}

TEST_F(ArrayMatmul, MixedDtypesArePromoted) {
  const auto a = random_values<float>(5 * 6, -1.0, 1.0, seed);
  const auto b = random_values<double>(6 * 4, -1.0, 1.0, seed + 9);
  const Array c = matmul(upload(a, {5, 6}), upload(b, {6, 4}));
  EXPECT_EQ(c.dtype(), DType::float64);
  expect_close(c.to_host<double>(), naive_matmul(widen(a), b, 1, 1, 5, 6, 4), 1e-12, "promoted");
}

TEST_F(ArrayMatmul, HalfPrecisionProductsAccumulateInFloat32) {
  for (DType dtype : {DType::float16, DType::bfloat16}) {
    SCOPED_TRACE(to_string(dtype));
    const Array a = upload(random_values<float>(21 * 34, -1.0, 1.0, seed), {21, 34}).astype(dtype);
    const Array b =
        upload(random_values<float>(34 * 13, -1.0, 1.0, seed + 1), {34, 13}).astype(dtype);
    const Array c = matmul(a, b);
    EXPECT_EQ(c.dtype(), dtype);
    const auto want = naive_matmul(a.astype(DType::float64).to_host<double>(),
                                   b.astype(DType::float64).to_host<double>(), 1, 1, 21, 34, 13);
    // One rounding of the float32 sum to the 16-bit type.
    expect_close(c.astype(DType::float64).to_host<double>(), want,
                 dtype == DType::float16 ? 4e-3 : 3e-2, "matmul");
  }
}

TEST_F(ArrayMatmul, InnerDimensionMismatchIsAnError) {
  const Array a = zeros({3, 4}, DType::float32, stream), b = zeros({5, 2}, DType::float32, stream);
  try {
    matmul(a, b);
    FAIL() << "no error";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("(3, 4) @ (5, 2)"), std::string::npos) << e.what();
  }
}

TEST_F(ArrayMatmul, MismatchedBatchesAreAnError) {
  EXPECT_THROW(
      matmul(zeros({2, 3, 4}, DType::float32, stream), zeros({3, 4, 5}, DType::float32, stream)),
      ArgumentError);
}

TEST_F(ArrayMatmul, ScalarAndFourDimensionalOperandsAreAnError) {
  EXPECT_THROW(matmul(zeros({}, DType::float32, stream), zeros({3}, DType::float32, stream)),
               ArgumentError);
  EXPECT_THROW(
      matmul(zeros({2, 2, 3, 4}, DType::float32, stream), zeros({4, 5}, DType::float32, stream)),
      ArgumentError);
}

TEST_F(ArrayMatmul, ComplexOperandsAreAnError) {
  EXPECT_THROW(
      matmul(zeros({2, 2}, DType::complex64, stream), zeros({2, 2}, DType::complex64, stream)),
      ArgumentError);
}

TEST_F(ArrayMatmul, Tf32IsOffByDefault) { EXPECT_FALSE(allow_tf32()); }

}  // namespace
