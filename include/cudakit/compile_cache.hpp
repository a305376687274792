// The compile cache: compiled code kept in memory (per process) and on disk
// (across processes), keyed by everything that changes the compiler's output.
// Disk entries are written atomically (temp file + rename), carry a checksum,
// and a corrupt or truncated entry is recompiled, never loaded.
//
// Environment: CUDAKIT_CACHE_DIR (default $XDG_CACHE_HOME/cudakit, else
// ~/.cache/cudakit); CUDAKIT_CACHE=0 disables both levels;
// CUDAKIT_CACHE_MAX_BYTES caps the disk size (default 1 GiB, LRU eviction).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cudakit/compile_options.hpp"
#include "cudakit/compiled_code.hpp"

namespace cudakit {

struct CompileCacheStats {
  std::size_t memory_hits = 0;
  std::size_t disk_hits = 0;
  std::size_t misses = 0;
  std::size_t corrupt_entries = 0;  // found on disk and discarded
  std::size_t evictions = 0;
};

class CompileCache {
 public:
  // The process-wide cache, configured from the environment.
  static CompileCache& global();
  // A cache over `directory` (tests, tools).
  explicit CompileCache(std::filesystem::path directory, std::size_t max_bytes = std::size_t(1)
                                                                                 << 30);
  ~CompileCache();
  CompileCache(const CompileCache&) = delete;
  CompileCache& operator=(const CompileCache&) = delete;

  // Hex digest naming the entry for this compile. `prepared_source` is the
  // source as compiled; included headers are resolved (options.headers, then
  // options.include_dirs) and their content hashed in, recursively.
  static std::string key(std::string_view prepared_source, const CompileOptions& options,
                         std::string_view compiler_identity);

  std::optional<CompiledCode> load(const std::string& key);
  void store(const std::string& key, const CompiledCode& code);
  void clear();  // both levels

  bool enabled() const noexcept;
  void set_enabled(bool enabled) noexcept;
  const std::filesystem::path& directory() const noexcept;
  std::size_t max_bytes() const noexcept;
  void set_max_bytes(std::size_t bytes) noexcept;
  std::size_t disk_bytes() const;  // current size of entries on disk
  CompileCacheStats stats() const;
  void reset_stats();

  // Empty while the disk level works. Otherwise why writing to it was turned
  // off for this process (e.g. the directory is not writable): compiles still
  // work, entries stay in memory. `cudakit doctor` shows it.
  std::string disk_problem() const;
  // Creates the directory if needed and writes (then removes) a probe file
  // now, instead of at the first store; returns disk_problem() afterwards.
  std::string check_disk();

  // The on-disk format version; part of every key.
  static constexpr int schema_version = 1;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace cudakit
