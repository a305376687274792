// CompileCache's two levels: what is stored comes back (from memory, or from
// disk in another instance), damaged entries are discarded and counted, the
// disk stays under its cap by evicting the least recently used entries, and
// a directory that cannot be written never breaks a compile.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>

#include "cache_test_util.hpp"
#include "core/compiled_code_format.hpp"
#include "cudakit/compile_cache.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

namespace fs = std::filesystem;
using test::random_code;
using test::same_code;
using test::TempDir;

class CacheStore : public testing::Test {
 protected:
  std::string fresh_key() {
    return CompileCache::key("__global__ void k() {} // " + std::to_string(rng_()), {}, "test");
  }
  fs::path entry_file(const std::string& key) const {
    return dir_.path() / "v1" / key.substr(0, 2) / (key + ".ckc");
  }
  std::vector<std::uint8_t> read_bytes(const fs::path& p) const {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& bytes) const {
    std::ofstream(p, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  // Stores an entry through one instance and returns its key; a fresh
  // instance then sees it only on disk.
  std::string store_one(const CompiledCode& code) {
    CompileCache writer(dir_.path());
    const std::string key = fresh_key();
    writer.store(key, code);
    return key;
  }
  // Checks that a damaged entry reads as a miss, is counted and is removed.
  void expect_discarded(const std::string& key) {
    CompileCache reader(dir_.path());
    EXPECT_FALSE(reader.load(key));
    EXPECT_EQ(reader.stats().corrupt_entries, 1u);
    EXPECT_EQ(reader.stats().misses, 1u);
    EXPECT_FALSE(fs::exists(entry_file(key)));
  }

  std::mt19937_64 rng_{std::random_device{}()};
  TempDir dir_;
};

TEST_F(CacheStore, StoredCodeLoadsBackUnchanged) {
  CompileCache cache(dir_.path());
  const auto code = random_code(rng_());
  const auto key = fresh_key();
  cache.store(key, code);
  auto back = cache.load(key);
  ASSERT_TRUE(back);
  EXPECT_TRUE(same_code(*back, code));
}

TEST_F(CacheStore, SecondLoadInSameInstanceIsMemoryHit) {
  CompileCache cache(dir_.path());
  const auto key = fresh_key();
  cache.store(key, random_code(rng_()));
  ASSERT_TRUE(cache.load(key));
  ASSERT_TRUE(cache.load(key));
  EXPECT_EQ(cache.stats().memory_hits, 2u);
  EXPECT_EQ(cache.stats().disk_hits, 0u);
}

TEST_F(CacheStore, NewInstanceOnSameDirectoryHitsDisk) {
  const auto code = random_code(rng_());
  const auto key = store_one(code);
  CompileCache reader(dir_.path());
  auto back = reader.load(key);
  ASSERT_TRUE(back);
  EXPECT_TRUE(same_code(*back, code));
  EXPECT_EQ(reader.stats().disk_hits, 1u);
  // The disk hit is now in memory too.
  ASSERT_TRUE(reader.load(key));
  EXPECT_EQ(reader.stats().memory_hits, 1u);
}

TEST_F(CacheStore, UnknownKeyIsCountedMiss) {
  CompileCache cache(dir_.path());
  EXPECT_FALSE(cache.load(fresh_key()));
  EXPECT_EQ(cache.stats().misses, 1u);
  EXPECT_EQ(cache.stats().corrupt_entries, 0u);
}

TEST_F(CacheStore, EntryIsOneFileNamedByKeyUnderSchemaDirectory) {
  const auto key = store_one(random_code(rng_()));
  EXPECT_TRUE(fs::is_regular_file(entry_file(key)));
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1u) << "no temporary file may be left behind";
}

TEST_F(CacheStore, StoringSameKeyTwiceKeepsLatestCode) {
  CompileCache cache(dir_.path());
  const auto key = fresh_key();
  cache.store(key, random_code(rng_()));
  const auto second = random_code(rng_());
  cache.store(key, second);
  CompileCache reader(dir_.path());
  auto back = reader.load(key);
  ASSERT_TRUE(back);
  EXPECT_TRUE(same_code(*back, second));
  EXPECT_TRUE(same_code(*cache.load(key), second));
}

TEST_F(CacheStore, TruncatedEntryIsDiscarded) {
  const auto key = store_one(random_code(rng_()));
  auto bytes = read_bytes(entry_file(key));
  bytes.resize(bytes.size() / 2 + rng_() % (bytes.size() / 4));
  write_bytes(entry_file(key), bytes);
  expect_discarded(key);
}

TEST_F(CacheStore, FlippedByteIsDiscarded) {
  const auto key = store_one(random_code(rng_()));
  auto bytes = read_bytes(entry_file(key));
  bytes[detail::cache_entry_header_bytes + rng_() % (bytes.size() - 40)] ^= 0x10;
  write_bytes(entry_file(key), bytes);
  expect_discarded(key);
}

TEST_F(CacheStore, WrongMagicIsDiscarded) {
  const auto key = store_one(random_code(rng_()));
  auto bytes = read_bytes(entry_file(key));
  bytes[1] = 'Z';
  write_bytes(entry_file(key), bytes);
  expect_discarded(key);
}

TEST_F(CacheStore, EmptyEntryFileIsDiscarded) {
  const auto key = store_one(random_code(rng_()));
  write_bytes(entry_file(key), {});
  expect_discarded(key);
}

TEST_F(CacheStore, OversizedEntryFileIsDiscarded) {
  const auto key = store_one(random_code(rng_()));
  fs::resize_file(entry_file(key), std::uintmax_t(3) << 30);  // sparse: no real disk use
  expect_discarded(key);
}

TEST_F(CacheStore, DirectoryAtEntryNameIsMissAndKeepsDiskOn) {
  CompileCache cache(dir_.path());
  const auto key = fresh_key();
  fs::create_directories(entry_file(key) / "x");
  EXPECT_FALSE(cache.load(key));
  testing::internal::CaptureStderr();
  cache.store(key, random_code(rng_()));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(cache.disk_problem(), "");
  const auto other = fresh_key();
  cache.store(other, random_code(rng_()));
  EXPECT_TRUE(fs::exists(entry_file(other)));
}

TEST_F(CacheStore, DiscardedEntryCanBeStoredAgain) {
  const auto code = random_code(rng_());
  const auto key = store_one(code);
  write_bytes(entry_file(key), {1, 2, 3});
  CompileCache cache(dir_.path());
  ASSERT_FALSE(cache.load(key));
  cache.store(key, code);  // what the compile path does after the miss
  CompileCache reader(dir_.path());
  auto back = reader.load(key);
  ASSERT_TRUE(back);
  EXPECT_TRUE(same_code(*back, code));
}

TEST_F(CacheStore, DiskHitRefreshesEntryMtime) {
  const auto key = store_one(random_code(rng_()));
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(24);
  fs::last_write_time(entry_file(key), old);
  CompileCache reader(dir_.path());
  ASSERT_TRUE(reader.load(key));
  EXPECT_GT(fs::last_write_time(entry_file(key)), old + std::chrono::hours(23));
}

TEST_F(CacheStore, StoreOverCapEvictsLeastRecentlyUsed) {
  // Five entries of similar size; a cap that holds all but one. The entry
  // loaded last survives although it was stored first.
  std::vector<std::string> keys;
  std::vector<CompiledCode> codes;
  std::size_t total = 0;
  for (int i = 0; i < 5; ++i) {
    codes.push_back(random_code(rng_(), 20000));
    keys.push_back(fresh_key());
    total +=
        detail::encode_cache_entry(keys.back(), codes.back(), CompileCache::schema_version).size();
  }
  {
    CompileCache writer(dir_.path());
    for (int i = 0; i < 4; ++i) writer.store(keys[i], codes[i]);
  }
  const auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 4; ++i)
    fs::last_write_time(entry_file(keys[i]), now - std::chrono::minutes(10 - i));
  {
    CompileCache reader(dir_.path());
    ASSERT_TRUE(reader.load(keys[0]));  // 0 becomes the most recently used
  }
  const std::size_t size_1 = fs::file_size(entry_file(keys[1]));
  const std::size_t cap = (total - size_1) * 10 / 9 + 64;
  ASSERT_GT(total, cap);
  CompileCache cache(dir_.path(), cap);
  cache.store(keys[4], codes[4]);
  EXPECT_FALSE(fs::exists(entry_file(keys[1]))) << "least recently used";
  for (int i : {0, 2, 3, 4}) EXPECT_TRUE(fs::exists(entry_file(keys[i]))) << i;
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_LE(cache.disk_bytes(), cap - cap / 10);
}

