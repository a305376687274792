// The compile cache seen through cudakit::compile, across processes: a fresh
// process finds the entry the previous one stored and its kernel computes the
// right result; a damaged entry is compiled again, never loaded. Registered
// once per backend (tests/backend_fixture.hpp): CPU (unit) and CUDA (gpu).
// Each case starts this program again as a child process (recognised before
// main runs), since the process-wide cache reads its directory once.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "backend_fixture.hpp"
#include "cudakit/cudakit.hpp"
#include "unit/cache_test_util.hpp"

extern char** environ;

namespace cudakit {
namespace {

namespace fs = std::filesystem;

constexpr const char* child_var = "CUDAKIT_CACHE_E2E_CHILD";  // the result file
constexpr const char* source_seed_var = "CUDAKIT_CACHE_E2E_SOURCE_SEED";
constexpr const char* data_seed_var = "CUDAKIT_CACHE_E2E_DATA_SEED";

// The kernel differs from run to run (a random scale in its source), so no
// entry from an earlier run can be found.
std::string scaled_add_source(unsigned scale) {
  return "__global__ void scaled_add(const float* a, const float* b, float* c, int n) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) c[i] = a[i] + " +
         std::to_string(scale) +
         ".0f * b[i];\n"
         "}\n";
}

// The child: compile (through the cache), launch on fresh random data, check
// against the CPU, and write "<wrong elements> <misses> <disk_hits> <corrupt>"
// (or "error <message>") to the result file.
int run_child(const char* result_path) {
  std::string line;
  int status = 0;
  try {
    const unsigned scale =
        2 + static_cast<unsigned>(std::strtoul(std::getenv(source_seed_var), nullptr, 10) % 97);
    std::mt19937 rng(static_cast<unsigned>(std::strtoul(std::getenv(data_seed_var), nullptr, 10)));
    int n = 1000 + static_cast<int>(rng() % 5000);
    if (n % 256 == 0) ++n;  // never a whole number of blocks
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    std::vector<float> a(n), b(n);
    for (auto& x : a) x = dist(rng);
    for (auto& x : b) x = dist(rng);

    Module module = compile(scaled_add_source(scale));
    Kernel kernel = module.kernel("scaled_add");
    auto da = to_device(a);
    auto db = to_device(b);
    DeviceBuffer<float> dc(static_cast<std::size_t>(n));
    kernel.launch(grid_for(static_cast<std::size_t>(n), 256), da, db, dc, n);
    const auto c = dc.to_host();

    int wrong = 0;
    for (int i = 0; i < n; ++i) {
      const float expect = a[i] + static_cast<float>(scale) * b[i];
      if (std::fabs(c[i] - expect) > 1e-4f * (1.0f + std::fabs(expect))) ++wrong;
    }
    const auto stats = CompileCache::global().stats();
    line = std::to_string(wrong) + " " + std::to_string(stats.misses) + " " +
           std::to_string(stats.disk_hits) + " " + std::to_string(stats.corrupt_entries);
    status = wrong == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    line = std::string("error ") + e.what();
    status = 2;
  }
  if (FILE* f = std::fopen(result_path, "w")) {
    std::fputs(line.c_str(), f);
    std::fclose(f);
  }
  return status;
}

[[maybe_unused]] const int child_hook = [] {
  if (const char* result = std::getenv(child_var)) std::_Exit(run_child(result));
  return 0;
}();

struct ChildReport {
  int exit_code = -1;
  std::string error;  // set when the child failed to compile or launch
  int wrong = -1;
  std::size_t misses = 0, disk_hits = 0, corrupt = 0;
};

class CacheCompileFixture : public testing::Test {
 protected:
  void SetUp() override {
    if (auto why = test::backend_unavailable_reason(kind_)) GTEST_SKIP() << *why;
  }

