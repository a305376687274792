// Reductions and scans on the GPU: the same generated kernels as on the CPU
// backend, checked against host double references, at sizes where the
// single-launch path uses every multiprocessor.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "cudakit/array_random.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/array_scan.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "cudakit/scan_kernel.hpp"
#include "gpu/cuda_device_test.hpp"
#include "unit/array_reduce_test_util.hpp"

namespace {

using namespace cudakit;
using namespace cudakit_test;

class ArrayReduceGpu : public cudakit_test::CudaDeviceTest {
 protected:
  template <class T>
  Array upload(const std::vector<T>& host, const Shape& shape) {
    return from_host(host.data(), shape, dtype_of<T>(), stream());
  }
  std::uint32_t seed = fresh_seed();
};

TEST_F(ArrayReduceGpu, Float32SumOf2To28ElementsIsWithin1e5OfFloat64) {
  Generator g(seed, stream());
  const Array a = g.random({std::int64_t{1} << 28}, DType::float32);
  const auto host = a.to_host<float>();
  double want = 0;
  for (float v : host) want += v;
  const double got = sum(a).item().as_double();
  EXPECT_LT(std::fabs(got - want) / want, 1e-5) << "got " << got << ", want " << want;
}

TEST_F(ArrayReduceGpu, FullSumIsBitwiseReproducible) {
  Generator g(seed, stream());
  const Array a = g.normal(0.0, 1.0, {(std::int64_t{1} << 26) + 7}, DType::float32);
  const float first = sum(a).to_host<float>()[0];
  for (int k = 0; k < 5; ++k) ASSERT_EQ(sum(a).to_host<float>()[0], first);
}

TEST_F(ArrayReduceGpu, ReductionsOverEachAxisMatchReference) {
  const Shape shape{13, 257, 301};
  const auto host =
      random_values<float>(static_cast<std::size_t>(shape_size(shape)), -2.0, 3.0, seed);
  const Array a = upload(host, shape);
  const auto x = widen(host), ax = magnitudes(host);
  for (int axis : {0, 1, 2}) {
    SCOPED_TRACE(axis);
    expect_close(as_doubles(sum(a, axis)), reference(x, shape, {axis}, ref_sum), 1e-5, "sum",
                 reference(ax, shape, {axis}, ref_sum));
    expect_close(as_doubles(mean(a, axis, true)), reference(x, shape, {axis}, ref_mean), 1e-5,
                 "mean", reference(ax, shape, {axis}, ref_mean));
    expect_close(as_doubles(var(a, axis)), reference(x, shape, {axis}, ref_var), 1e-5, "var");
    expect_close(as_doubles(max(a, axis)),
                 reference(x, shape, {axis},
                           [](const std::vector<double>& v) {
                             return *std::max_element(v.begin(), v.end());
                           }),
                 0, "max");
    expect_close(
        as_doubles(argmin(a, axis)),
        reference(x, shape, {axis},
                  [](const std::vector<double>& v) {
                    return static_cast<double>(std::min_element(v.begin(), v.end()) - v.begin());
                  }),
        0, "argmin");
  }
  expect_close(as_doubles(sum(a.transpose(), {0, 2})), reference(x, shape, {0, 2}, ref_sum), 1e-5,
               "sum of view");
}

TEST_F(ArrayReduceGpu, ArgminOfTiesIsTheFirstIndex) {
  std::vector<float> host = random_values<float>(10000019, 1.0, 2.0, seed);
  for (std::size_t k : {std::size_t{9000000}, std::size_t{123457}, std::size_t{5000000}})
    host[k] = 0.5f;
  EXPECT_EQ(argmin(upload(host, {10000019})).item().as_int64(), 123457);
}

TEST_F(ArrayReduceGpu, SumOfSquaredDifferenceIsOneLaunch) {
  const auto x = random_values<float>(10000019, -1.0, 1.0, seed);
  const auto y = random_values<float>(10000019, -1.0, 1.0, seed + 1);
  const Array a = upload(x, {10000019}), b = upload(y, {10000019});
  const auto before = detail::array_kernel_launches();
  const Array r = sum(power(Expr(a) - Expr(b), Expr(2)));
  EXPECT_EQ(detail::array_kernel_launches() - before, 1u);
  double want = 0;
  for (std::size_t k = 0; k < x.size(); ++k) want += (double(x[k]) - y[k]) * (double(x[k]) - y[k]);
  EXPECT_NEAR(r.item().as_double(), want, 1e-5 * want);
}

TEST_F(ArrayReduceGpu, DotMatchesReference) {
  const auto x = random_values<float>(33554467, -1.0, 1.0, seed);
  const auto y = random_values<float>(33554467, -1.0, 1.0, seed + 2);
  double want = 0;
  for (std::size_t k = 0; k < x.size(); ++k) want += double(x[k]) * y[k];
  EXPECT_NEAR(dot(upload(x, {33554467}), upload(y, {33554467})).item().as_double(), want,
              1e-5 * std::sqrt(double(x.size())));
}

TEST_F(ArrayReduceGpu, CumsumOfLargeInt32ArrayIsExact) {
  const auto host = random_values<std::int32_t>(20000003, -1000.0, 1000.0, seed);
  const auto got = cumsum(upload(host, {20000003})).to_host<std::int64_t>();
  std::int64_t s = 0;
  for (std::size_t k = 0; k < host.size(); ++k) ASSERT_EQ(got[k], s += host[k]) << "element " << k;
}

TEST_F(ArrayReduceGpu, CumsumAlongAnAxisMatchesReference) {
  const Shape shape{300, 2049};
  const auto host = random_values<std::int32_t>(300 * 2049, -10.0, 10.0, seed);
  const auto got = cumsum(upload(host, shape), 0).to_host<std::int64_t>();
  std::vector<std::int64_t> running(2049, 0);
  for (std::int64_t r = 0; r < 300; ++r)
    for (std::int64_t c = 0; c < 2049; ++c) {
      running[static_cast<std::size_t>(c)] += host[static_cast<std::size_t>(r * 2049 + c)];
      ASSERT_EQ(got[static_cast<std::size_t>(r * 2049 + c)], running[static_cast<std::size_t>(c)]);
    }
}

TEST_F(ArrayReduceGpu, ScanKernelsMatchReference) {
  const auto host = random_values<std::int64_t>(5000011, 1.0, 100.0, seed);
  const Array a = upload(host, {5000011});
  const auto exclusive = ExclusiveScanKernel(DType::int64, "a + b", "0")(a).to_host<std::int64_t>();
  const auto running_max =
      InclusiveScanKernel(DType::int64, "a > b ? a : b")(a).to_host<std::int64_t>();
  std::int64_t s = 0, m = host[0];
  for (std::size_t k = 0; k < host.size(); ++k) {
    ASSERT_EQ(exclusive[k], s);
    s += host[k];
    m = std::max(m, host[k]);
    ASSERT_EQ(running_max[k], m);
  }
}

TEST_F(ArrayReduceGpu, ReductionKernelMatchesReference) {
  ReductionKernel dot(DType::float32, "0", "a + b", "x[i] * y[i]",
                      "const float* x, const float* y");
  const auto x = random_values<float>(4000037, -1.0, 1.0, seed),
             y = random_values<float>(4000037, -1.0, 1.0, seed + 3);
  double want = 0;
  for (std::size_t k = 0; k < x.size(); ++k) want += double(x[k]) * y[k];
  EXPECT_NEAR(dot(upload(x, {4000037}), upload(y, {4000037})).item().as_double(), want, 1e-3);
}

}  // namespace

