// Array operations whose operands live on different streams: the operation
// runs on one stream (its output's) and must see the operands' finished
// values, and memory an operation still reads on its stream must not be
// handed out on the stream it is freed on. A slow kernel keeps one stream
// busy writing an operand; without the ordering, the operation on the other
// stream runs at once and reads the old values. Runs on the CPU backend
// (asynchronous stream threads) and, in the gpu build, on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_indexing.hpp"
#include "cudakit/array_linalg.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/array_scan.hpp"
#include "cudakit/elementwise_kernel.hpp"
#include "cudakit/event.hpp"
#include "cudakit/memory_pool.hpp"
#include "cudakit/reduction_kernel.hpp"
#include "unit/array_test_support.hpp"
#include "unit/stream_test_fixture.hpp"
#include "unit/stream_test_kernels.hpp"

namespace array_test {
namespace {

constexpr std::int64_t n = 1237;  // not a multiple of any block size

class ArrayStreams : public StreamTest {};

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-5f * (1.0f + std::fabs(want[i]))) ++bad;
  EXPECT_EQ(bad, 0u) << "first: got " << got[0] << ", want " << want[0];
}

TEST_F(ArrayStreams, AssignOnAnotherStreamSeesTheOperandsFinishedValues) {
  const auto host = random_values<float>(n);
  ck::Array a = on(s1(), host);
  ck::Array b = ck::empty({n}, ck::DType::float32, s2());
  b.assign(ck::Expr(on(s2(), host)) + 1.0f);  // compiles the kernel before the race
  slow_scale(a, s1());
  b.assign(ck::Expr(a) + 1.0f);  // on b's stream, s2
  auto want = scaled(host);
  for (auto& w : want) w += 1.0f;
  expect_near_all(b.to_host<float>(), want);
}

TEST_F(ArrayStreams, ExpressionOverTwoStreamsWaitsForBoth) {
  const auto hx = random_values<float>(n), ha = random_values<float>(n);
  ck::Array x = on(s2(), hx);
  ck::Array a = on(s1(), ha);
  ck::Array warm = ck::Expr(x) + on(s2(), ha);  // the same kernel, on one stream
  slow_scale(a, s1());
  ck::Array c = ck::Expr(x) + a;  // evaluated on x's stream
  const auto sa = scaled(ha);
  std::vector<float> want(hx.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = hx[i] + sa[i];
  expect_near_all(c.to_host<float>(), want);
}

TEST_F(ArrayStreams, InPlaceUpdateWaitsForTheOperandsStream) {
  const auto hx = random_values<float>(n), ha = random_values<float>(n);
  ck::Array x = on(s2(), hx);
  ck::Array a = on(s1(), ha);
  ck::Array warm = on(s2(), hx);
  warm += on(s2(), ha);  // the same kernel, on one stream
  slow_scale(a, s1());
  x += a;
  const auto sa = scaled(ha);
  std::vector<float> want(hx.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = hx[i] + sa[i];
  expect_near_all(x.to_host<float>(), want);
}

TEST_F(ArrayStreams, ReductionWaitsForAnOperandOnAnotherStream) {
  const auto hx = random_values<float>(n), ha = random_values<float>(n);
  ck::Array x = on(s2(), hx);
  ck::Array a = on(s1(), ha);
  (void)ck::sum(ck::Expr(x) + on(s2(), ha)).item();  // compiles the kernel first
  slow_scale(a, s1());
  ck::Array total = ck::sum(ck::Expr(x) + a);  // on x's stream
  double want = 0, magnitude = 0;
  const auto sa = scaled(ha);
  for (std::size_t i = 0; i < hx.size(); ++i) {
    want += double(hx[i]) + double(sa[i]);
    magnitude += std::fabs(double(hx[i])) + std::fabs(double(sa[i]));
  }
  EXPECT_NEAR(total.item().as_double(), want, 1e-5 * magnitude);
}

TEST_F(ArrayStreams, MatmulWaitsForAnOperandOnAnotherStream) {
  constexpr std::int64_t m = 13, k = 17, cols = 11;
  const auto hx = random_values<float>(m * k), ha = random_values<float>(k * cols);
  ck::Array x = on(s2(), hx, {m, k});
  ck::Array a = on(s1(), ha, {k, cols});
  ck::Array warm = ck::matmul(x, on(s2(), ha, {k, cols}));
  s2().synchronize();
  slow_scale(a, s1());
  ck::Array c = ck::matmul(x, a);  // on x's stream
  const auto sa = scaled(ha);
  std::vector<float> want(static_cast<std::size_t>(m * cols));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      double acc = 0;
      for (std::int64_t q = 0; q < k; ++q)
        acc += double(hx[static_cast<std::size_t>(i * k + q)]) *
               double(sa[static_cast<std::size_t>(q * cols + j)]);
      want[static_cast<std::size_t>(i * cols + j)] = static_cast<float>(acc);
    }
  const auto got = c.to_host<float>();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-3f * (1.0f + std::fabs(want[i]))) ++bad;
  EXPECT_EQ(bad, 0u) << "first: got " << got[0] << ", want " << want[0];
}

