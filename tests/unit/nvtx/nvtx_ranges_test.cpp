// NVTX ranges as a tool sees them: the program runs again as a child with
// NVTX_INJECTION64_PATH naming a fake injection library (built with the
// tests) that logs every range, as Nsight Systems would record it. A
// compile, a copy and a launch each produce a range in cudakit's words; the
// ranges nest (every push popped); and without a tool attached nothing is
// loaded or logged.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cudakit/cudakit.hpp"
#include "unit/child_process.hpp"

namespace {

bool is_child() { return std::getenv("CUDAKIT_TEST_NVTX_CHILD") != nullptr; }

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool contains(const std::vector<std::string>& lines, const std::string& line) {
  for (const auto& l : lines)
    if (l == line) return true;
  return false;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

TEST(NvtxChild, CompileCopyLaunch) {
  if (!is_child()) GTEST_SKIP() << "runs only as the child";
  namespace ck = cudakit;
  ck::CompileOptions options;
  options.use_cache = false;  // a real compile, so that it has its range
  ck::Module m = ck::compile(R"(
__global__ void nvtx_scale(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= 3.0f; }
)",
                             options);
  std::vector<float> host(1000, 2.0f);
  ck::DeviceBuffer<float> p(1000);
  p.copy_from(host);
  m.kernel("nvtx_scale").launch(ck::grid_for(1000, 128), p, 1000);
  // A fused array expression: its range carries the expression.
  ck::Array a = ck::from_host(host);
  ck::Array out = ck::empty({1000});
  out.assign(a * 2.0 + a);
  EXPECT_EQ(p.to_host()[999], 6.0f);
  EXPECT_EQ(out.to_host<float>()[999], 6.0f);
}

std::string log_path(const char* tag) {
  return ::testing::TempDir() + "cudakit_nvtx_" + tag + "_" + std::to_string(::getpid()) + ".log";
}

std::string run_child(const std::string& environment) {
  return ::test::run_process(environment + " CUDAKIT_TEST_NVTX_CHILD=1 " + ::test::self_path() +
                             " --gtest_filter=NvtxChild.CompileCopyLaunch 2>&1")
      .output;
}

TEST(NvtxRanges, ToolSeesCompileCopyAndLaunchRangesNamedByKernel) {
  if (is_child()) GTEST_SKIP();
  const std::string log = log_path("on");
  std::remove(log.c_str());
  const std::string out = run_child(std::string("NVTX_INJECTION64_PATH=") + FAKE_NVTX_INJECTION +
                                    " FAKE_NVTX_LOG=" + log);
  EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
  const std::vector<std::string> lines = read_lines(log);
  ASSERT_FALSE(lines.empty()) << "the injection library was not loaded: " << out;
  EXPECT_TRUE(contains(lines, "initialized")) << joined(lines);
  EXPECT_TRUE(contains(lines, "domain cudakit")) << joined(lines);
  EXPECT_TRUE(contains(lines, "push compile nvtx_scale")) << joined(lines);
  EXPECT_TRUE(contains(lines, "push nvtx_scale")) << joined(lines);
  EXPECT_TRUE(contains(lines, "push copy 3.91 kB")) << joined(lines);  // 1000 floats
  bool expression = false;
  for (const auto& l : lines) expression = expression || l == "push add(multiply(in0, 2), in0)";
  EXPECT_TRUE(expression) << joined(lines);
  // Every range closed, never below zero depth.
  int depth = 0;
  for (const auto& l : lines) {
    if (l.rfind("push ", 0) == 0) ++depth;
    if (l == "pop") --depth;
    ASSERT_GE(depth, 0) << joined(lines);
  }
  EXPECT_EQ(depth, 0) << joined(lines);
  std::remove(log.c_str());
}

TEST(NvtxRanges, NothingWithoutATool) {
  if (is_child()) GTEST_SKIP();
  const std::string log = log_path("off");
  std::remove(log.c_str());
  // The library would log if NVTX loaded it; without NVTX_INJECTION64_PATH
  // it is never loaded, and CUDAKIT_NVTX=0 turns the ranges off even with it.
  std::string out = run_child("FAKE_NVTX_LOG=" + log);
  EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
  EXPECT_TRUE(read_lines(log).empty()) << joined(read_lines(log));
  out = run_child(std::string("CUDAKIT_NVTX=0 NVTX_INJECTION64_PATH=") + FAKE_NVTX_INJECTION +
                  " FAKE_NVTX_LOG=" + log);
  EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
  EXPECT_TRUE(read_lines(log).empty()) << joined(read_lines(log));
  std::remove(log.c_str());
}

}  // namespace
