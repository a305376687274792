// The tables of the GPU's approximate functions (sine/cosine, 2^x, log2,
// rsqrt, reciprocal) that the CPU backend carries (src/backend/cpu/approx_tables/*.bin) decode to
// what the H200 measured, and the rules of prelude/cudakit_cpu_approx_math.h built on them give the
// H200's bits at inputs read there. (All 2^32 inputs were compared on the H200 itself:
// scripts/probes/approx_math.cu.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backend/cpu/approx_tables.hpp"
#include "backend/cpu/prelude/cudakit_cpu_approx_math.h"

namespace cudakit::test {
namespace {

using detail::cpu::approx_table;

unsigned bits_of(float f) {
  unsigned b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

TEST(CpuApproxTables, DecodeWithTheirKnownPoints) {
  const unsigned* half_turn = approx_table(cudakit_cpu::kApproxHalfTurn);
  const unsigned* fraction = approx_table(cudakit_cpu::kApproxFraction);
  ASSERT_NE(half_turn, nullptr) << "no libz.so.1, or the tables in the library are damaged";
  ASSERT_NE(fraction, nullptr);
  EXPECT_EQ(half_turn[0], 0u);                  // sin(0)
  EXPECT_EQ(half_turn[1u << 23], 0x3f800000u);  // sin(a quarter turn) = 1
  EXPECT_EQ(fraction[0], 0x3f800000u);          // 2^0 = 1
  EXPECT_EQ(approx_table(cudakit_cpu::kApproxHalfTurn), half_turn) << "decoded once";
  // Every entry within the hardware's documented error.
  double worst_sine = 0, worst_exp2 = 0;
  for (unsigned q = 0; q < cudakit_approx::kHalfTurnEntries; q += 7) {
    const double exact = std::sin(2 * M_PI * q * 0x1p-25);
    worst_sine = std::max(worst_sine, std::fabs(cudakit_approx::from_bits(half_turn[q]) - exact));
  }
  for (unsigned f = 0; f < cudakit_approx::kFractionEntries; f += 5) {
    const double exact = std::exp2(f * 0x1p-23);
    worst_exp2 =
        std::max(worst_exp2, std::fabs(cudakit_approx::from_bits(fraction[f]) / exact - 1));
  }
  EXPECT_LT(worst_sine, std::ldexp(1.0, -21)) << "MUFU.SIN: absolute error about 2^-21.4";
  EXPECT_LT(worst_exp2, std::ldexp(1.0, -22)) << "MUFU.EX2: relative error about 2^-22.5";
}

TEST(CpuApproxTables, RulesGiveTheH200sBits) {
  const unsigned* half_turn = approx_table(cudakit_cpu::kApproxHalfTurn);
  const unsigned* fraction = approx_table(cudakit_cpu::kApproxFraction);
  ASSERT_NE(half_turn, nullptr);
  ASSERT_NE(fraction, nullptr);
  // ex2.approx.ftz.f32 (x, H200 result): both signs, off the 2^-23 grid,
  // large and tiny results.
  struct Case {
    unsigned x, y;
  };
  for (const Case c : {Case{0x3f800000u, 0x40000000u}, Case{0xbf800000u, 0x3f000000u},
                       Case{0x00000000u, 0x3f800000u}, Case{0x80000000u, 0x3f800000u},
                       Case{0x43000000u, 0x7f800000u}, Case{0xc3000000u, 0x00000000u},
                       Case{0x7fc00000u, 0x7fffffffu}})
    EXPECT_EQ(bits_of(cudakit_approx::ex2_approx(fraction, cudakit_approx::from_bits(c.x))), c.y)
        << std::hex << "ex2.approx of 0x" << c.x;
  // lg2.approx.ftz, rsqrt.approx.ftz, rcp.approx.ftz (the H200's bits).
  const unsigned* below = approx_table(cudakit_cpu::kApproxLog2Below);
  const unsigned* above = approx_table(cudakit_cpu::kApproxLog2Above);
  const unsigned* rsqrt = approx_table(cudakit_cpu::kApproxRsqrt);
  const unsigned* reciprocal = approx_table(cudakit_cpu::kApproxReciprocal);
  ASSERT_TRUE(below && above && rsqrt && reciprocal);
  EXPECT_EQ(bits_of(cudakit_approx::lg2_approx(below, above, 300.0f)), 0x4103a93du)
      << "the SFU's, not log2(300) rounded (0x4103a93e)";
  EXPECT_EQ(cudakit_approx::lg2_approx(below, above, 1.0f), 0.0f);
  EXPECT_EQ(cudakit_approx::lg2_approx(below, above, 0.0f), -INFINITY);
  EXPECT_EQ(cudakit_approx::lg2_approx(below, above, 1e-40f), -INFINITY) << "flushed subnormal";
  EXPECT_TRUE(std::isnan(cudakit_approx::lg2_approx(below, above, -2.0f)));
  EXPECT_EQ(cudakit_approx::rsqrt_approx(rsqrt, 4.0f), 0.5f);
  EXPECT_EQ(cudakit_approx::rsqrt_approx(rsqrt, -0.0f), -INFINITY);
  EXPECT_EQ(cudakit_approx::rsqrt_approx(rsqrt, INFINITY), 0.0f);
  EXPECT_TRUE(std::isnan(cudakit_approx::rsqrt_approx(rsqrt, -1.0f)));
  EXPECT_EQ(cudakit_approx::rcp_approx(reciprocal, -2.0f), -0.5f);
  EXPECT_EQ(cudakit_approx::rcp_approx(reciprocal, 0.0f), INFINITY);
  EXPECT_EQ(bits_of(cudakit_approx::rcp_approx(reciprocal, -3e38f)), 0x80000000u) << "flushed";
  // logf is the CUDA math library's, step for step (no table).
  EXPECT_EQ(cudakit_approx::gpu_logf(1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(cudakit_approx::gpu_logf(-1.0f)));
  EXPECT_EQ(cudakit_approx::gpu_logf(0.0f), -INFINITY);
  EXPECT_EQ(cudakit_approx::gpu_expf(fraction, 0.0f), 1.0f);
  EXPECT_EQ(cudakit_approx::gpu_expf(fraction, 100.0f), INFINITY);
  EXPECT_EQ(cudakit_approx::gpu_expf(fraction, -200.0f), 0.0f);
}

}  // namespace
}  // namespace cudakit::test
