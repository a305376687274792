// Cross-stream ordering of array operations at GPU sizes: many streams
// writing operands that one stream combines, with the launches of all of
// them in flight at once. (The behaviours themselves are tested on both
// backends by unit/array_streams_test.cpp, built for the GPU too.)
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cudakit/array.hpp"
#include "cudakit/array_expr.hpp"
#include "cudakit/array_reduce.hpp"
#include "cudakit/memory_pool.hpp"
#include "unit/array_test_support.hpp"
#include "unit/stream_test_fixture.hpp"
#include "unit/stream_test_kernels.hpp"

namespace array_test {
namespace {

class ArrayStreamsGpu : public StreamTest {};

// Eight producers, each a stream whose array is written by a slow kernel
// (serial over its elements, so a few thousand of them), then one stream
// sums them all in one fused kernel.
TEST_F(ArrayStreamsGpu, FusedExpressionWaitsForEightProducerStreams) {
  constexpr int producers = 8;
  constexpr std::int64_t n = 3001;
  ck::Stream consumer = device().create_stream();
  std::vector<ck::Stream> streams;
  std::vector<ck::Array> parts;
  std::vector<std::vector<float>> hosts;
  for (int p = 0; p < producers; ++p) {
    streams.push_back(device().create_stream());
    hosts.push_back(random_values<float>(n));
    parts.push_back(ck::from_host(hosts.back().data(), {n}, ck::DType::float32, streams.back()));
    streams.back().synchronize();
  }
  ck::Expr total = ck::Expr(parts[0]);
  for (int p = 1; p < producers; ++p) total = total + parts[static_cast<std::size_t>(p)];
  ck::Array out = ck::empty({n}, ck::DType::float32, consumer);
  out.assign(total);  // compiles the kernel
  consumer.synchronize();
  for (int p = 0; p < producers; ++p)
    slow_scale(parts[static_cast<std::size_t>(p)], streams[static_cast<std::size_t>(p)]);
  out.assign(total);
  const auto got = out.to_host<float>();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    double want = 0;
    for (const auto& h : hosts) want += double(h[i]) * 2.0 + 1.0;
    if (std::fabs(got[i] - want) > 1e-4 * (1.0 + std::fabs(want))) ++bad;
  }
  EXPECT_EQ(bad, 0u);
  for (auto& s : streams) s.synchronize();
}

// 2^26 floats rewritten on one stream behind a slow kernel, reduced on
// another: the reduction must see every write.
TEST_F(ArrayStreamsGpu, LargeReductionOnAnotherStreamSeesTheWrites) {
  constexpr std::int64_t n = (std::int64_t{1} << 26) + 3;
  ck::Stream s1 = device().create_stream(), s2 = device().create_stream();
  ck::Array ones = ck::ones({n}, ck::DType::float32, s1);
  ck::Array zero = ck::zeros({n}, ck::DType::float32, s2);
  ck::Array busy = ck::ones({1237}, ck::DType::float32, s1);
  (void)ck::sum(ck::Expr(zero) + ones).item();  // compiles the kernels
  ones.assign(ck::Expr(ones) * 0.0f + 1.0f);
  s1.synchronize();
  slow_scale(busy, s1);
  ones.assign(ck::Expr(ones) * 0.0f + 2.0f);         // on s1, behind the slow kernel
  ck::Array total = ck::sum(ck::Expr(zero) + ones);  // on s2
  const double want = 2.0 * static_cast<double>(n);
  EXPECT_NEAR(total.item().as_double(), want, 1e-6 * want);
}

// Arrays made and dropped on several streams in turn reuse one another's
// memory through the pool without corrupting results.
TEST_F(ArrayStreamsGpu, ArraysDroppedOnOneStreamAreReusedSafelyOnOthers) {
  constexpr std::int64_t n = (std::int64_t{1} << 20) + 7;
  std::vector<ck::Stream> streams;
  for (int s = 0; s < 4; ++s) streams.push_back(device().create_stream());
  const auto before = ck::MemoryPool::of(device()).stats();
  for (int round = 0; round < 40; ++round) {
    const ck::Stream& a_stream = streams[static_cast<std::size_t>(round % 4)];
    const ck::Stream& b_stream = streams[static_cast<std::size_t>((round + 1) % 4)];
    ck::Array a = ck::full({n}, double(round + 1), ck::DType::float32, a_stream);
    ck::Array b = ck::full({n}, 0.5, ck::DType::float32, b_stream);
    ck::Array c = ck::Expr(b) + a;  // on b's stream, reading a from a_stream
    const double want = (round + 1.5) * static_cast<double>(n);
    EXPECT_NEAR(ck::sum(c).item().as_double(), want, 1e-6 * want) << "round " << round;
  }
  EXPECT_GT(ck::MemoryPool::of(device()).stats().hits, before.hits);
}

}  // namespace
}  // namespace array_test
