// Several processes sharing one cache directory: they store and load the same
// keys at once, and every load is either a miss or exactly the stored code,
// never a partial or mixed entry.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include "cache_test_util.hpp"
#include "cudakit/compile_cache.hpp"

namespace cudakit {
namespace {

namespace fs = std::filesystem;

constexpr int key_count = 6;

struct Shared {
  fs::path dir;
  std::uint64_t seed;  // fresh per run, inherited by the children
  std::vector<std::string> keys;
  std::size_t max_bytes;
  std::size_t image_bytes;
};

CompiledCode expected_code(const Shared& s, int k) {
  return test::random_code(s.seed + k, s.image_bytes);
}

// The body of one child: a mix of stores and loads on shared keys. Each load
// goes through a new instance so that it reads the disk, not its own memory.
// Exit status: 0 when every load was a miss or exact, 1 on a wrong entry, 2
// on an exception, 3 when a damaged (partial) entry was seen.
[[noreturn]] void child(const Shared& s, int id, int rounds) {
  int status = 0;
  try {
    std::mt19937_64 rng(s.seed ^ (0x9e3779b97f4a7c15ull * (id + 1)));
    std::vector<CompiledCode> codes;
    for (int k = 0; k < key_count; ++k) codes.push_back(expected_code(s, k));
    for (int r = 0; r < rounds && status == 0; ++r) {
      const int k = static_cast<int>(rng() % key_count);
      CompileCache cache(s.dir, s.max_bytes);
      if (rng() % 2) {
        cache.store(s.keys[k], codes[k]);
      } else if (auto got = cache.load(s.keys[k]); got && !test::same_code(*got, codes[k])) {
        status = 1;
      } else if (cache.stats().corrupt_entries != 0) {
        status = 3;  // a partial file was visible: the checksum caught it, atomicity did not
      }
    }
  } catch (...) {
    status = 2;
  }
  std::_Exit(status);
}

// Forks `children` processes running child(); returns their exit statuses.
std::vector<int> run_children(const Shared& s, int children, int rounds) {
  std::vector<pid_t> pids;
  for (int id = 0; id < children; ++id) {
    const pid_t pid = fork();
    if (pid == 0) child(s, id, rounds);
    pids.push_back(pid);
  }
  std::vector<int> statuses;
  for (pid_t pid : pids) {
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
      statuses.push_back(-1);
      continue;
    }
    statuses.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status));
  }
  return statuses;
}

Shared make_shared(const test::TempDir& dir, std::size_t max_bytes, std::size_t image_bytes) {
  Shared s{dir.path(), std::random_device{}(), {}, max_bytes, image_bytes};
  for (int k = 0; k < key_count; ++k)
    s.keys.push_back(CompileCache::key(
        "__global__ void k" + std::to_string(k) + "() {} // " + std::to_string(s.seed), {},
        "test"));
  return s;
}

std::size_t temp_files(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    n += e.path().filename().string().find(".tmp.") != std::string::npos;
  return n;
}

TEST(CacheConcurrency, ProcessesStoringAndLoadingSameKeysSeeWholeEntries) {
  test::TempDir dir;
  // Entries of a few hundred KiB take several write() calls: a reader of a
  // non-atomic store would see partial files.
  const Shared s = make_shared(dir, std::size_t(1) << 30, 300001);
  const auto statuses = run_children(s, 4, 60);
  for (std::size_t i = 0; i < statuses.size(); ++i) EXPECT_EQ(statuses[i], 0) << "child " << i;

  // What is on disk afterwards is exact too, and no temporary file is left.
  CompileCache reader(dir.path());
  for (int k = 0; k < key_count; ++k) {
    auto got = reader.load(s.keys[k]);
    if (got) {
      EXPECT_TRUE(test::same_code(*got, expected_code(s, k))) << "key " << k;
    }
  }
  EXPECT_EQ(reader.stats().corrupt_entries, 0u);
  EXPECT_EQ(temp_files(dir.path()), 0u);
}

TEST(CacheConcurrency, ProcessesEvictingUnderSmallCapSeeWholeEntries) {
  test::TempDir dir;
  // A cap of about three entries: stores keep evicting what others read.
  const Shared s = make_shared(dir, 3 * 50000, 50001);
  const auto statuses = run_children(s, 4, 80);
  for (std::size_t i = 0; i < statuses.size(); ++i) EXPECT_EQ(statuses[i], 0) << "child " << i;
  CompileCache reader(dir.path());
  EXPECT_LE(reader.disk_bytes(), s.max_bytes + 4 * 60000)
      << "at most one store per process over the cap";
  EXPECT_EQ(temp_files(dir.path()), 0u);
}

TEST(CacheConcurrency, ThreadsSharingOneInstanceSeeWholeEntries) {
  test::TempDir dir;
  const Shared s = make_shared(dir, 4 * 20000, 20001);
  CompileCache cache(dir.path(), s.max_bytes);
  std::vector<CompiledCode> codes;
  for (int k = 0; k < key_count; ++k) codes.push_back(expected_code(s, k));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(s.seed + 1000 + t);
      for (int r = 0; r < 300; ++r) {
        const int k = static_cast<int>(rng() % key_count);
        if (rng() % 2)
          cache.store(s.keys[k], codes[k]);
        else if (auto got = cache.load(s.keys[k]); got && !test::same_code(*got, codes[k]))
          ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace cudakit