TEST_F(ArrayStreams, PutWaitsForValuesOnAnotherStream) {
  constexpr std::int64_t m = 101;
  std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<std::int64_t>(i);
  std::shuffle(positions.begin(), positions.end(), rng);
  positions.resize(static_cast<std::size_t>(m));
  const auto hv = random_values<float>(static_cast<std::size_t>(m));
  ck::Array indices = ck::from_host(positions.data(), {m}, ck::DType::int64, s2());
  ck::Array a = ck::zeros({n}, ck::DType::float32, s2());
  ck::Array values = on(s1(), hv);
  ck::Array warm = ck::zeros({n}, ck::DType::float32, s2());
  ck::put(warm, indices, on(s2(), hv));  // compiles the kernels
  slow_scale(values, s1());
  ck::put(a, indices, values);  // the scatter runs on a's stream
  std::vector<float> want(static_cast<std::size_t>(n), 0.0f);
  const auto sv = scaled(hv);
  for (std::size_t k = 0; k < positions.size(); ++k)
    want[static_cast<std::size_t>(positions[k])] = sv[k];
  expect_near_all(a.to_host<float>(), want);
}

TEST_F(ArrayStreams, ElementwiseKernelWaitsForArgumentsOnOtherStreams) {
  const auto ha = random_values<float>(n);
  ck::ElementwiseKernel plus_one("float* out, const float* x", "out[i] = x[i] + 1.0f",
                                 "ck_test_plus_one");
  ck::Array out = ck::empty({n}, ck::DType::float32, s2());
  plus_one({out, on(s2(), ha)});  // compiles the kernel
  ck::Array a = on(s1(), ha);
  slow_scale(a, s1());
  plus_one({out, a});  // on out's stream (the first array's)
  auto want = scaled(ha);
  for (auto& w : want) w += 1.0f;
  expect_near_all(out.to_host<float>(), want);
}

TEST_F(ArrayStreams, ReductionKernelWaitsForArgumentsOnOtherStreams) {
  const auto hx = random_values<float>(n), ha = random_values<float>(n);
  ck::ReductionKernel dot(ck::DType::float32, "0", "a + b", "x[i] * y[i]",
                          "const float* x, const float* y", "ck_test_dot");
  ck::Array x = on(s2(), hx);
  (void)dot(x, on(s2(), ha)).item();  // compiles the kernel
  ck::Array a = on(s1(), ha);
  slow_scale(a, s1());
  ck::Array result = dot(x, a);  // on x's stream
  const auto sa = scaled(ha);
  double want = 0, magnitude = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) {
    want += double(hx[i]) * double(sa[i]);
    magnitude += std::fabs(double(hx[i]) * double(sa[i]));
  }
  EXPECT_NEAR(result.item().as_double(), want, 1e-5 * magnitude);
}

