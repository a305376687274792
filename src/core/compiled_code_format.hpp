// The byte format of one compile-cache entry on disk. Kept apart from the
// cache so that the format can be read, tested and fuzzed on its own.
//
//   offset  size  field
//   0       8     magic "CKCACHE\0"
//   8       4     schema version (little endian u32)
//   12      4     reserved, 0
//   16      8     payload length N (little endian u64)
//   24      N     payload: the key, then every field of CompiledCode
//   24+N    8     XXH3-64 of the payload (little endian u64)
//
// Strings and byte arrays in the payload are a u64 length then the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cudakit/compiled_code.hpp"

namespace cudakit::detail {

inline constexpr char cache_entry_magic[8] = {'C', 'K', 'C', 'A', 'C', 'H', 'E', '\0'};
inline constexpr std::size_t cache_entry_header_bytes = 24;
inline constexpr std::size_t cache_entry_trailer_bytes = 8;

// The whole entry (header, payload, checksum) for `code` stored under `key`.
std::vector<std::uint8_t> encode_cache_entry(std::string_view key, const CompiledCode& code,
                                             std::uint32_t schema_version);

// Decodes an entry; nullopt when anything is wrong (bad magic, other schema
// version, length mismatch, checksum mismatch, truncated or malformed payload,
// or an entry stored under another key). `why`, when given, receives the
// reason. Never reads outside `bytes`, whatever they contain.
std::optional<CompiledCode> decode_cache_entry(std::span<const std::uint8_t> bytes,
                                               std::string_view key, std::uint32_t schema_version,
                                               std::string* why = nullptr);

}  // namespace cudakit::detail