  ChildReport run(const std::map<std::string, std::string>& extra = {}) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
      const std::string_view v = *e;
      if (!v.starts_with("CUDAKIT_CACHE") && !v.starts_with("CUDAKIT_BACKEND="))
        env.emplace_back(v);
    }
    const fs::path result = dir_ / "result.txt";
    fs::remove(result);
    env.push_back("CUDAKIT_BACKEND=" + std::string(to_string(kind_)));
    env.push_back("CUDAKIT_CACHE_DIR=" + (dir_ / "cache").string());
    env.push_back(std::string(child_var) + "=" + result.string());
    env.push_back(std::string(source_seed_var) + "=" + std::to_string(source_seed_));
    env.push_back(std::string(data_seed_var) + "=" + std::to_string(rng_()));
    for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& v : env) envp.push_back(v.data());
    envp.push_back(nullptr);
    std::string self = fs::read_symlink("/proc/self/exe").string();
    char* argv[] = {self.data(), nullptr};
    ChildReport report;
    pid_t pid = 0;
    if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return report;
    int status = 0;
    waitpid(pid, &status, 0);
    report.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(result);
    std::string first;
    in >> first;
    if (first == "error" || first.empty()) {
      std::getline(in, report.error);
      if (first.empty()) report.error = "the child wrote no result";
      return report;
    }
    report.wrong = std::stoi(first);
    in >> report.misses >> report.disk_hits >> report.corrupt;
    return report;
  }

  std::vector<fs::path> entries() const {
    std::vector<fs::path> found;
    if (!fs::exists(dir_ / "cache")) return found;
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "cache"))
      if (e.path().extension() == ".ckc") found.push_back(e.path());
    return found;
  }

  // The backend of this registration (tests/backend_fixture.hpp); children
  // inherit CUDAKIT_TEST_BACKEND and run on the same one.
  const BackendKind kind_ = test::backend_under_test();
  std::mt19937_64 rng_{std::random_device{}()};
  const std::uint64_t source_seed_ = rng_();
  test::TempDir dir_;
};

using CacheCompile = CacheCompileFixture;

TEST_F(CacheCompile, FirstProcessCompilesAndStoresEntry) {
  const auto first = run();
  ASSERT_EQ(first.error, "");
  EXPECT_EQ(first.wrong, 0);
  EXPECT_GE(first.misses, 1u);
  EXPECT_EQ(first.disk_hits, 0u);
  EXPECT_EQ(entries().size(), 1u);
}

TEST_F(CacheCompile, FreshProcessLoadsEntryFromDiskAndComputesCorrectly) {
  ASSERT_EQ(run().error, "");
  const auto second = run();
  ASSERT_EQ(second.error, "");
  EXPECT_EQ(second.wrong, 0);
  EXPECT_EQ(second.disk_hits, 1u);
  EXPECT_EQ(second.misses, 0u);
  EXPECT_EQ(second.exit_code, 0);
}

TEST_F(CacheCompile, DamagedEntryIsCompiledAgainAndComputesCorrectly) {
  ASSERT_EQ(run().error, "");
  const auto files = entries();
  ASSERT_EQ(files.size(), 1u);
  {
    std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
    const auto size = static_cast<std::streamoff>(fs::file_size(files[0]));
    const std::streamoff at =
        24 + static_cast<std::streamoff>(rng_() % static_cast<std::uint64_t>(size - 40));
    f.seekg(at);
    char byte = 0;
    f.get(byte);
    f.seekp(at);
    f.put(static_cast<char>(byte ^ 0x5a));
  }
  const auto second = run();
  ASSERT_EQ(second.error, "");
  EXPECT_EQ(second.wrong, 0);
  EXPECT_EQ(second.corrupt, 1u);
  EXPECT_EQ(second.disk_hits, 0u);
  // The recompiled entry replaced the damaged one.
  const auto third = run();
  ASSERT_EQ(third.error, "");
  EXPECT_EQ(third.wrong, 0);
  EXPECT_EQ(third.disk_hits, 1u);
  EXPECT_EQ(third.corrupt, 0u);
}

TEST_F(CacheCompile, CacheOffCompilesEveryTimeAndWritesNothing) {
  const auto first = run({{"CUDAKIT_CACHE", "0"}});
  ASSERT_EQ(first.error, "");
  EXPECT_EQ(first.wrong, 0);
  const auto second = run({{"CUDAKIT_CACHE", "0"}});
  ASSERT_EQ(second.error, "");
  EXPECT_EQ(second.wrong, 0);
  EXPECT_EQ(second.disk_hits, 0u);
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace cudakit