TEST_F(ArrayStreams, CumsumWaitsForAnOperandOnAnotherStream) {
  const auto hx = random_values<float>(n), ha = random_values<float>(n);
  ck::Array x = on(s2(), hx);
  (void)ck::cumsum(ck::Expr(x) + on(s2(), ha)).to_host<float>();  // compiles the kernels
  ck::Array a = on(s1(), ha);
  slow_scale(a, s1());
  ck::Array c = ck::cumsum(ck::Expr(x) + a);  // on x's stream
  const auto sa = scaled(ha);
  const auto got = c.to_host<float>();
  double running = 0, magnitude = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) {
    running += double(hx[i]) + double(sa[i]);
    magnitude += std::fabs(double(hx[i])) + std::fabs(double(sa[i]));
    if (std::fabs(got[i] - running) > 1e-5 * magnitude + 1e-4) ++bad;
  }
  EXPECT_EQ(bad, 0u);
}

// The reverse hazard: `a` (allocated on s1) is read by a reduction queued on
// s2 behind a slow kernel, then dropped. The pool must not give its memory
// back on s1 (where a new array is filled at once) before s2 has read it.
TEST_F(ArrayStreams, MemoryReadOnAnotherStreamIsNotReusedBeforeThatRead) {
  const auto hx = random_values<float>(n), ha = random_values<float>(n);
  ck::Array x = on(s2(), hx);
  (void)ck::sum(ck::Expr(x) + on(s2(), ha)).item();  // compiles the kernel first
  ck::Array total;
  {
    ck::Array a = on(s1(), ha);
    slow_scale(x, s2());
    total = ck::sum(ck::Expr(x) + a);  // on s2, behind the slow kernel
  }
  // Same size class as `a`, on the stream it was freed on.
  ck::Array overwrite = ck::full({n}, 1000.0, ck::DType::float32, s1());
  s1().synchronize();
  double want = 0, magnitude = 0;
  const auto sx = scaled(hx);
  for (std::size_t i = 0; i < hx.size(); ++i) {
    want += double(sx[i]) + double(ha[i]);
    magnitude += std::fabs(double(sx[i])) + std::fabs(double(ha[i]));
  }
  EXPECT_NEAR(total.item().as_double(), want, 1e-5 * magnitude);
}

TEST_F(ArrayStreams, NonBlockingStreamWaitsForAnOperandOnTheDefaultStream) {
  const auto hx = random_values<float>(n), ha = random_values<float>(n);
  const ck::Stream legacy = device().default_stream();
  ck::Array x = on(s2(), hx);
  ck::Array a = on(legacy, ha);
  ck::Array warm = ck::Expr(x) - on(s2(), ha);  // the same kernel, on one stream
  slow_scale(a, legacy);
  ck::Array c = ck::Expr(x) - a;  // on s2, which does not sync with the default stream
  const auto sa = scaled(ha);
  std::vector<float> want(hx.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = hx[i] - sa[i];
  expect_near_all(c.to_host<float>(), want);
  legacy.synchronize();
}

// The two stream/event guarantees the ordering above relies on.
TEST_F(ArrayStreams, EventsRecordedBeforeAStreamSynchronizeAreComplete) {
  ck::Array busy = on(s1(), random_values<float>(n));
  slow_scale(busy, s1());
  ck::Event event = s1().record();
  s1().synchronize();
  EXPECT_TRUE(event.query());
}

TEST_F(ArrayStreams, EventMayBeDestroyedBeforeTheStreamWaitingOnItGetsThere) {
  const auto host = random_values<float>(n);
  ck::Array a = on(s1(), host);
  ck::Array busy = on(s2(), host);
  slow_scale(busy, s2());  // s2 reaches the wait only after the spin
  slow_scale(a, s1());
  {
    ck::Event event = s1().record();
    s2().wait(event);
  }  // destroyed while s2 still has the wait queued
  s2().synchronize();
  expect_near_all(a.to_host<float>(), scaled(host));
}

TEST_F(ArrayStreams, OperandsOnTheLaunchStreamNeedNoOrdering) {
  const auto hx = random_values<float>(n), ha = random_values<float>(n);
  ck::Array x = on(s1(), hx);
  ck::Array a = on(s1(), ha);
  slow_scale(a, s1());
  ck::Array c = ck::Expr(x) * a;  // same stream: ordered by the stream itself
  const auto sa = scaled(ha);
  std::vector<float> want(hx.size());
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = hx[i] * sa[i];
  expect_near_all(c.to_host<float>(), want);
  EXPECT_EQ(c.stream().native(), s1().native());
}

}  // namespace
}  // namespace array_test
