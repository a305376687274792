// The on-disk entry format: every field survives a round trip, and any
// damage (truncation, a flipped bit, wrong magic or version, garbage) is
// detected, never read past the end and never crashes.
#include <gtest/gtest.h>

#include <random>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "cache_test_util.hpp"
#include "core/compiled_code_format.hpp"

namespace cudakit {
namespace {

using detail::decode_cache_entry;
using detail::encode_cache_entry;
using test::random_code;
using test::same_code;

constexpr std::uint32_t version = 1;

TEST(CacheEntryFormat, RoundTripKeepsEveryField) {
  const auto code = random_code(std::random_device{}());
  const auto bytes = encode_cache_entry("abc123", code, version);
  std::string why;
  auto back = decode_cache_entry(bytes, "abc123", version, &why);
  ASSERT_TRUE(back) << why;
  EXPECT_TRUE(same_code(*back, code));
}

TEST(CacheEntryFormat, EmptyCodeRoundTrips) {
  const CompiledCode empty;
  auto back = decode_cache_entry(encode_cache_entry("k0", empty, version), "k0", version);
  ASSERT_TRUE(back);
  EXPECT_TRUE(same_code(*back, empty));
}

TEST(CacheEntryFormat, EveryTruncationIsRejected) {
  auto code = random_code(std::random_device{}(), 97);
  const auto bytes = encode_cache_entry("key", code, version);
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(decode_cache_entry(std::span(bytes.data(), n), "key", version)) << "length " << n;
}

TEST(CacheEntryFormat, AppendedBytesAreRejected) {
  auto bytes = encode_cache_entry("key", random_code(std::random_device{}()), version);
  bytes.push_back(0);
  std::string why;
  EXPECT_FALSE(decode_cache_entry(bytes, "key", version, &why));
  EXPECT_NE(why.find("length"), std::string::npos) << why;
}

TEST(CacheEntryFormat, EveryFlippedBitIsRejected) {
  std::mt19937_64 rng(std::random_device{}());
  auto code = random_code(rng(), 61);
  const auto good = encode_cache_entry("key", code, version);
  for (std::size_t i = 0; i < good.size(); ++i) {
    auto bad = good;
    bad[i] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    EXPECT_FALSE(decode_cache_entry(bad, "key", version)) << "byte " << i;
  }
}

TEST(CacheEntryFormat, WrongMagicIsRejected) {
  auto bytes = encode_cache_entry("key", random_code(std::random_device{}()), version);
  bytes[0] = 'X';
  std::string why;
  EXPECT_FALSE(decode_cache_entry(bytes, "key", version, &why));
  EXPECT_EQ(why, "bad magic");
}

TEST(CacheEntryFormat, OtherSchemaVersionIsRejected) {
  const auto bytes = encode_cache_entry("key", random_code(std::random_device{}()), version);
  std::string why;
  EXPECT_FALSE(decode_cache_entry(bytes, "key", version + 1, &why));
  EXPECT_EQ(why, "other schema version");
}

TEST(CacheEntryFormat, EntryOfAnotherKeyIsRejected) {
  const auto bytes = encode_cache_entry("key1", random_code(std::random_device{}()), version);
  std::string why;
  EXPECT_FALSE(decode_cache_entry(bytes, "key2", version, &why));
  EXPECT_EQ(why, "entry belongs to another key");
}

TEST(CacheEntryFormat, RandomGarbageIsRejectedWithoutCrashing) {
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::uint8_t> bytes(rng() % 200);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    EXPECT_FALSE(decode_cache_entry(bytes, "key", version));
  }
}

// Garbage behind a valid header and checksum reaches the payload parser,
// which must bound every length it reads.
TEST(CacheEntryFormat, GarbagePayloadWithValidChecksumIsRejectedWithoutCrashing) {
  std::mt19937_64 rng(std::random_device{}());
  const auto valid = encode_cache_entry("key", CompiledCode{}, version);
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::uint8_t> payload(rng() % 120);
    for (auto& b : payload) b = static_cast<std::uint8_t>(rng() % 4 == 0 ? 0xff : rng() % 8);
    // A valid key prefix now and then, so that later fields are reached too.
    if (round % 2 == 0 && payload.size() > 11) {
      const std::uint8_t prefix[11] = {3, 0, 0, 0, 0, 0, 0, 0, 'k', 'e', 'y'};
      std::copy(std::begin(prefix), std::end(prefix), payload.begin());
    }
    std::vector<std::uint8_t> bytes(valid.begin(),
                                    valid.begin() + detail::cache_entry_header_bytes);
    const std::uint64_t size = payload.size();
    for (int i = 0; i < 8; ++i) bytes[16 + i] = static_cast<std::uint8_t>(size >> (8 * i));
    bytes.insert(bytes.end(), payload.begin(), payload.end());
    const std::uint64_t sum = XXH3_64bits(payload.data(), payload.size());
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<std::uint8_t>(sum >> (8 * i)));
    auto decoded = decode_cache_entry(bytes, "key", version);
    if (decoded) {
      // Only a well-formed payload may decode; re-encoding it gives the same bytes.
      EXPECT_EQ(encode_cache_entry("key", *decoded, version), bytes);
    }
  }
}

}  // namespace
}  // namespace cudakit
