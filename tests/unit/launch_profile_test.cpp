// CUDAKIT_PROFILE=1: the table printed at exit lists each kernel with its
// call count, and CUDAKIT_PROFILE_TRACE writes a valid Chrome trace with one
// event per launch. The settings are read when the backend starts, so the
// launches run in a child process (this program, started again).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "cudakit/cudakit.hpp"
#include "unit/child_process.hpp"

namespace {

std::string run_command(const std::string& command) { return ::test::run_process(command).output; }
using ::test::self_path;

TEST(LaunchProfileChild, LaunchesTwoKernels) {
  if (!std::getenv("CUDAKIT_TEST_PROFILE_CHILD")) GTEST_SKIP() << "runs only as the child";
  namespace ck = cudakit;
  ck::Module m = ck::compile(R"(
__global__ void alpha(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1.0f; }
__global__ void beta(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= 2.0f; }
)");
  ck::DeviceBuffer<float> p(1000);
  p.untyped().fill_bytes(0, 4, 1000);
  for (int i = 0; i < 3; ++i) m.kernel("alpha").launch(ck::grid_for(1000, 128), p, 1000);
  for (int i = 0; i < 2; ++i) m.kernel("beta").launch(ck::grid_for(1000, 256), p, 1000);
  std::vector<float> host = p.to_host();
  EXPECT_EQ(host[999], 12.0f);
}

TEST(LaunchProfile, TableAndChromeTrace) {
  if (std::getenv("CUDAKIT_TEST_PROFILE_CHILD")) GTEST_SKIP();
  const std::string trace =
      ::testing::TempDir() + "cudakit_profile_" + std::to_string(::getpid()) + ".json";
  const std::string out =
      run_command("CUDAKIT_TEST_PROFILE_CHILD=1 CUDAKIT_PROFILE=1 CUDAKIT_PROFILE_TRACE=" + trace +
                  " " + self_path() + " --gtest_filter=LaunchProfileChild.LaunchesTwoKernels 2>&1");
  EXPECT_NE(out.find("5 launches of 2 kernels"), std::string::npos) << out;
  EXPECT_TRUE(
      std::regex_search(out, std::regex(R"(\nalpha +3 +[0-9.]+ .*grid 8x1x1 block 128x1x1)")))
      << out;
  EXPECT_TRUE(
      std::regex_search(out, std::regex(R"(\nbeta +2 +[0-9.]+ .*grid 4x1x1 block 256x1x1)")))
      << out;

  std::ifstream in(trace);
  ASSERT_TRUE(in) << "no trace written: " << out;
  std::string json((std::istreambuf_iterator<char>(in)), {});
  std::size_t events = 0;
  for (std::size_t p = 0; (p = json.find("\"ph\": \"X\"", p)) != std::string::npos; ++p) ++events;
  EXPECT_EQ(events, 5u) << json;
  // Valid JSON, checked by Python's parser where there is one.
  if (std::system("python3 -c 'pass' > /dev/null 2>&1") == 0) {
    const std::string check = run_command(
        "python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); "
        "print('events', len(d['traceEvents']), sorted({e['name'] for e in d['traceEvents']}))\" " +
        trace + " 2>&1");
    EXPECT_NE(check.find("events 5 ['alpha', 'beta']"), std::string::npos) << check;
  }
  std::remove(trace.c_str());
}

}  // namespace
