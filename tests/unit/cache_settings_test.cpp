// How the process-wide cache reads the environment: where its directory is,
// CUDAKIT_CACHE=0, CUDAKIT_CACHE_MAX_BYTES. The last tests start this test
// program again as a fresh process, since CompileCache::global() reads the
// environment once per process.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

#include "cache_test_util.hpp"
#include "core/compile_cache_settings.hpp"
#include "cudakit/compile_cache.hpp"

extern char** environ;

namespace cudakit {
namespace {

using detail::compile_cache_settings;
using detail::parse_byte_size;

// In a child started by the tests below: report global()'s settings through
// the exit code (bit 0: enabled, bit 1: directory as expected, bit 2:
// max_bytes as expected, bit 3: store and load work as enabled says), before
// any test runs.
[[maybe_unused]] const int child_report = [] {
  const char* expect_dir = std::getenv("CUDAKIT_CACHE_TEST_EXPECT_DIR");
  if (!expect_dir) return 0;
  auto& cache = CompileCache::global();
  int code = cache.enabled() ? 1 : 0;
  if (cache.directory() == std::filesystem::path(expect_dir)) code |= 2;
  if (std::to_string(cache.max_bytes()) == std::getenv("CUDAKIT_CACHE_TEST_EXPECT_MAX")) code |= 4;
  const std::string key = CompileCache::key("__global__ void k() {}", {}, "child");
  cache.store(key, test::random_code(7));
  if (cache.load(key).has_value() == cache.enabled()) code |= 8;
  std::_Exit(code);
}();

struct FakeEnv {
  std::map<std::string, std::string> vars;
  detail::CompileCacheSettings read() const {
    return compile_cache_settings([this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    });
  }
};

TEST(CacheSettings, CacheDirVariableWins) {
  FakeEnv env{{{"CUDAKIT_CACHE_DIR", "/x/cache"}, {"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}}};
  EXPECT_EQ(env.read().directory, "/x/cache");
}

TEST(CacheSettings, XdgCacheHomeIsNextChoice) {
  FakeEnv env{{{"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}}};
  EXPECT_EQ(env.read().directory, "/xdg/cudakit");
}

TEST(CacheSettings, HomeCacheIsLastChoice) {
  FakeEnv env{{{"HOME", "/home/u"}}};
  EXPECT_EQ(env.read().directory, "/home/u/.cache/cudakit");
}

TEST(CacheSettings, RelativeXdgCacheHomeIsIgnored) {
  FakeEnv env{{{"XDG_CACHE_HOME", "relative"}, {"HOME", "/home/u"}}};
  EXPECT_EQ(env.read().directory, "/home/u/.cache/cudakit");
}

TEST(CacheSettings, NoVariablesMeansNoDirectory) {
  FakeEnv env;
  const auto s = env.read();
  EXPECT_TRUE(s.directory.empty());
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.max_bytes, detail::default_cache_max_bytes);
}

TEST(CacheSettings, CacheZeroDisables) {
  for (const char* off : {"0", "off", "false", "no", "OFF"}) {
    FakeEnv env{{{"CUDAKIT_CACHE", off}}};
    EXPECT_FALSE(env.read().enabled) << off;
  }
}

TEST(CacheSettings, CacheOneEnables) {
  FakeEnv env{{{"CUDAKIT_CACHE", "1"}}};
  EXPECT_TRUE(env.read().enabled);
  EXPECT_TRUE(env.read().warnings.empty());
}

TEST(CacheSettings, UnknownCacheValueWarnsAndStaysOn) {
  FakeEnv env{{{"CUDAKIT_CACHE", "maybe"}}};
  const auto s = env.read();
  EXPECT_TRUE(s.enabled);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("CUDAKIT_CACHE"), std::string::npos);
}

TEST(CacheSettings, MaxBytesIsRead) {
  FakeEnv env{{{"CUDAKIT_CACHE_MAX_BYTES", "256M"}}};
  EXPECT_EQ(env.read().max_bytes, std::size_t(256) << 20);
}

TEST(CacheSettings, BadMaxBytesWarnsAndKeepsDefault) {
  FakeEnv env{{{"CUDAKIT_CACHE_MAX_BYTES", "lots"}}};
  const auto s = env.read();
  EXPECT_EQ(s.max_bytes, detail::default_cache_max_bytes);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("lots"), std::string::npos);
}

TEST(ParseByteSize, AcceptsPlainNumbersAndBinaryUnits) {
  EXPECT_EQ(parse_byte_size("1048576"), 1048576u);
  EXPECT_EQ(parse_byte_size("512K"), 512u * 1024);
  EXPECT_EQ(parse_byte_size("3MiB"), 3u << 20);
  EXPECT_EQ(parse_byte_size(" 2G "), std::size_t(2) << 30);
  EXPECT_EQ(parse_byte_size("1.5g"), std::size_t(3) << 29);
  EXPECT_EQ(parse_byte_size("0"), 0u);
}

TEST(ParseByteSize, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "G", "-1", "12 apples", "1.2.3", ".", "99999999999T"})
    EXPECT_FALSE(parse_byte_size(bad)) << bad;
}

// Runs this test program again with `env` added; returns its exit status.
int run_child(const std::map<std::string, std::string>& env) {
  std::vector<std::string> vars;
  for (char** e = environ; *e; ++e) {
    std::string v = *e;
    if (!v.starts_with("CUDAKIT_CACHE") && !v.starts_with("XDG_CACHE_HOME=")) vars.push_back(v);
  }
  for (const auto& [k, v] : env) vars.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  char* argv[] = {self.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CacheGlobal, FollowsCacheDirAndMaxBytesVariables) {
  test::TempDir dir;
  const std::string where = (dir.path() / "c").string();
  EXPECT_EQ(run_child({{"CUDAKIT_CACHE_DIR", where},
                       {"CUDAKIT_CACHE_MAX_BYTES", "5M"},
                       {"CUDAKIT_CACHE_TEST_EXPECT_DIR", where},
                       {"CUDAKIT_CACHE_TEST_EXPECT_MAX", std::to_string(5 << 20)}}),
            1 | 2 | 4 | 8);
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "c" / "v1"))
      << "the child stored an entry";
}

TEST(CacheGlobal, CacheZeroTurnsBothLevelsOff) {
  test::TempDir dir;
  const std::string where = (dir.path() / "c").string();
  EXPECT_EQ(run_child({{"CUDAKIT_CACHE", "0"},
                       {"CUDAKIT_CACHE_DIR", where},
                       {"CUDAKIT_CACHE_TEST_EXPECT_DIR", where},
                       {"CUDAKIT_CACHE_TEST_EXPECT_MAX", std::to_string(std::size_t(1) << 30)}}),
            2 | 4 | 8);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "c")) << "nothing written when off";
}

TEST(CacheGlobal, XdgCacheHomeIsUsedWithoutCacheDir) {
  test::TempDir dir;
  EXPECT_EQ(run_child({{"XDG_CACHE_HOME", dir.path().string()},
                       {"CUDAKIT_CACHE_TEST_EXPECT_DIR", (dir.path() / "cudakit").string()},
                       {"CUDAKIT_CACHE_TEST_EXPECT_MAX", std::to_string(std::size_t(1) << 30)}}),
            1 | 2 | 4 | 8);
}

}  // namespace
}  // namespace cudakit
