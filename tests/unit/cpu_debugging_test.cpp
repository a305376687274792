// Debugging aids of the CPU backend through the public API: a debug build
// (-O0 -g) runs in a plain process and keeps its source, line for line, for
// gdb; the printf buffer (printf_fifo_size) bounds a launch's output and
// what was lost is reported.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cpu_test_util.hpp"
#include "cudakit/cudakit.hpp"

namespace cudakit::test {
namespace {
namespace fs = std::filesystem;

Device cpu_device() { return Device::get(BackendKind::cpu, 0); }

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A cache directory of the test's own, removed afterwards.
class TemporaryCacheDir {
 public:
  TemporaryCacheDir() {
    std::string templ = (fs::temp_directory_path() / "cudakit-debugging-XXXXXX").string();
    path_ = mkdtemp(templ.data());
    const char* old = std::getenv("CUDAKIT_CACHE_DIR");
    if (old) old_ = old;
    had_old_ = old != nullptr;
    setenv("CUDAKIT_CACHE_DIR", path_.c_str(), 1);
  }
  ~TemporaryCacheDir() {
    if (had_old_)
      setenv("CUDAKIT_CACHE_DIR", old_.c_str(), 1);
    else
      unsetenv("CUDAKIT_CACHE_DIR");
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  std::string old_;
  bool had_old_ = false;
};

// Every file named `name` under `dir`.
std::vector<fs::path> find_files(const fs::path& dir, const std::string& name) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->path().filename() == name) found.push_back(it->path());
  return found;
}

const char* kTwice = R"(__global__ void twice(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2.0f * p[i];
}
)";

TEST(CpuDebugging, DebugBuildRunsWithoutTheSanitizerAndKeepsItsSourceLineForLine) {
  TemporaryCacheDir cache;
  CompileOptions options;
  options.debug = true;
  options.use_cache = false;
  options.source_name = "my_filter.cu";
  Kernel k = compile(kTwice, options, cpu_device()).kernel("twice");
  const int n = 1001;
  auto x = random_floats(n);
  const std::vector<float> original = x;
  k.launch(grid_for(n, 128), InOut(x), n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(x[i], 2.0f * original[i]) << "index " << i;

  // The file the debug information names holds the user's lines exactly
  // (the extern "C" wrapping lives elsewhere), so line 3 is line 3.
  const auto kept = find_files(cache.path() / "cpu-sources", "my_filter.cu");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(read_file(kept[0]).rfind(kTwice, 0), 0u) << read_file(kept[0]);
}

TEST(CpuDebugging, OptimisedBuildKeepsNoSource) {
  TemporaryCacheDir cache;
  CompileOptions options;
  options.use_cache = false;
  options.source_name = "plain.cu";
  Kernel k = compile(kTwice, options, cpu_device()).kernel("twice");
  EXPECT_TRUE(find_files(cache.path(), "plain.cu").empty());
}

TEST(CpuDebugging, CompileErrorsNameTheSourceAndTheUsersLine) {
  CompileOptions options;
  options.use_cache = false;
  options.source_name = "broken_filter.cu";
  options.debug = true;
  try {
    compile("__global__ void k(int* p) {\n  p[0] = 1;\n  undeclared_thing = 3;\n}\n", options,
            cpu_device());
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.log(), "broken_filter.cu:3")) << e.log();
  }
}

// 128 threads each print one 20-byte line.
const char* kChatty = R"(__global__ void chatty(int tag) {
  printf("tag %d thread %06u\n", tag, threadIdx.x + blockDim.x * blockIdx.x);
}
)";

class CpuPrintfFifo : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = device_.limit(ContextLimit::printf_fifo_size); }
  void TearDown() override { device_.set_limit(ContextLimit::printf_fifo_size, saved_); }
  // Launches `chatty` on 2 x 64 threads; returns {stdout, stderr}.
  std::pair<std::string, std::string> run_chatty() {
    Kernel k = compile(kChatty, {}, device_).kernel("chatty");
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    k.launch(LaunchConfig{Dim3(2), Dim3(64)}, 7);
    device_.synchronize();
    std::string out = testing::internal::GetCapturedStdout();
    std::string err = testing::internal::GetCapturedStderr();
    return {out, err};
  }
  static int count_lines(const std::string& text) {
    int lines = 0;
    for (char c : text) lines += c == '\n';
    return lines;
  }
  Device device_ = cpu_device();
  std::size_t saved_ = 0;
};

TEST_F(CpuPrintfFifo, OutputBeyondTheBufferIsReportedAsLost) {
  device_.set_limit(ContextLimit::printf_fifo_size, 1000);
  auto [out, err] = run_chatty();
  // 50 lines of 20 bytes fit in 1000 bytes; the other 78 calls are lost.
  EXPECT_EQ(count_lines(out), 50) << out;
  EXPECT_EQ(out.size(), 1000u);
  EXPECT_TRUE(contains(err,
                       "cudakit: 1560 bytes of printf output (78 calls) from kernel chatty were "
                       "lost: the printf buffer (1000 bytes) is full"))
      << err;
  EXPECT_TRUE(contains(err, "set_limit(cudakit::ContextLimit::printf_fifo_size")) << err;
  EXPECT_TRUE(contains(err, "PRINTF_FIFO_SIZE")) << err;
}

TEST_F(CpuPrintfFifo, OutputThatFitsIsAllPrintedWithNoReport) {
  device_.set_limit(ContextLimit::printf_fifo_size, 128 * 20);
  auto [out, err] = run_chatty();
  EXPECT_EQ(count_lines(out), 128) << out;
  EXPECT_TRUE(contains(out, "tag 7 thread 000127\n")) << out;
  EXPECT_TRUE(contains(out, "tag 7 thread 000000\n")) << out;
  EXPECT_FALSE(contains(err, "were lost")) << err;
}

TEST_F(CpuPrintfFifo, EachLaunchHasTheWholeBuffer) {
  // The buffer is emptied at each launch's end, as a GPU's is at each
  // synchronisation: two launches of 1000 bytes each under a 1000-byte limit.
  device_.set_limit(ContextLimit::printf_fifo_size, 1000);
  Kernel k = compile(kChatty, {}, device_).kernel("chatty");
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  k.launch(LaunchConfig{Dim3(1), Dim3(50)}, 1);
  k.launch(LaunchConfig{Dim3(1), Dim3(50)}, 2);
  device_.synchronize();
  std::string out = testing::internal::GetCapturedStdout();
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_lines(out), 100) << out;
  EXPECT_FALSE(contains(err, "were lost")) << err;
}

TEST_F(CpuPrintfFifo, LongLinesAndStdPrintfGoThroughTheBuffer) {
  device_.set_limit(ContextLimit::printf_fifo_size, 1 << 20);
  Kernel k = compile(R"(
#include <cstdio>
__global__ void long_line(int n) {
  char text[1024];
  for (int i = 0; i < n; ++i) text[i] = 'a' + i % 26;
  text[n] = '\0';
  std::printf("%s|\n", text);
}
)",
                     {}, device_)
                 .kernel("long_line");
  testing::internal::CaptureStdout();
  k.launch(LaunchConfig{Dim3(1), Dim3(1)}, 700);
  device_.synchronize();
  std::string out = testing::internal::GetCapturedStdout();
  ASSERT_EQ(out.size(), 702u) << out;
  EXPECT_EQ(out.substr(0, 3), "abc");
  EXPECT_EQ(out.substr(699), "x|\n");
}

}  // namespace
}  // namespace cudakit::test
