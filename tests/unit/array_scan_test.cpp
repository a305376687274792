// cumsum / cumprod and the scan kernels on the CPU backend, against host
// references on fresh random inputs, at lengths that span many blocks.
#include "cudakit/array_scan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "array/reduce_source_hook.hpp"
#include "cudakit/error.hpp"
#include "cudakit/scan_kernel.hpp"
#include "unit/array_reduce_test_util.hpp"

namespace {

using namespace cudakit;
using namespace cudakit_test;

class ArrayScan : public ::testing::Test {
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

// Inclusive running sums along `axis` of a C-order array.
std::vector<double> running(const std::vector<double>& x, const Shape& shape, int axis,
                            bool product) {
  std::vector<double> out(x);
  std::int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const std::int64_t len = shape[static_cast<std::size_t>(axis)];
  const std::int64_t outer = static_cast<std::int64_t>(x.size()) / (len * inner);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t in = 0; in < inner; ++in)
      for (std::int64_t k = 1; k < len; ++k) {
        const auto at = static_cast<std::size_t>((o * len + k) * inner + in);
        const auto prev = static_cast<std::size_t>((o * len + k - 1) * inner + in);
        out[at] = product ? out[prev] * out[at] : out[prev] + out[at];
      }
  return out;
}

TEST_F(ArrayScan, CumsumOfLargeInt32ArrayIsExactInt64) {
  const std::size_t n = 1000003;  // spans many blocks and tiles
  const auto host = random_values<std::int32_t>(n, -1000.0, 1000.0, seed);
  const Array r = cumsum(upload(host, {static_cast<std::int64_t>(n)}));
  EXPECT_EQ(r.dtype(), DType::int64);
  const auto got = r.to_host<std::int64_t>();
  std::int64_t running_sum = 0;
  for (std::size_t k = 0; k < n; ++k) {
    running_sum += host[k];
    ASSERT_EQ(got[k], running_sum) << "element " << k << ", seed " << seed;
  }
}

TEST_F(ArrayScan, CumsumOfFloat64MatchesReference) {
  const std::size_t n = 77777;
  const auto host = random_values<double>(n, -1.0, 1.0, seed);
  const auto got = cumsum(upload(host, {static_cast<std::int64_t>(n)})).to_host<double>();
  double s = 0;
  for (std::size_t k = 0; k < n; ++k) {
    s += host[k];
    ASSERT_NEAR(got[k], s, 1e-9) << "element " << k;
  }
}

TEST_F(ArrayScan, CumsumOfShortArrayFitsOneBlock) {
  const auto host = random_values<float>(37, 0.0, 2.0, seed);
  const auto got = cumsum(upload(host, {37})).to_host<float>();
  float s = 0;
  // A parallel scan adds in another order than this loop: float32 rounding
  // of a sum near 37 differs by a few ulps (3.8e-6 each), relative to it.
  for (std::size_t k = 0; k < host.size(); ++k) {
    s += host[k];
    ASSERT_NEAR(got[k], s, 1e-5 * std::max(1.0f, s)) << "element " << k;
  }
}

TEST_F(ArrayScan, CumsumAlongEachAxisMatchesReference) {
  const Shape shape{4, 301, 7};
  const auto host =
      random_values<double>(static_cast<std::size_t>(shape_size(shape)), -1.0, 1.0, seed);
  const Array a = upload(host, shape);
  for (int axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    const Array r = cumsum(a, axis);
    EXPECT_EQ(r.shape(), shape);
    EXPECT_TRUE(r.is_c_contiguous());
    expect_close(r.to_host<double>(), running(host, shape, axis < 0 ? axis + 3 : axis, false),
                 1e-12, "cumsum");
  }
}

// Which kernels a scan ran, by the generated kernel names it compiled.
class ScanKernelNames {
 public:
  ScanKernelNames() {
    detail::set_source_observer(
        [this](const std::string& name, const std::string&) { names_.push_back(name); });
  }
  ~ScanKernelNames() { detail::set_source_observer({}); }
  bool ran_columns() const {
    return std::any_of(names_.begin(), names_.end(),
                       [](const std::string& n) { return n.ends_with("_columns"); });
  }

