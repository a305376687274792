// ReductionKernel on strided views and scans along every axis on the GPU,
// at sizes where each path (a thread per column, a block per line, several
// blocks per line) is the one chosen on a current GPU, against host
// references on fresh random inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "array/reduce_source_hook.hpp"
#include "cudakit/array_scan.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "cudakit/scan_kernel.hpp"
#include "gpu/cuda_device_test.hpp"
#include "unit/array_reduce_test_util.hpp"

namespace {

using namespace cudakit;
using namespace cudakit_test;

class ArrayLayoutGpu : public cudakit_test::CudaDeviceTest {
 protected:
  void TearDown() override { detail::set_source_observer({}); }
  template <class T>
  Array upload(const std::vector<T>& host, const Shape& shape) {
    return from_host(host.data(), shape, dtype_of<T>(), stream());
  }
  // Records whether the next scans generate the column kernel.
  void watch_kernels() {
    detail::set_source_observer([this](const std::string& name, const std::string&) {
      if (name.size() >= 8 && name.compare(name.size() - 8, 8, "_columns") == 0) columns_ = true;
    });
  }
  // Scans a C-order int32 host array along `axis` of `shape` (int64 result).
  static std::vector<std::int64_t> running_sum(const std::vector<std::int32_t>& x,
                                               const Shape& shape, int axis) {
    std::vector<std::int64_t> out(x.begin(), x.end());
    std::int64_t inner = 1;
    for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d)
      inner *= shape[d];
    const std::int64_t len = shape[static_cast<std::size_t>(axis)];
    const std::int64_t outer = static_cast<std::int64_t>(x.size()) / (len * inner);
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t c = 0; c < inner; ++c)
        for (std::int64_t k = 1; k < len; ++k)
          out[static_cast<std::size_t>((o * len + k) * inner + c)] +=
              out[static_cast<std::size_t>((o * len + k - 1) * inner + c)];
    return out;
  }
  void expect_axis_scan(const Shape& shape, int axis, bool by_columns) {
    const auto host = random_values<std::int32_t>(static_cast<std::size_t>(shape_size(shape)),
                                                  -1000.0, 1000.0, seed);
    columns_ = false;
    watch_kernels();
    const Array r = cumsum(upload(host, shape), axis);
    detail::set_source_observer({});
    EXPECT_EQ(columns_, by_columns);
    EXPECT_EQ(r.shape(), shape);
    EXPECT_TRUE(r.is_c_contiguous());
    const auto got = r.to_host<std::int64_t>();
    const auto want = running_sum(host, shape, axis);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < got.size(); ++k)
      ASSERT_EQ(got[k], want[k]) << "element " << k << ", seed " << seed;
  }

  std::uint32_t seed = fresh_seed();
  bool columns_ = false;
};

TEST_F(ArrayLayoutGpu, ReductionKernelReadsTransposedAndReversedViews) {
  ReductionKernel dot(DType::float64, "0", "a + b", "x[i] * y[i]",
                      "const double* x, const double* y");
  const auto xh = random_values<double>(1003 * 2999, -1.0, 1.0, seed),
             yh = random_values<double>(2999 * 1003, -1.0, 1.0, seed + 1);
  const Array x = upload(xh, {1003, 2999}).transpose();  // (2999, 1003)
  const Array y = upload(yh, {2999, 1003}).slice(1, std::nullopt, std::nullopt, -1);
  const auto xv = x.copy().to_host<double>(), yv = y.copy().to_host<double>();
  double want = 0, scale = 0;
  for (std::size_t k = 0; k < xv.size(); ++k) {
    want += xv[k] * yv[k];
    scale += std::fabs(xv[k] * yv[k]);
  }
  // Both sums round in different orders: allow a little of the magnitudes.
  EXPECT_NEAR(dot(x, y).item().as_double(), want, 1e-12 * scale);
}

TEST_F(ArrayLayoutGpu, ReductionKernelReadsSteppedAndBroadcastViews) {
  ReductionKernel weighted(DType::float32, "0", "a + b", "w[i] * x[i]",
                           "const float* w, const float* x");
  const auto wh = random_values<float>(777, -1.0, 1.0, seed),
             xh = random_values<float>(3 * 4001 * 777, -1.0, 1.0, seed + 1);
  const Array w = upload(wh, {777}).broadcast_to({4001, 777});
  const Array x = upload(xh, {4001, 3 * 777}).slice(1, 1, std::nullopt, 3);  // (4001, 777)
  const auto xv = x.copy().to_host<float>();
  double want = 0, scale = 0;
  for (std::size_t k = 0; k < xv.size(); ++k) {
    want += static_cast<double>(wh[k % 777]) * xv[k];
    scale += std::fabs(static_cast<double>(wh[k % 777]) * xv[k]);
  }
  expect_close({weighted(w, x).item().as_double()}, {want}, 1e-5, "weighted", {scale});
}

TEST_F(ArrayLayoutGpu, CumsumAlongTheFirstAxisOfManyColumnsRunsByColumns) {
  expect_axis_scan({50, 40001}, 0, true);
}

TEST_F(ArrayLayoutGpu, CumsumAlongTheFirstAxisOfFewColumnsRunsByLines) {
  expect_axis_scan({3001, 517}, 0, false);
}

TEST_F(ArrayLayoutGpu, CumsumAlongAMiddleAxisOfFewVeryLongLines) {
  expect_axis_scan({3, 200003, 2}, 1, false);
}

TEST_F(ArrayLayoutGpu, CumsumAlongTheLastAxisIsUnchanged) {
  expect_axis_scan({301, 1999}, 1, false);
}

TEST_F(ArrayLayoutGpu, CumsumOfATransposedViewAlongEachAxis) {
  const Shape base{37, 1100};
  const auto host = random_values<std::int32_t>(37 * 1100, -1000.0, 1000.0, seed);
  const Array view = upload(host, base).transpose();  // (1100, 37), strides (1, 1100)
  const auto values = view.copy().to_host<std::int32_t>();
  for (int axis : {0, 1}) {
    SCOPED_TRACE(axis);
    const Array r = cumsum(view, axis);
    EXPECT_TRUE(r.is_c_contiguous());
    const auto got = r.to_host<std::int64_t>();
    const auto want = running_sum(values, view.shape(), axis);
    for (std::size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], want[k]) << "element " << k;
  }
}

TEST_F(ArrayLayoutGpu, ScanKernelWritesThroughAReversedOutput) {
  InclusiveScanKernel scan(DType::int64, "a + b");
  const std::int64_t n = 5000011;  // many blocks
  const auto host = random_values<std::int64_t>(static_cast<std::size_t>(n), -50.0, 50.0, seed);
  Array base = zeros({n}, DType::int64, stream());
  Array reversed = base.slice(0, std::nullopt, std::nullopt, -1);
  scan(upload(host, {n}), reversed);
  const auto got = base.to_host<std::int64_t>();
  std::int64_t s = 0;
  for (std::size_t k = 0; k < host.size(); ++k) {
    s += host[k];
    ASSERT_EQ(got[host.size() - 1 - k], s) << "element " << k;
  }
}

}  // namespace
