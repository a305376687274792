// matmul on the GPU: cuBLAS for float16 / bfloat16 / float32 / float64
// (row-major through the transposition trick, transposed views, batches),
// TF32 when allowed, and the generated 64x64 tiled kernel when forced.
#include <gtest/gtest.h>

#include <optional>

#include "cudakit/array_linalg.hpp"
#include "gpu/cuda_device_test.hpp"
#include "unit/array_reduce_test_util.hpp"

namespace {

using namespace cudakit;
using namespace cudakit_test;

std::vector<double> naive(const std::vector<double>& a, const std::vector<double>& b,
                          std::int64_t batch, std::int64_t m, std::int64_t k, std::int64_t n) {
  std::vector<double> c(static_cast<std::size_t>(batch * m * n), 0.0);
  for (std::int64_t z = 0; z < batch; ++z)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t p = 0; p < k; ++p) {
        const double av = a[static_cast<std::size_t>((z * m + i) * k + p)];
        for (std::int64_t j = 0; j < n; ++j)
          c[static_cast<std::size_t>((z * m + i) * n + j)] +=
              av * b[static_cast<std::size_t>((z * k + p) * n + j)];
      }
  return c;
}

class ArrayMatmulGpu : public cudakit_test::CudaDeviceTest {
 protected:
  void TearDown() override {
    set_matmul_engine(MatmulEngine::automatic);
    set_allow_tf32(false);
  }
  Array upload(const std::vector<double>& host, const Shape& shape, DType dtype) {
    return from_host(host.data(), shape, DType::float64, stream()).astype(dtype);
  }
  // Checks a (batch, m, k) @ (batch, k, n) product in `dtype` against double.
  void check(DType dtype, std::int64_t batch, std::int64_t m, std::int64_t k, std::int64_t n,
             double rel) {
    SCOPED_TRACE(::testing::Message()
                 << to_string(dtype) << " " << batch << "x" << m << "x" << k << "x" << n);
    auto a = random_values<double>(static_cast<std::size_t>(batch * m * k), -1.0, 1.0, seed);
    auto b = random_values<double>(static_cast<std::size_t>(batch * k * n), -1.0, 1.0, seed + 1);
    const Array da = upload(a, batch == 1 ? Shape{m, k} : Shape{batch, m, k}, dtype);
    const Array db = upload(b, batch == 1 ? Shape{k, n} : Shape{batch, k, n}, dtype);
    // The reference uses the operands as rounded to `dtype`.
    a = da.astype(DType::float64).to_host<double>();
    b = db.astype(DType::float64).to_host<double>();
    const Array c = matmul(da, db);
    EXPECT_EQ(c.dtype(), dtype);
    const auto want = naive(a, b, batch, m, k, n);
    const auto got = c.astype(DType::float64).to_host<double>();
    // Relative to the size of the terms: sqrt(k) * |a| |b| bounds the sum.
    expect_close(got, want, rel * std::sqrt(static_cast<double>(k)), "matmul");
  }
  std::uint32_t seed = fresh_seed();
};

TEST_F(ArrayMatmulGpu, CublasFloat32MatchesReference) {
  check(DType::float32, 1, 517, 263, 389, 1e-5);
}
TEST_F(ArrayMatmulGpu, CublasFloat64MatchesReference) {
  check(DType::float64, 1, 300, 401, 211, 1e-13);
}
TEST_F(ArrayMatmulGpu, CublasFloat16AccumulatesInFloat32) {
  check(DType::float16, 1, 129, 255, 97, 2e-3);
}
TEST_F(ArrayMatmulGpu, CublasBfloat16AccumulatesInFloat32) {
  check(DType::bfloat16, 1, 129, 255, 97, 1e-2);
}
TEST_F(ArrayMatmulGpu, CublasBatchedMatchesReference) {
  check(DType::float32, 5, 67, 45, 89, 1e-5);
}

TEST_F(ArrayMatmulGpu, Tf32WhenAllowedIsCloseToReference) {
  set_allow_tf32(true);
  check(DType::float32, 1, 512, 512, 512, 3e-3);
}

TEST_F(ArrayMatmulGpu, GeneratedKernelMatchesReference) {
  set_matmul_engine(MatmulEngine::generated);
  check(DType::float32, 1, 300, 257, 131, 1e-5);
  check(DType::float64, 3, 65, 129, 63, 1e-13);
  check(DType::float16, 1, 70, 90, 110, 2e-3);
}

TEST_F(ArrayMatmulGpu, CublasTakesTransposedViewsWithoutError) {
  const auto a = random_values<double>(150 * 70, -1.0, 1.0, seed),
             b = random_values<double>(90 * 150, -1.0, 1.0, seed + 2);
  const Array at = upload(a, {150, 70}, DType::float32).T();  // (70, 150), unit row stride
  const Array bt = upload(b, {90, 150}, DType::float32).T();  // (150, 90)
  const auto ha = at.astype(DType::float64).to_host<double>(),
             hb = bt.astype(DType::float64).to_host<double>();
  expect_close(matmul(at, bt).astype(DType::float64).to_host<double>(),
               naive(ha, hb, 1, 70, 150, 90), 1e-4, "transposed");
}

}  // namespace