 private:
  std::vector<std::string> names_;
};

TEST_F(ArrayScan, CumsumAlongAnOuterAxisByColumnsIsCContiguous) {
  // Short lines: a thread per column walks the axis in the operand's order.
  const Shape shape{3, 40, 57};
  const auto host =
      random_values<double>(static_cast<std::size_t>(shape_size(shape)), -1.0, 1.0, seed);
  ScanKernelNames names;
  const Array r = cumsum(upload(host, shape), 1);
  EXPECT_TRUE(names.ran_columns());
  EXPECT_EQ(r.shape(), shape);
  EXPECT_TRUE(r.is_c_contiguous());
  expect_close(r.to_host<double>(), running(host, shape, 1, false), 1e-12, "cumsum");
}

TEST_F(ArrayScan, CumsumAlongAnOuterAxisByLinesIsCContiguous) {
  // Few long lines: a block per line, writing through the output's stride.
  const Shape shape{3001, 5};
  const auto host = random_values<std::int32_t>(3001 * 5, -100.0, 100.0, seed);
  ScanKernelNames names;
  const Array r = cumsum(upload(host, shape), 0);
  EXPECT_FALSE(names.ran_columns());
  EXPECT_EQ(r.shape(), shape);
  EXPECT_TRUE(r.is_c_contiguous());
  const auto got = r.to_host<std::int64_t>();
  const auto want = running(std::vector<double>(host.begin(), host.end()), shape, 0, false);
  expect_close(std::vector<double>(got.begin(), got.end()), want, 0, "cumsum");
}

TEST_F(ArrayScan, CumsumAlongAMiddleAxisOfFewVeryLongLinesIsExact) {
  // Each of 6 lines spans many blocks (two launches per line), written
  // through the output's stride of 3.
  const Shape shape{2, 70001, 3};
  const auto host =
      random_values<std::int32_t>(static_cast<std::size_t>(shape_size(shape)), -100.0, 100.0, seed);
  ScanKernelNames names;
  const Array r = cumsum(upload(host, shape), 1);
  EXPECT_FALSE(names.ran_columns());
  EXPECT_TRUE(r.is_c_contiguous());
  const auto got = r.to_host<std::int64_t>();
  for (std::size_t o = 0; o < 2; ++o)
    for (std::size_t c = 0; c < 3; ++c) {
      std::int64_t s = 0;
      for (std::size_t k = 0; k < 70001; ++k) {
        const std::size_t at = (o * 70001 + k) * 3 + c;
        s += host[at];
        ASSERT_EQ(got[at], s) << "line " << o << "," << c << ", element " << k;
      }
    }
}

TEST_F(ArrayScan, CumsumOfStridedViewsAlongEachAxisMatchesReference) {
  // A transposed, reversed and stepped view: the map reads through strides,
  // the result is C-contiguous in the view's shape.
  const Shape base{13, 9, 40};
  const auto host =
      random_values<double>(static_cast<std::size_t>(shape_size(base)), -1.0, 1.0, seed);
  const Array view = upload(host, base)
                         .slice(2, std::nullopt, std::nullopt, -3)
                         .slice(0, 1, std::nullopt, 2)
                         .transpose({2, 0, 1});  // (14, 6, 9)
  ASSERT_FALSE(view.is_c_contiguous());
  const auto values = as_doubles(view);
  for (int axis : {0, 1, 2}) {
    SCOPED_TRACE(axis);
    const Array r = cumsum(view, axis);
    EXPECT_EQ(r.shape(), view.shape());
    EXPECT_TRUE(r.is_c_contiguous());
    expect_close(r.to_host<double>(), running(values, view.shape(), axis, false), 1e-12,
                 "cumsum of a view");
  }
}

TEST_F(ArrayScan, CumprodOfBroadcastExpressionAlongTheFirstAxis) {
  // x * w with w broadcast along axis 0, scanned along axis 0 by lines.
  const auto xh = random_values<double>(700 * 3, 0.9, 1.1, seed),
             wh = random_values<double>(3, 0.95, 1.05, seed + 1);
  const Array r = cumprod(Expr(upload(xh, {700, 3})) * Expr(upload(wh, {3})), 0);
  EXPECT_TRUE(r.is_c_contiguous());
  std::vector<double> product(xh.size());
  for (std::size_t k = 0; k < xh.size(); ++k) product[k] = xh[k] * wh[k % 3];
  expect_close(r.to_host<double>(), running(product, {700, 3}, 0, true), 1e-12, "cumprod");
}

TEST_F(ArrayScan, CumsumOfFewLongLinesIsExact) {
  // Two lines long enough to be scanned by many blocks each, one after the other.
  const Shape shape{2, 70001};
  const auto host = random_values<std::int32_t>(2 * 70001, -100.0, 100.0, seed);
  const auto got = cumsum(upload(host, shape), 1).to_host<std::int64_t>();
  for (std::size_t line = 0; line < 2; ++line) {
    std::int64_t s = 0;
    for (std::size_t k = 0; k < 70001; ++k) {
      s += host[line * 70001 + k];
      ASSERT_EQ(got[line * 70001 + k], s) << "line " << line << ", element " << k;
    }
  }
}

TEST_F(ArrayScan, CumsumWithoutAxisFlattensInCOrder) {
  const Shape shape{3, 5, 11};
  const auto host = random_values<double>(165, -1.0, 1.0, seed);
  const Array r = cumsum(upload(host, shape).transpose());
  EXPECT_EQ(r.shape(), Shape{165});
  const auto transposed = upload(host, shape).transpose().to_host<double>();
  expect_close(r.to_host<double>(), running(transposed, {165}, 0, false), 1e-12, "flat cumsum");
}

TEST_F(ArrayScan, CumprodAlongAnAxisMatchesReference) {
  const Shape shape{6, 129};
  const auto host = random_values<double>(774, 0.9, 1.1, seed);
  expect_close(cumprod(upload(host, shape), 1).to_host<double>(), running(host, shape, 1, true),
               1e-12, "cumprod");
}

TEST_F(ArrayScan, CumsumOfFusedExpressionMatchesReference) {
  const auto x = random_values<double>(5003, -1.0, 1.0, seed);
  const Array a = upload(x, {5003});
  const auto got = cumsum(Expr(a) * Expr(a)).to_host<double>();
  double s = 0;
  for (std::size_t k = 0; k < x.size(); ++k) ASSERT_NEAR(got[k], s += x[k] * x[k], 1e-10);
}

TEST_F(ArrayScan, CumsumAxisOutOfRangeIsAnError) {
  const Array a = upload(random_values<float>(12, 0.0, 1.0, seed), {3, 4});
  EXPECT_THROW(cumsum(a, 2), ArgumentError);
  EXPECT_THROW(cumprod(a, -3), ArgumentError);
}

TEST_F(ArrayScan, InclusiveScanKernelComputesRunningMaximum) {
  InclusiveScanKernel running_max(DType::float32, "a > b ? a : b");
  const auto host = random_values<float>(300007, -100.0, 100.0, seed);
  const auto got = running_max(upload(host, {300007})).to_host<float>();
  float m = host[0];
  for (std::size_t k = 0; k < host.size(); ++k) {
    m = std::max(m, host[k]);
    ASSERT_EQ(got[k], m) << "element " << k;
  }
}

TEST_F(ArrayScan, ExclusiveScanKernelStartsWithTheNeutralElement) {
  ExclusiveScanKernel scan(DType::int64, "a + b", "0");
  const auto host = random_values<std::int64_t>(100003, 1.0, 50.0, seed);
  const auto got = scan(upload(host, {100003})).to_host<std::int64_t>();
  std::int64_t s = 0;
  for (std::size_t k = 0; k < host.size(); ++k) {
    ASSERT_EQ(got[k], s) << "element " << k;
    s += host[k];
  }
}

TEST_F(ArrayScan, ScanKernelWorksInPlace) {
  InclusiveScanKernel scan(DType::int32, "a + b", std::string("0"));
  const auto host = random_values<std::int32_t>(20011, 1.0, 9.0, seed);
  Array a = upload(host, {20011});
  scan(a, a);
  const auto got = a.to_host<std::int32_t>();
  std::int32_t s = 0;
  for (std::size_t k = 0; k < host.size(); ++k) ASSERT_EQ(got[k], s += host[k]);
}

TEST_F(ArrayScan, ScanKernelWritesThroughAReversedOrSteppedOutput) {
  InclusiveScanKernel scan(DType::int64, "a + b");
  const auto host = random_values<std::int64_t>(30011, -50.0, 50.0, seed);
  std::vector<std::int64_t> want(host.size());
  std::int64_t s = 0;
  for (std::size_t k = 0; k < host.size(); ++k) want[k] = s += host[k];
  const Array a = upload(host, {30011});
  Array base = zeros({30011}, DType::int64, stream);
  Array reversed = base.slice(0, std::nullopt, std::nullopt, -1);
  scan(a, reversed);
  EXPECT_EQ(reversed.to_host<std::int64_t>(), want);
  Array wide = zeros({2, 30011, 3}, DType::int64, stream);
  Array stepped = wide.index({1, Slice(), 2});  // stride 3, one line
  scan(a, stepped);
  EXPECT_EQ(stepped.to_host<std::int64_t>(), want);
  // Elements of `wide` outside the view are untouched.
  EXPECT_EQ(wide.index({0}).copy().to_host<std::int64_t>(),
            std::vector<std::int64_t>(3 * 30011, 0));
}

TEST_F(ArrayScan, ScanKernelWritesThroughATransposedOrSteppedTwoDimensionalOutput) {
  // The output is filled in its own C order, whatever its layout.
  InclusiveScanKernel scan(DType::float64, "a + b");
  const auto host = random_values<double>(7 * 301, -1.0, 1.0, seed);
  std::vector<double> want(host.size());
  double s = 0;
  for (std::size_t k = 0; k < host.size(); ++k) want[k] = s += host[k];
  const Array a = upload(host, {7, 301});
  Array wide = zeros({7, 602}, DType::float64, stream);
  Array stepped = wide.slice(1, 1, std::nullopt, 2);  // (7, 301), strides (602, 2)
  scan(a, stepped);
  expect_close(stepped.copy().to_host<double>(), want, 1e-12, "stepped output");
  const auto all = wide.to_host<double>();
  for (std::size_t k = 0; k < all.size(); k += 2) ASSERT_EQ(all[k], 0.0) << k;
  Array transposed_base = zeros({301, 7}, DType::float64, stream);
  Array transposed = transposed_base.transpose();  // (7, 301), strides (1, 7)
  scan(a, transposed);
  expect_close(transposed.copy().to_host<double>(), want, 1e-12, "transposed output");
}

TEST_F(ArrayScan, ScanKernelWorksInPlaceOnAStridedView) {
  ExclusiveScanKernel scan(DType::float64, "a + b", "0");
  const auto host = random_values<double>(2 * 4099, -1.0, 1.0, seed);
  Array base = upload(host, {4099, 2});
  Array column = base.index({Slice(), 1});  // stride 2
  scan(column, column);
  const auto got = base.to_host<double>();
  double s = 0;
  for (std::size_t k = 0; k < 4099; ++k) {
    ASSERT_NEAR(got[2 * k + 1], s, 1e-12) << "element " << k;
    ASSERT_EQ(got[2 * k], host[2 * k]);
    s += host[2 * k + 1];
  }
}

TEST_F(ArrayScan, ScanKernelOperationNeedNotBeCommutative) {
  // (a, b) -> b keeps the latest value: a scan of it is the identity.
  InclusiveScanKernel last(DType::float64, "b");
  const auto host = random_values<double>(9001, -1.0, 1.0, seed);
  EXPECT_EQ(last(upload(host, {9001})).to_host<double>(), host);
}

TEST_F(ArrayScan, ScanKernelRejectsBadDefinitions) {
  EXPECT_THROW(InclusiveScanKernel(DType::float32, "  "), ArgumentError);
  EXPECT_THROW(InclusiveScanKernel(DType::float32, "a + b", std::nullopt, "not valid"),
               ArgumentError);
  EXPECT_THROW(ExclusiveScanKernel(DType::float32, "a + b", ""), ArgumentError);
}

TEST_F(ArrayScan, ScanKernelRejectsMismatchedOutput) {
  InclusiveScanKernel scan(DType::float32, "a + b");
  const Array a = upload(random_values<float>(10, 0.0, 1.0, seed), {10});
  Array small = empty({9}, DType::float32, stream);
  Array wrong = empty({10}, DType::float64, stream);
  EXPECT_THROW(scan(a, small), ArgumentError);
  EXPECT_THROW(scan(a, wrong), ArgumentError);
}

}  // namespace
