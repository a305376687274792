// The cached fast path of evaluating an expression into an array: calls of a
// shape seen before reuse the kernel and its parameter order. Each test
// checks the results against a host reference on fresh random inputs, that
// the fast path served the calls it should (and only those), and that every
// error of the general path is still raised on a hit.
#include <cmath>
#include <cstdint>
#include <vector>

#include "array/elementwise_eval.hpp"
#include "cudakit/detail/expr_codegen.hpp"
#include "cudakit/error.hpp"
#include "unit/array_test_support.hpp"

using namespace array_test;
using ck::DType;

namespace {

constexpr std::int64_t kN = 1003;  // not a multiple of a block or a vector

class ArrayFastPath : public ArrayTest {
 protected:
  std::vector<float> floats(std::int64_t n = kN) {
    return random_values<float>(static_cast<std::size_t>(n), -3.0, 3.0);
  }
  static std::uint64_t hits() { return ck::detail::elementwise_fast_hits(); }
  static std::uint64_t launches() { return ck::detail::array_kernel_launches(); }
};

void expect_near_all(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    ASSERT_NEAR(got[k], want[k], 1e-5 * (1 + std::fabs(want[k]))) << "at " << k;
}

TEST_F(ArrayFastPath, RepeatedShapeIsServedFromTheCacheWithOneLaunchEach) {
  ck::Array c = ck::empty({kN});
  for (int round = 0; round < 4; ++round) {
    auto ha = floats(), hb = floats();
    ck::Array a = ck::from_host(ha), b = ck::from_host(hb);
    std::uint64_t h0 = hits(), l0 = launches();
    c.assign(a + b);
    EXPECT_EQ(launches() - l0, 1u);
    if (round > 0) {
      EXPECT_EQ(hits() - h0, 1u) << "round " << round;
    }
    std::vector<double> want(ha.size());
    for (std::size_t k = 0; k < ha.size(); ++k) want[k] = double(ha[k] + hb[k]);
    expect_near_all(c.to_host<float>(), want);
  }
}

TEST_F(ArrayFastPath, ScalarValuesChangeBetweenHits) {
  auto ha = floats();
  ck::Array a = ck::from_host(ha), c = ck::empty({kN});
  for (double s : {2.5, -1.25, 7.0}) {
    c.assign(a * s + (s - 1.0));
    std::vector<double> want(ha.size());
    for (std::size_t k = 0; k < ha.size(); ++k) want[k] = double(ha[k]) * s + (s - 1.0);
    expect_near_all(c.to_host<float>(), want);
  }
}

TEST_F(ArrayFastPath, SharedOperandsAndScalarNodes) {
  auto ha = floats(), hb = floats();
  ck::Array a = ck::from_host(ha), b = ck::from_host(hb), c = ck::empty({kN});
  for (int round = 0; round < 2; ++round) {
    ck::Expr s = 0.5 + round;  // one scalar node used twice
    ck::Expr ab = a * b;       // one subtree used twice
    c.assign(ab * s + a * a - ab + b * s);
    std::vector<double> want(ha.size());
    for (std::size_t k = 0; k < ha.size(); ++k) {
      double x = ha[k], y = hb[k], sv = 0.5 + round;
      want[k] = x * y * sv + x * x - x * y + y * sv;
    }
    expect_near_all(c.to_host<float>(), want);
  }
}

TEST_F(ArrayFastPath, InPlaceUpdateOnTheSameArray) {
  auto ha = floats(), hb = floats();
  ck::Array a = ck::from_host(ha), b = ck::from_host(hb);
  std::vector<double> want(ha.begin(), ha.end());
  for (int round = 0; round < 3; ++round) {
    a += b * 2.0f;
    for (std::size_t k = 0; k < want.size(); ++k) want[k] = double(float(want[k]) + hb[k] * 2.0f);
  }
  expect_near_all(a.to_host<float>(), want);
}

TEST_F(ArrayFastPath, ShiftedOverlapTakesTheGeneralPathAndReadsTheOldValues) {
  auto hx = floats(kN + 1);
  ck::Array x = ck::from_host(hx);
  ck::Array dst = x.slice(0, 1, std::nullopt), src = x.slice(0, 0, kN);
  dst.assign(src + 1.0f);  // warm up whatever could be cached
  x = ck::from_host(hx);
  dst = x.slice(0, 1, std::nullopt);
  src = x.slice(0, 0, kN);
  std::uint64_t h0 = hits();
  dst.assign(src + 1.0f);
  EXPECT_EQ(hits(), h0) << "an overlapping shifted view must not take the fast path";
  auto got = x.to_host<float>();
  EXPECT_EQ(got[0], hx[0]);
  for (std::int64_t k = 0; k < kN; ++k)
    ASSERT_EQ(got[static_cast<std::size_t>(k + 1)], hx[static_cast<std::size_t>(k)] + 1.0f)
        << "at " << k;
}

TEST_F(ArrayFastPath, MisalignedViewsGetTheirOwnKernel) {
  auto ha = floats(kN + 1), hb = floats(kN + 1);
  ck::Array a = ck::from_host(ha), b = ck::from_host(hb), c = ck::empty({kN + 1});
  c.assign(a - b);  // aligned: vector loads
  c.assign(a - b);
  ck::Array c1 = c.slice(0, 1, std::nullopt);
  for (int round = 0; round < 2; ++round)
    c1.assign(a.slice(0, 1, std::nullopt) - b.slice(0, 0, kN));
  auto got = c.to_host<float>();
  EXPECT_EQ(got[0], ha[0] - hb[0]);
  for (std::size_t k = 1; k < got.size(); ++k) ASSERT_EQ(got[k], ha[k] - hb[k - 1]) << "at " << k;
}

TEST_F(ArrayFastPath, MixedDtypesPromoteAndCastOnHits) {
  auto hi = random_values<std::int8_t>(kN, -100, 100);
  auto hf = floats();
  ck::Array i8 = ck::from_host(hi), f32 = ck::from_host(hf);
  ck::Array out64 = ck::empty({kN}, DType::float64), out16 = ck::empty({kN}, DType::int16);
  for (int round = 0; round < 2; ++round) {
    out64.assign(i8 * f32 + 0.5);  // float32 result, widened on store
    out16.assign(i8 + i8);         // int8 + int8 wraps in int8, then widens
    auto g64 = out64.to_host<double>();
    auto g16 = out16.to_host<std::int16_t>();
    for (std::size_t k = 0; k < hf.size(); ++k) {
      // A GPU may fuse the multiply-add (one rounding): allow a few float ulps.
      const double expected = double(float(hi[k]) * hf[k] + 0.5f);
      ASSERT_NEAR(g64[k], expected, 4 * 1.1920929e-7 * std::abs(expected) + 1e-6) << "at " << k;
      ASSERT_EQ(g16[k], std::int16_t(std::int8_t(hi[k] + hi[k]))) << "at " << k;
    }
  }
}

TEST_F(ArrayFastPath, SameKindCastingErrorIsRaisedOnEveryCall) {
  ck::Array i32 = ck::from_host(random_values<std::int32_t>(kN, 1, 50));
  ck::Array f = ck::from_host(floats());
  for (int round = 0; round < 3; ++round) EXPECT_THROW(i32 += f, ck::ArgumentError);
  i32.assign(f * 2.0f);  // assign casts like a[...] = x
  i32.assign(f * 2.0f);
  EXPECT_EQ(i32.dtype(), DType::int32);
}

TEST_F(ArrayFastPath, ReadOnlyDestinationIsRefusedOnEveryCall) {
  ck::Array a = ck::from_host(floats());
  ck::Array c = ck::empty({kN});
  c.assign(a + a);
  c.assign(a + a);
  c.set_readonly(true);
  for (int round = 0; round < 2; ++round) EXPECT_THROW(c.assign(a + a), ck::ArgumentError);
}

TEST_F(ArrayFastPath, ViewsOfRawAddressesMadePerCallHit) {
  auto ha = floats(), hb = floats();
  ck::Array a = ck::from_host(ha), b = ck::from_host(hb), c = ck::empty({kN});
  const ck::Shape shape{kN};
  auto view = [&](const ck::Array& x) {
    return ck::from_pointer(x.address(), shape, {}, DType::float32, device());
  };
  view(c).assign(view(a) * view(b));
  std::uint64_t h0 = hits();
  for (int round = 0; round < 3; ++round) view(c).assign(view(a) * view(b));
  EXPECT_EQ(hits() - h0, 3u);
  std::vector<double> want(ha.size());
  for (std::size_t k = 0; k < ha.size(); ++k) want[k] = double(ha[k] * hb[k]);
  expect_near_all(c.to_host<float>(), want);
}

TEST_F(ArrayFastPath, LargeTreesFallBackAndStayCorrect) {
  std::vector<std::vector<float>> hosts;
  std::vector<ck::Array> arrays;
  for (int k = 0; k < 20; ++k) {
    hosts.push_back(floats());
    arrays.push_back(ck::from_host(hosts.back()));
  }
  ck::Expr e = arrays[0];
  for (int k = 1; k < 20; ++k) e = e + arrays[static_cast<std::size_t>(k)];
  ck::Array c = ck::empty({kN});
  std::uint64_t h0 = hits();
  c.assign(e);
  c.assign(e);
  EXPECT_EQ(hits(), h0) << "20 operands are more than the fast path takes";
  std::vector<double> want(static_cast<std::size_t>(kN), 0.0);
  for (std::size_t k = 0; k < want.size(); ++k) {
    float acc = hosts[0][k];
    for (int j = 1; j < 20; ++j) acc += hosts[static_cast<std::size_t>(j)][k];
    want[k] = acc;
  }
  expect_near_all(c.to_host<float>(), want);
}

TEST_F(ArrayFastPath, BroadcastOperandsTakeTheGeneralPath) {
  auto hm = floats(kN * 3), hr = floats(kN);
  ck::Array m = ck::from_host(hm, {3, kN}), row = ck::from_host(hr), out = ck::empty({3, kN});
  std::uint64_t h0 = hits();
  out.assign(m + row);
  out.assign(m + row);
  EXPECT_EQ(hits(), h0);
  auto got = out.to_host<float>();
  for (std::size_t k = 0; k < got.size(); ++k)
    ASSERT_EQ(got[k], hm[k] + hr[k % static_cast<std::size_t>(kN)]) << "at " << k;
}

TEST_F(ArrayFastPath, OperandOnAnotherStreamTakesTheGeneralPath) {
  auto ha = floats(), hb = floats();
  ck::Stream side = device().create_stream();
  ck::Array a = ck::from_host(ha.data(), {kN}, DType::float32, side);
  ck::Array b = ck::from_host(hb), c = ck::empty({kN});
  c.assign(b + b);
  std::uint64_t h0 = hits();
  c.assign(a + b);
  c.assign(a + b);
  EXPECT_EQ(hits(), h0) << "the general path orders the streams";
  std::vector<double> want(ha.size());
  for (std::size_t k = 0; k < ha.size(); ++k) want[k] = double(ha[k] + hb[k]);
  expect_near_all(c.to_host<float>(), want);
}

}  // namespace