namespace {

// Complex min / max / argmin / argmax on the GPU (24-byte value-and-position
// accumulators across many blocks, read back through the coherent loads),
// and a sum with an infinite element.
TEST_F(ArrayReduceGpu, ComplexExtremesAndInfiniteSumsMatchNumpysRules) {
  using Z = std::complex<double>;
  const std::int64_t n = 3'000'017;
  const auto re = random_values<float>(static_cast<std::size_t>(n), -50.0, 50.0, seed),
             im = random_values<float>(static_cast<std::size_t>(n), -1.0, 1.0, seed + 1);
  std::vector<Z> host(re.size());
  for (std::size_t k = 0; k < host.size(); ++k) host[k] = {std::round(re[k]), im[k]};
  const auto less = [](Z a, Z b) {
    return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
  };
  const Array c = upload(host, {n});
  const auto lo = std::min_element(host.begin(), host.end(), less);
  const auto hi = std::max_element(host.begin(), host.end(), less);
  EXPECT_EQ(argmin(c).item().as_int64(), lo - host.begin());
  EXPECT_EQ(argmax(c).item().as_int64(), hi - host.begin());
  EXPECT_EQ(min(c).item().as_complex(), *lo);
  EXPECT_EQ(max(c).item().as_complex(), *hi);
  auto values = random_values<float>(static_cast<std::size_t>(n), -1.0, 1.0, seed + 2);
  values[1'234'567] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(sum(upload(values, {n})).item().as_double(), std::numeric_limits<double>::infinity());
}

}  // namespace
