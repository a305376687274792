#include "backend/cpu/kept_sources.hpp"

#include <unistd.h>
#include <xxhash.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string_view>
#include <system_error>

namespace cudakit::detail::cpu {
namespace fs = std::filesystem;
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// Written beside the files once every one of them is in place.
constexpr const char* kCompleteMarker = ".complete";

bool write_atomically(const fs::path& path, std::string_view text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return false;
  // Unique per process and per call: two threads compiling the same source
  // each write a whole file of their own before the rename.
  static std::atomic<unsigned long long> counter{0};
  const fs::path temporary =
      path.parent_path() / (path.filename().string() + ".tmp" + std::to_string(::getpid()) + "." +
                            std::to_string(counter.fetch_add(1)));
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) return false;
  }
  fs::rename(temporary, path, ec);
  if (ec) fs::remove(temporary, ec);
  return !ec;
}

}  // namespace

fs::path kept_sources_root() {
  fs::path base;
  if (std::string dir = env("CUDAKIT_CACHE_DIR"); !dir.empty()) {
    base = dir;
  } else if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/') {
    base = fs::path(xdg) / "cudakit";
  } else if (std::string home = env("HOME"); !home.empty()) {
    base = fs::path(home) / ".cache" / "cudakit";
  } else {
    std::string tmp = env("TMPDIR");
    base = fs::path(tmp.empty() ? "/tmp" : tmp) / ("cudakit-" + std::to_string(::getuid()));
  }
  return base / "cpu-sources";
}

fs::path keep_sources(const SourceFiles& files) {
  XXH64_state_t* state = XXH64_createState();
  XXH64_reset(state, 0);
  for (const auto& [name, text] : files) {
    // Lengths first, so no two different lists hash the same text.
    const unsigned long long sizes[2] = {name.size(), text.size()};
    XXH64_update(state, sizes, sizeof sizes);
    XXH64_update(state, name.data(), name.size());
    XXH64_update(state, text.data(), text.size());
  }
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(XXH64_digest(state)));
  XXH64_freeState(state);

  const fs::path dir = kept_sources_root() / hash;
  std::error_code ec;
  if (fs::exists(dir / kCompleteMarker, ec)) return dir;
  for (const auto& [name, text] : files)
    if (!write_atomically(dir / name, text)) return {};
  if (!write_atomically(dir / kCompleteMarker, "")) return {};
  return dir;
}

}  // namespace cudakit::detail::cpu
