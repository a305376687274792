// How the process-wide compile cache is configured from the environment:
// CUDAKIT_CACHE, CUDAKIT_CACHE_DIR, XDG_CACHE_HOME, HOME,
// CUDAKIT_CACHE_MAX_BYTES. Separate from the cache so it can be tested
// without touching the process-wide instance.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudakit::detail {

inline constexpr std::size_t default_cache_max_bytes = std::size_t(1) << 30;

struct CompileCacheSettings {
  bool enabled = true;    // CUDAKIT_CACHE=0 (or off/false/no) turns both levels off
  std::string directory;  // empty: no disk level (nowhere to put it)
  std::size_t max_bytes = default_cache_max_bytes;
  std::vector<std::string> warnings;  // bad values met, each with what was used instead
};

// Reads the settings through `getenv` (std::getenv by default; tests pass
// their own).
CompileCacheSettings compile_cache_settings(
    const std::function<const char*(const char*)>& getenv = nullptr);

// "1048576", "512K", "256M", "1G", "2GiB", "1.5G" -> bytes; nullopt when not a size.
std::optional<std::size_t> parse_byte_size(std::string_view text);

}  // namespace cudakit::detail
