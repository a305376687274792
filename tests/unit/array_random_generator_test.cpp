// The random generator on the CPU backend: the generated kernels against the
// independent host Philox reference (array_random_reference.hpp), draw
// bookkeeping, rough distribution moments, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "cudakit/array_random.hpp"
#include "cudakit/error.hpp"
#include "unit/array_random_reference.hpp"

namespace {

using namespace cudakit;

class ArrayRandom : public ::testing::Test {
 protected:
  Device device = Device::get(BackendKind::cpu, 0);
  DeviceScope scope{device};
  Stream stream = device.default_stream();
};

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

template <class T>
double mean_of(const std::vector<T>& v) {
  double s = 0;
  for (auto x : v) s += static_cast<double>(x);
  return s / static_cast<double>(v.size());
}

template <class T>
double variance_of(const std::vector<T>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (auto x : v) s += (static_cast<double>(x) - m) * (static_cast<double>(x) - m);
  return s / static_cast<double>(v.size());
}

TEST_F(ArrayRandom, UniformFloat32IsBitIdenticalToTheHostReference) {
  Generator g(0x1234abcdULL, stream);
  const auto got = g.random({1001}, DType::float32).to_host<float>();
  for (std::size_t e = 0; e < got.size(); ++e)
    ASSERT_EQ(bits_of(got[e]), bits_of(cudakit_test::uniform_f32(0x1234abcdULL, 0, e)))
        << "element " << e;
}

TEST_F(ArrayRandom, UniformFloat64IsBitIdenticalToTheHostReference) {
  Generator g(99, stream);
  const auto got = g.random({3, 337}, DType::float64).to_host<double>();
  for (std::size_t e = 0; e < got.size(); ++e)
    ASSERT_EQ(got[e], cudakit_test::uniform_f64(99, 0, e)) << "element " << e;
}

TEST_F(ArrayRandom, SecondDrawStartsAtTheAdvancedOffset) {
  Generator g(5, stream);
  (void)g.random({1001}, DType::float32);
  EXPECT_EQ(g.offset(), 251u);  // ceil(1001 / 4) counters
  const auto got = g.random({10}, DType::float32).to_host<float>();
  for (std::size_t e = 0; e < got.size(); ++e)
    ASSERT_EQ(bits_of(got[e]), bits_of(cudakit_test::uniform_f32(5, 251, e)));
}

TEST_F(ArrayRandom, SameSeedGivesTheSameSequenceOfDraws) {
  Generator g1(42, stream), g2(42, stream);
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(g1.normal(1.0, 2.0, {777}, DType::float64).to_host<double>(),
              g2.normal(1.0, 2.0, {777}, DType::float64).to_host<double>());
}

TEST_F(ArrayRandom, DifferentSeedsGiveDifferentNumbers) {
  Generator g1(1, stream), g2(2, stream);
  EXPECT_NE(g1.random({64}, DType::float32).to_host<float>(),
            g2.random({64}, DType::float32).to_host<float>());
}

TEST_F(ArrayRandom, UniformRangeIsScaled) {
  Generator g(7, stream);
  const auto got = g.uniform(-3.0, 5.0, {4099}, DType::float64).to_host<double>();
  for (std::size_t e = 0; e < got.size(); ++e)
    ASSERT_DOUBLE_EQ(got[e], -3.0 + 8.0 * cudakit_test::uniform_f64(7, 0, e));
}

TEST_F(ArrayRandom, NormalFloat32MatchesTheHostReference) {
  Generator g(2024, stream);
  const auto got = g.standard_normal({4097}, DType::float32).to_host<float>();
  for (std::size_t e = 0; e < got.size(); ++e) {
    const float want = cudakit_test::normal_f32(2024, 0, e);
    ASSERT_NEAR(got[e], want, 2e-6f * std::max(1.0f, std::fabs(want))) << "element " << e;
  }
}

TEST_F(ArrayRandom, NormalFloat64MatchesTheHostReference) {
  Generator g(77, stream);
  const auto got = g.normal(0.5, 3.0, {2049}, DType::float64).to_host<double>();
  for (std::size_t e = 0; e < got.size(); ++e) {
    const double want = 0.5 + 3.0 * cudakit_test::normal_f64(77, 0, e);
    ASSERT_NEAR(got[e], want, 1e-12 * std::max(1.0, std::fabs(want))) << "element " << e;
  }
}

TEST_F(ArrayRandom, IntegersAreBitIdenticalToTheHostReference) {
  Generator g(11, stream);
  const auto small = g.integers(-5, 17, {1003}, DType::int32).to_host<std::int32_t>();
  for (std::size_t e = 0; e < small.size(); ++e)
    ASSERT_EQ(small[e], cudakit_test::integer32(11, 0, e, -5, 22)) << "element " << e;
  const std::uint64_t offset = g.offset();
  const std::int64_t low = -(std::int64_t{1} << 40), high = std::int64_t{1} << 41;
  const auto wide = g.integers(low, high, {501}, DType::int64).to_host<std::int64_t>();
  for (std::size_t e = 0; e < wide.size(); ++e)
    ASSERT_EQ(wide[e],
              cudakit_test::integer64(11, offset, e, low, static_cast<std::uint64_t>(high - low)))
        << "element " << e;
}

TEST_F(ArrayRandom, UniformMomentsAreThoseOfTheUnitInterval) {
  Generator g(314, stream);
  const auto v = g.random({200003}, DType::float32).to_host<float>();
  EXPECT_NEAR(mean_of(v), 0.5, 0.005);
  EXPECT_NEAR(variance_of(v), 1.0 / 12.0, 0.002);
  for (float x : v) ASSERT_TRUE(x >= 0.0f && x < 1.0f);
}

TEST_F(ArrayRandom, NormalMomentsMatchMeanAndStddev) {
  Generator g(2718, stream);
  const auto v = g.normal(2.0, 0.5, {200001}, DType::float32).to_host<float>();
  EXPECT_NEAR(mean_of(v), 2.0, 0.01);
  EXPECT_NEAR(std::sqrt(variance_of(v)), 0.5, 0.01);
}

TEST_F(ArrayRandom, LognormalMeanIsExpOfMuPlusHalfSigmaSquared) {
  Generator g(1618, stream);
  const auto v = g.lognormal(0.1, 0.25, {200001}, DType::float64).to_host<double>();
  EXPECT_NEAR(mean_of(v), std::exp(0.1 + 0.25 * 0.25 / 2), 0.01);
  for (double x : v) ASSERT_GT(x, 0.0);
}

TEST_F(ArrayRandom, IntegersCoverTheRangeAndStayInIt) {
  Generator g(9, stream);
  const auto v = g.integers(3, 10, {5001}, DType::int64).to_host<std::int64_t>();
  std::set<std::int64_t> seen(v.begin(), v.end());
  EXPECT_EQ(seen, (std::set<std::int64_t>{3, 4, 5, 6, 7, 8, 9}));
}

TEST_F(ArrayRandom, IntegersWithHighNotAboveLowAreAnError) {
  Generator g(1, stream);
  EXPECT_THROW(g.integers(5, 5, {10}), ArgumentError);
}

TEST_F(ArrayRandom, IntegersOutsideTheDtypeAreAnError) {
  Generator g(1, stream);
  EXPECT_THROW(g.integers(0, 300, {10}, DType::uint8), ArgumentError);
  EXPECT_THROW(g.integers(0, 3, {10}, DType::float32), ArgumentError);
}

TEST_F(ArrayRandom, UniformOfAnIntegerDtypeIsAnError) {
  Generator g(1, stream);
  EXPECT_THROW(g.uniform(0.0, 1.0, {10}, DType::int32), ArgumentError);
}

TEST_F(ArrayRandom, NegativeStddevIsAnError) {
  Generator g(1, stream);
  EXPECT_THROW(g.normal(0.0, -1.0, {10}), ArgumentError);
}

}  // namespace
