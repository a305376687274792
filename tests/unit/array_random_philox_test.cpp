// The host reference Philox4x32-10 against the known-answer vectors
// published with Random123, so the kernels are checked against a reference
// that is itself checked.
#include <gtest/gtest.h>

#include "unit/array_random_reference.hpp"

namespace {

using cudakit_test::philox4x32_10;

TEST(ArrayRandomPhilox, ZeroCounterAndKeyGiveThePublishedWords) {
  const auto w = philox4x32_10({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(w[0], 0x6627e8d5u);
  EXPECT_EQ(w[1], 0xe169c58du);
  EXPECT_EQ(w[2], 0xbc57ac4cu);
  EXPECT_EQ(w[3], 0x9b00dbd8u);
}

TEST(ArrayRandomPhilox, AllOnesCounterAndKeyGiveThePublishedWords) {
  const auto w = philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                               {0xffffffffu, 0xffffffffu});
  EXPECT_EQ(w[0], 0x408f276du);
  EXPECT_EQ(w[1], 0x41c83b0eu);
  EXPECT_EQ(w[2], 0xa20bc7c6u);
  EXPECT_EQ(w[3], 0x6d5451fdu);
}

TEST(ArrayRandomPhilox, PiDigitsCounterAndKeyGiveThePublishedWords) {
  const auto w = philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                               {0xa4093822u, 0x299f31d0u});
  EXPECT_EQ(w[0], 0xd16cfe09u);
  EXPECT_EQ(w[1], 0x94fdccebu);
  EXPECT_EQ(w[2], 0x5001e420u);
  EXPECT_EQ(w[3], 0x24126ea1u);
}

TEST(ArrayRandomPhilox, UniformValuesLieInTheHalfOpenUnitInterval) {
  for (std::uint64_t e = 0; e < 4096; ++e) {
    const float f = cudakit_test::uniform_f32(7, 0, e);
    const double d = cudakit_test::uniform_f64(7, 0, e);
    ASSERT_GE(f, 0.0f);
    ASSERT_LT(f, 1.0f);
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
  }
}

}  // namespace
