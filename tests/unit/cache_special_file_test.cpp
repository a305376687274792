// Paths where the compile cache and the module loader read that hold no
// regular file: a named pipe at a cache entry's path or named like an
// included header, a directory, a device. Reads open without blocking and
// take only regular files, so none of these hangs or reads forever.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <string>
#include <thread>

#include "cache_test_util.hpp"
#include "cudakit/compile_cache.hpp"
#include "cudakit/device.hpp"
#include "cudakit/error.hpp"
#include "cudakit/module.hpp"

namespace cudakit {
namespace {

namespace fs = std::filesystem;
using test::random_code;
using test::TempDir;

// Runs `work` on another thread; a hang (a blocking open of a FIFO) cannot be
// cancelled, so after `seconds` the test process reports it and exits.
void expect_finishes(const std::function<void()>& work, const char* what, int seconds = 30) {
  auto done = std::async(std::launch::async, work);
  if (done.wait_for(std::chrono::seconds(seconds)) == std::future_status::timeout) {
    std::fprintf(stderr, "FAILED: %s did not finish within %d s (a blocking open?)\n", what,
                 seconds);
    std::fflush(stderr);
    std::_Exit(1);
  }
  done.get();  // rethrows what the work threw
}

class CacheSpecialFile : public testing::Test {
 protected:
  std::string fresh_key() {
    return CompileCache::key("__global__ void k() {} // " + std::to_string(std::rand()), {},
                             "test");
  }
  fs::path entry_file(const std::string& key) const {
    return dir_.path() / "v1" / key.substr(0, 2) / (key + ".ckc");
  }
  TempDir dir_;
};

TEST_F(CacheSpecialFile, NamedPipeAtAnEntryPathIsAMiss) {
  CompileCache cache(dir_.path());
  const auto key = fresh_key();
  fs::create_directories(entry_file(key).parent_path());
  ASSERT_EQ(mkfifo(entry_file(key).c_str(), 0600), 0);
  expect_finishes([&] { EXPECT_FALSE(cache.load(key)); }, "loading a cache entry that is a FIFO");
  // Storing renames a complete entry over the pipe; it then loads.
  const CompiledCode code = random_code(7);
  cache.store(key, code);
  CompileCache fresh(dir_.path());
  const auto loaded = fresh.load(key);
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(test::same_code(*loaded, code));
}

TEST_F(CacheSpecialFile, NamedPipeNamedLikeAHeaderDoesNotHangTheKey) {
  const fs::path fifo = dir_ / "pipe.cuh";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string with_pipe, without;
  expect_finishes(
      [&] { with_pipe = CompileCache::key("#include \"" + fifo.string() + "\"\n", {}, "test"); },
      "hashing a source that includes a FIFO");
  fs::remove(fifo);
  without = CompileCache::key("#include \"" + fifo.string() + "\"\n", {}, "test");
  EXPECT_EQ(with_pipe.size(), without.size());
}

TEST_F(CacheSpecialFile, ModuleFileThatIsNotARegularFileIsAClearError) {
  const fs::path fifo = dir_ / "module.cubin";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto expect_refused = [](const fs::path& path, const std::string& says) {
    try {
      (void)Module::load_file(path, Device::get(BackendKind::cpu, 0));
      ADD_FAILURE() << path << " was read";
    } catch (const ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  expect_finishes([&] { expect_refused(fifo, "named pipe"); }, "reading a FIFO as a module");
  expect_finishes([&] { expect_refused("/dev/zero", "character device"); },
                  "reading /dev/zero as a module");
  expect_refused(dir_.path(), "directory");
  expect_refused(dir_ / "missing.cubin", "does not exist");
}

}  // namespace
}  // namespace cudakit