TEST_F(CacheStore, DiskStaysUnderCapAcrossManyStores) {
  const std::size_t cap = 100000;
  CompileCache cache(dir_.path(), cap);
  for (int i = 0; i < 40; ++i) {
    cache.store(fresh_key(), random_code(rng_(), 7000 + rng_() % 3000));
    ASSERT_LE(cache.disk_bytes(), cap) << "after store " << i;
  }
  EXPECT_GT(cache.stats().evictions, 0u);
}

TEST_F(CacheStore, DiskBytesCountsEntries) {
  CompileCache cache(dir_.path());
  EXPECT_EQ(cache.disk_bytes(), 0u);
  const auto key = fresh_key();
  cache.store(key, random_code(rng_()));
  EXPECT_EQ(cache.disk_bytes(), fs::file_size(entry_file(key)));
}

TEST_F(CacheStore, DisabledCacheNeitherStoresNorLoads) {
  CompileCache cache(dir_.path());
  cache.set_enabled(false);
  EXPECT_FALSE(cache.enabled());
  const auto key = fresh_key();
  cache.store(key, random_code(rng_()));
  EXPECT_FALSE(cache.load(key));
  EXPECT_FALSE(fs::exists(dir_.path() / "v1"));
  cache.set_enabled(true);
  EXPECT_FALSE(cache.load(key));
}

