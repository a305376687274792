// The kernel generators and scans with arrays on different streams: the
// launch runs on one stream and must see the finished values of arrays
// written on another. A slow kernel keeps one stream busy writing an
// operand; without the ordering the launch runs at once and reads the old
// values. Runs on the CPU backend (asynchronous stream threads) and, in the
// gpu build, on a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_scan.hpp"
#include "cudakit/elementwise_kernel.hpp"
#include "cudakit/memory_pool.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "cudakit/scan_kernel.hpp"
#include "unit/array_test_support.hpp"
#include "unit/stream_test_fixture.hpp"
#include "unit/stream_test_kernels.hpp"

namespace array_test {
namespace {

constexpr std::int64_t n = 1203;  // 3 x 401: not a multiple of any block size

class GeneratorStreams : public StreamTest {};

TEST_F(GeneratorStreams, ReductionKernelWaitsForAnArgumentOnAnotherStream) {
  ck::ReductionKernel total(ck::DType::float64, "0", "a + b", "(double)x[i] * y[i]",
                            "const float* x, const float* y");
  const auto hx = random_values<float>(n), hy = random_values<float>(n);
  ck::Array x = on(s2(), hx);
  ck::Array y = on(s1(), hy);
  (void)total(x, on(s2(), hy)).item();  // compiles the kernel before the race
  slow_scale(y, s1());
  ck::Array r = total(x, y);  // on x's stream, s2
  const auto sy = scaled(hy);
  double want = 0, magnitude = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) {
    want += double(hx[i]) * sy[i];
    magnitude += std::fabs(double(hx[i]) * sy[i]);
  }
  EXPECT_NEAR(r.item().as_double(), want, 1e-9 * magnitude);
}

TEST_F(GeneratorStreams, ElementwiseKernelWaitsForAnArgumentOnAnotherStream) {
  ck::ElementwiseKernel add_one("float *z, const float *a", "z[i] = a[i] + 1", "add_one_streams");
  const auto ha = random_values<float>(n);
  ck::Array z = ck::empty({n}, ck::DType::float32, s2());
  add_one({z, on(s2(), ha)});  // compiles the kernel before the race
  ck::Array a = on(s1(), ha);
  slow_scale(a, s1());
  add_one({z, a});  // on z's stream, s2
  const auto sa = scaled(ha);
  const auto got = z.to_host<float>();
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], sa[i] + 1.0f) << i;
}

TEST_F(GeneratorStreams, ScanKernelWaitsForItsInputOnAnotherStream) {
  ck::InclusiveScanKernel scan(ck::DType::float32, "a > b ? a : b");
  const auto ha = random_values<float>(n);
  ck::Array out = ck::empty({n}, ck::DType::float32, s2());
  scan(on(s2(), ha), out);  // compiles the kernels before the race
  ck::Array a = on(s1(), ha);
  slow_scale(a, s1());
  scan(a, out);  // on out's stream, s2
  const auto sa = scaled(ha);
  const auto got = out.to_host<float>();
  float m = sa[0];
  for (std::size_t i = 0; i < got.size(); ++i) {
    m = std::max(m, sa[i]);
    ASSERT_EQ(got[i], m) << i;
  }
}

TEST_F(GeneratorStreams, AxisCumsumWaitsForAnOperandOnAnotherStream) {
  const auto hx = random_values<float>(n), ha = random_values<float>(n);
  ck::Array x = on(s2(), hx, {3, 401});
  (void)ck::cumsum(ck::Expr(x) * on(s2(), ha, {3, 401}), 0).to_host<float>();  // compiles first
  ck::Array a = on(s1(), ha, {3, 401});
  slow_scale(a, s1());
  ck::Array r = ck::cumsum(ck::Expr(x) * a, 0);  // on x's stream, s2
  const auto sa = scaled(ha);
  const auto got = r.to_host<float>();
  for (std::size_t c = 0; c < 401; ++c) {
    float s = 0;
    for (std::size_t row = 0; row < 3; ++row) {
      const std::size_t i = row * 401 + c;
      s += hx[i] * sa[i];
      ASSERT_NEAR(got[i], s, 1e-5f * (1.0f + std::fabs(s))) << i;
    }
  }
}

}  // namespace
}  // namespace array_test
