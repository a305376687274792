// Sources with #if regions on the CPU backend: what the preprocessor drops
// is not there (no kernel, no global, no refused construct), what the scan
// cannot tell is decided by the host compiler, and the #if evaluation itself
// (backend/cpu/preprocessor_conditions.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/cpu/preprocessor_conditions.hpp"
#include "cpu_test_util.hpp"
#include "cudakit/error.hpp"

namespace cudakit::test {
namespace {

using detail::cpu::ConditionTracker;
using detail::cpu::evaluate_condition;

std::optional<long long> eval(const std::string& expression) {
  const std::map<std::string, std::optional<long long>> known = {
      {"TWO", 2}, {"TEXT", std::nullopt}, {"ZERO", 0}};
  const std::set<std::string> undefined = {"GONE"};
  return evaluate_condition(expression, known, undefined);
}

TEST(PreprocessorConditions, KnownMacrosAndLiteralsAreEvaluated) {
  EXPECT_EQ(eval("0"), 0);
  EXPECT_EQ(eval("TWO + 1 == 3"), 1);
  EXPECT_EQ(eval("defined(TWO) && !defined GONE"), 1);
  EXPECT_EQ(eval("0x10 >> 4 | 0b10"), 3);
  EXPECT_EQ(eval("(TWO > 1) ? 5 : 6"), 5);
  EXPECT_EQ(eval("GONE"), 0);  // an undefined name is 0
  EXPECT_EQ(eval("-TWO * 3 % 4"), -2);
  EXPECT_EQ(eval("1'000 / 10"), 100);
  // Overflow wraps instead of being undefined behaviour here.
  EXPECT_EQ(eval("-9223372036854775807 - 1 < 0"), 1);
  EXPECT_EQ(eval("(-9223372036854775807 - 1) / -1"), std::nullopt);
}

TEST(PreprocessorConditions, WhatCannotBeToldIsUnknownUnlessItCannotMatter) {
  EXPECT_EQ(eval("FROM_A_HEADER"), std::nullopt);
  EXPECT_EQ(eval("defined(FROM_A_HEADER)"), std::nullopt);
  EXPECT_EQ(eval("TEXT"), std::nullopt);  // defined, not to an integer
  EXPECT_EQ(eval("MACRO(1) > 0"), std::nullopt);
  EXPECT_EQ(eval("'a' == 97"), std::nullopt);
  EXPECT_EQ(eval("TWO / ZERO"), std::nullopt);
  EXPECT_EQ(eval("1 +"), std::nullopt);  // malformed
  EXPECT_EQ(eval("ZERO && FROM_A_HEADER"), 0);
  EXPECT_EQ(eval("TWO || FROM_A_HEADER"), 1);
}

TEST(PreprocessorConditions, TrackerFollowsChainsDefinesAndGuards) {
  ConditionTracker t({{"FAST", ""}, {"LEVEL", "3"}});
  EXPECT_TRUE(t.kept());
  t.directive("ifndef", "MY_HEADER_H");  // an include guard
  t.directive("define", "MY_HEADER_H");
  EXPECT_TRUE(t.kept());
  EXPECT_EQ(t.condition(), "");
  t.directive("if", "LEVEL > 2 && defined(FAST)");
  EXPECT_TRUE(t.kept());
  t.directive("define", "STEP (LEVEL * 2)");
  t.directive("if", "STEP == 6");
  EXPECT_TRUE(t.kept());
  t.directive("else", "");
  EXPECT_FALSE(t.kept());
  t.directive("endif", "");
  t.directive("elif", "1");
  EXPECT_FALSE(t.kept());  // an earlier branch was kept
  t.directive("endif", "");
  t.directive("undef", "LEVEL");
  t.directive("if", "LEVEL");
  EXPECT_FALSE(t.kept());
  t.directive("elif", "FROM_A_HEADER");
  EXPECT_TRUE(t.kept());
  EXPECT_EQ(t.condition(), "((FROM_A_HEADER))");
  t.directive("else", "");
  EXPECT_EQ(t.condition(), "(!(FROM_A_HEADER) && (1))");
  t.directive("endif", "");
  t.directive("endif", "");  // the guard's
  EXPECT_TRUE(t.kept());
  EXPECT_EQ(t.condition(), "");
}

TEST(CpuConditional, ADeclarationTheSourceSwitchesOffIsNotThere) {
  CpuModuleHandle m(R"(
#define DYNAMIC 0
#if DYNAMIC
__device__ unsigned tickets;
__global__ void take(unsigned* p) { p[0] = atomicAdd(&tickets, 1u); }
#endif
__global__ void fill(int* p, int v) { p[threadIdx.x] = v; }
)");
  CpuBuffer<int> d(8);
  m.run("fill", Dim3(1), Dim3(8), d.get(), 3);
  for (int v : d.to_host()) EXPECT_EQ(v, 3);
  EXPECT_THROW(cpu().get_global(m.native(), "tickets"), ArgumentError);
  EXPECT_THROW(cpu().get_kernel(m.native(), "take"), ArgumentError);
}

TEST(CpuConditional, GpuOnlyCodeBehindCudakitCpuIsNotRefused) {
  CpuModuleHandle m(R"(
__device__ unsigned lane_id() {
#ifndef __CUDAKIT_CPU__
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
#else
  return threadIdx.x % 32;
#endif
}
#if 0
__global__ void texture_only(cudaTextureObject_t t, float* out) { out[0] = tex1Dfetch<float>(t, 0); }
#endif
__global__ void lanes(unsigned* p) { p[threadIdx.x] = lane_id(); }
)");
  CpuBuffer<unsigned> d(40);
  m.run("lanes", Dim3(1), Dim3(40), d.get());
  const auto r = d.to_host();
  for (unsigned i = 0; i < 40; ++i) EXPECT_EQ(r[i], i % 32) << i;
}

// FAST comes from an in-memory header, which the scan does not read for
// macros: it cannot tell the branch, so both kernels are scanned (they are
// alternatives, not overloads) and the host compiler keeps the one compiled.
TEST(CpuConditional, TheHostCompilerDecidesWhatTheScanCannotTell) {
  for (const bool fast : {true, false}) {
    CompileOptions options;
    options.headers = {{"config.h", fast ? "#define FAST 1\n" : "\n"}};
    CpuModuleHandle m(R"(
#include "config.h"
#ifdef FAST
__device__ int mode = 2;
__global__ void scale(int* p) { p[threadIdx.x] = 2 * threadIdx.x; }
#else
__global__ void scale(int* p) { p[threadIdx.x] = 3 * threadIdx.x; }
#endif
)",
                      options);
    CpuBuffer<int> d(16);
    m.run("scale", Dim3(1), Dim3(16), d.get());
    const auto r = d.to_host();
    for (int i = 0; i < 16; ++i) EXPECT_EQ(r[i], (fast ? 2 : 3) * i) << fast;
    if (fast)
      EXPECT_EQ(cpu().get_global(m.native(), "mode").second, sizeof(int));
    else
      EXPECT_THROW(cpu().get_global(m.native(), "mode"), ArgumentError);
  }
}

TEST(CpuConditional, DefinesFromTheOptionsPickTheBranch) {
  for (const char* level : {"1", "2"}) {
    CompileOptions options;
    options.defines = {{"LEVEL", level}};
    CpuModuleHandle m(R"(
#if LEVEL == 1
__global__ void k(int* p) { p[0] = 10; }
#elif LEVEL == 2
__global__ void k(int* p) { p[0] = 20; }
#endif
)",
                      options);
    CpuBuffer<int> d(1);
    m.run("k", Dim3(1), Dim3(1), d.get());
    EXPECT_EQ(d.to_host()[0], std::stoi(level) * 10);
  }
}

TEST(CpuConditional, TwoDefinitionsBothCompiledAreStillAnOverload) {
  try {
    CpuModuleHandle m(R"(
#ifdef FROM_A_HEADER
#endif
__global__ void k(int* p) { p[0] = 1; }
__global__ void k(float* p) { p[0] = 1.0f; }
)");
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.what(), "overloaded")) << e.what();
  }
}

}  // namespace
}  // namespace cudakit::test