TEST_F(CacheStore, ClearEmptiesMemoryAndDisk) {
  CompileCache cache(dir_.path());
  const auto key = fresh_key();
  cache.store(key, random_code(rng_()));
  cache.clear();
  EXPECT_FALSE(cache.load(key));
  EXPECT_EQ(cache.disk_bytes(), 0u);
  EXPECT_EQ(cache.stats().memory_hits + cache.stats().disk_hits, 0u);
}

TEST_F(CacheStore, ClearLeavesOtherFilesInDirectory) {
  test::write_text(dir_ / "notes.txt", "mine");
  CompileCache cache(dir_.path());
  cache.store(fresh_key(), random_code(rng_()));
  cache.clear();
  EXPECT_TRUE(fs::exists(dir_ / "notes.txt"));
}

TEST_F(CacheStore, ResetStatsZeroesCounters) {
  CompileCache cache(dir_.path());
  EXPECT_FALSE(cache.load(fresh_key()));
  cache.reset_stats();
  EXPECT_EQ(cache.stats().misses, 0u);
}

TEST_F(CacheStore, MaxBytesIsSettable) {
  CompileCache cache(dir_.path(), 12345);
  EXPECT_EQ(cache.max_bytes(), 12345u);
  cache.set_max_bytes(777);
  EXPECT_EQ(cache.max_bytes(), 777u);
  EXPECT_EQ(cache.directory(), dir_.path());
}

TEST_F(CacheStore, StaleTemporaryFilesAreRemoved) {
  const auto key = fresh_key();
  const fs::path stale = dir_.path() / "v1" / "ab" / "abab.tmp.1.1.1";
  test::write_text(stale, "half an entry");
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  const fs::path fresh = dir_.path() / "v1" / "ab" / "abcd.tmp.2.2.2";
  test::write_text(fresh, "being written");
  CompileCache cache(dir_.path());
  cache.store(key, random_code(rng_()));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh)) << "a writer may still be busy with it";
}

TEST_F(CacheStore, UnwritableDirectoryKeepsMemoryLevelAndWarnsOnce) {
  test::write_text(dir_ / "blocker", "a file where the cache directory should be");
  CompileCache cache(dir_.path() / "blocker" / "cache");
  const auto key = fresh_key();
  const auto code = random_code(rng_());
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(cache.store(key, code));
  EXPECT_NO_THROW(cache.store(fresh_key(), random_code(rng_())));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("CUDAKIT_CACHE_DIR"), std::string::npos) << err;
  EXPECT_EQ(err.find("warning"), err.rfind("warning")) << "one warning only:\n" << err;
  auto back = cache.load(key);
  ASSERT_TRUE(back);
  EXPECT_TRUE(same_code(*back, code));
  EXPECT_NE(cache.disk_problem().find("blocker"), std::string::npos) << cache.disk_problem();
}

TEST_F(CacheStore, CheckDiskReportsUnwritableDirectory) {
  test::write_text(dir_ / "blocker", "x");
  CompileCache cache(dir_.path() / "blocker");
  testing::internal::CaptureStderr();
  const std::string problem = cache.check_disk();
  testing::internal::GetCapturedStderr();
  EXPECT_FALSE(problem.empty());
  EXPECT_EQ(problem, cache.disk_problem());
}

TEST_F(CacheStore, CheckDiskOnWritableDirectoryFindsNoProblem) {
  CompileCache cache(dir_.path() / "new" / "cache");
  EXPECT_EQ(cache.check_disk(), "");
  EXPECT_TRUE(fs::is_directory(dir_.path() / "new" / "cache"));
}

TEST_F(CacheStore, NoDirectoryMeansMemoryOnly) {
  CompileCache cache("");
  const auto key = fresh_key();
  testing::internal::CaptureStderr();
  cache.store(key, random_code(rng_()));
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(cache.load(key));
  EXPECT_FALSE(cache.disk_problem().empty());
}

TEST_F(CacheStore, MemoryLevelDropsLeastRecentlyUsedBeyond256Entries) {
  CompileCache cache("");  // no disk level: what is not in memory is gone
  testing::internal::CaptureStderr();
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) {
    keys.push_back(fresh_key());
    cache.store(keys.back(), random_code(rng_(), 64));
    if (i == 100) {
      ASSERT_TRUE(cache.load(keys[0]));  // keeps key 0 recently used
    }
  }
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(cache.load(keys[0]));
  EXPECT_FALSE(cache.load(keys[1]));
  EXPECT_TRUE(cache.load(keys[299]));
  std::size_t held = 0;
  for (const auto& key : keys) held += cache.load(key).has_value();
  EXPECT_EQ(held, 256u);
}

TEST_F(CacheStore, KeyWithPathCharactersIsArgumentError) {
  CompileCache cache(dir_.path());
  EXPECT_THROW(cache.load("../../etc/passwd"), ArgumentError);
  EXPECT_THROW(cache.store("a/b", random_code(rng_())), ArgumentError);
}

TEST_F(CacheStore, EmptyOrOneCharacterKeyIsArgumentError) {
  CompileCache cache(dir_.path());
  EXPECT_THROW(cache.load(""), ArgumentError);
  EXPECT_THROW(cache.store("a", random_code(rng_())), ArgumentError);
}

TEST_F(CacheStore, OverlongKeyIsArgumentError) {
  CompileCache cache(dir_.path());
  EXPECT_THROW(cache.load(std::string(129, 'a')), ArgumentError);
}

}  // namespace
}  // namespace cudakit
