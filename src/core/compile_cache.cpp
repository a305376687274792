// The two levels of the compile cache. The memory level is an LRU map in
// this process. The disk level is one file per entry, <dir>/v<schema>/<k0k1>/<key>.ckc,
// shared by every process: entries are written to a unique temporary file
// and renamed into place, so a reader sees a whole entry or none, and two
// writers of one key both succeed (their contents are identical). The hit
// path is open, read, check, touch mtime, close: nothing else.
#include "cudakit/compile_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <list>
#include <mutex>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "core/compile_cache_settings.hpp"
#include "core/compiled_code_format.hpp"
#include "core/regular_file.hpp"
#include "cudakit/error.hpp"

namespace cudakit {
namespace {

// The memory level holds what a process typically reuses (the kernels of one
// program, the fused expressions of one workload) without growing unbounded.
constexpr std::size_t memory_max_entries = 256;
constexpr std::size_t memory_max_bytes = std::size_t(256) << 20;
// Rescan the directory's size at least this often, since other processes add
// entries that this one's running estimate does not see.
constexpr unsigned stores_between_scans = 32;
// Temporary files older than this belong to a writer that died mid-write.
constexpr std::time_t stale_temp_seconds = 3600;
constexpr std::string_view entry_suffix = ".ckc";
constexpr std::string_view temp_marker = ".tmp.";
using Clock = std::chrono::steady_clock;
// Far above any compiled kernel; a bigger file at an entry's name is garbage.
constexpr std::uint64_t max_entry_bytes = std::uint64_t(1) << 31;

std::size_t code_bytes(const CompiledCode& c) {
  std::size_t bytes = sizeof c + c.image.size() + c.ptx.size() + c.log.size() + c.arch.size();
  for (const auto& [expr, lowered] : c.lowered_names) bytes += expr.size() + lowered.size() + 64;
  return bytes;
}

std::string errno_text(int error) {
  return std::error_code(error, std::generic_category()).message();
}

void check_key(const std::string& key, const char* doing) {
  bool ok = key.size() >= 2 && key.size() <= 128;
  for (char c : key)
    ok = ok && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                c == '_' || c == '-');
  if (!ok)
    throw ArgumentError(doing, "invalid compile-cache key '" + key + "'",
                        "use the string CompileCache::key() returns (2 to 128 letters, digits, "
                        "'_' or '-'; it names a file)");
}

bool write_all(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

struct DiskEntry {
  std::int64_t mtime_ns;
  std::uint64_t bytes;
  std::string path;
};

}  // namespace

struct CompileCache::Impl {
  std::filesystem::path directory;
  std::string root;  // directory/v<schema>; empty when there is no directory
  std::atomic<std::size_t> max_bytes;
  std::atomic<bool> enabled{true};
  std::atomic<bool> disk_writable{true};

  mutable std::mutex mutex;                             // guards everything below
  std::list<std::pair<std::string, CompiledCode>> lru;  // front: most recently used
  std::unordered_map<std::string, std::list<std::pair<std::string, CompiledCode>>::iterator> index;
  std::size_t memory_bytes = 0;
  CompileCacheStats stats;
  std::string disk_problem;
  std::size_t disk_estimate = 0;
  bool estimate_valid = false;
  unsigned stores_since_scan = 0;
  std::uint64_t temp_counter = 0;
  // Tells apart instances of one process writing the same key; cheaper than
  // std::random_device, which would cost a fresh process tens of microseconds.
  std::uint64_t temp_salt = static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()) ^
                            reinterpret_cast<std::uintptr_t>(this);

  std::string subdir(const std::string& key) const { return root + "/" + key.substr(0, 2); }
  std::string entry_path(const std::string& key) const {
    return subdir(key) + "/" + key + std::string(entry_suffix);
  }

  // Lock held.
  void memory_put(const std::string& key, CompiledCode code) {
    if (auto it = index.find(key); it != index.end()) {
      memory_bytes -= code_bytes(it->second->second);
      lru.erase(it->second);
      index.erase(it);
    }
    const std::size_t bytes = code_bytes(code);
    if (bytes > memory_max_bytes) return;
    lru.emplace_front(key, std::move(code));
    index.emplace(key, lru.begin());
    memory_bytes += bytes;
    while (lru.size() > memory_max_entries || memory_bytes > memory_max_bytes) {
      memory_bytes -= code_bytes(lru.back().second);
      index.erase(lru.back().first);
      lru.pop_back();
    }
  }

  void memory_clear() {
    lru.clear();
    index.clear();
    memory_bytes = 0;
  }

  // Turns disk writes off for the rest of this instance's life, saying why
  // once on stderr; compiles carry on with the memory level.
  void turn_off_disk(const std::string& problem) {
    std::lock_guard lock(mutex);
    if (!disk_writable.exchange(false)) return;
    disk_problem = problem;
    std::fprintf(stderr, "cudakit: warning: %s\n", problem.c_str());
  }

  std::string write_problem(const std::string& what, const std::string& reason) const {
    return "compile cache: cannot " + what + ": " + reason +
           "; the disk cache is off for this process (compiles still work). Set "
           "CUDAKIT_CACHE_DIR to a writable directory, or CUDAKIT_CACHE=0 to silence this.";
  }

  std::optional<CompiledCode> disk_load(const std::string& key, bool& corrupt) {
    if (root.empty()) return std::nullopt;
    const std::string path = entry_path(key);
    // Not a blocking open: a named pipe at the entry's path must not hang
    // the compile (it is simply not an entry).
    const auto file = detail::open_regular_file(path);
    if (!file) return std::nullopt;
    const int fd = file->fd;
    const struct stat& st = file->status;
    if (static_cast<std::uint64_t>(st.st_size) > max_entry_bytes) {
      // No compile produces this: garbage, not worth reading into memory.
      ::close(fd);
      ::unlink(path.c_str());
      corrupt = true;
      return std::nullopt;
    }
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);
    auto code = detail::decode_cache_entry(bytes, key, schema_version);
    if (!code) {
      // Remove the file that was read, not one a writer may have renamed
      // over it since: compare the inode before unlinking.
      struct stat now {};
      if (::stat(path.c_str(), &now) == 0 && now.st_ino == st.st_ino && now.st_dev == st.st_dev)
        ::unlink(path.c_str());
      ::close(fd);
      corrupt = true;
      return std::nullopt;
    }
    // LRU by mtime: a hit makes the entry young. Fails harmlessly on a
    // read-only shared cache.
    ::futimens(fd, nullptr);
    ::close(fd);
    return code;
  }

  // The bytes written, or 0 when the entry could not be written.
  std::size_t disk_store(const std::string& key, const CompiledCode& code) {
    if (!disk_writable.load(std::memory_order_relaxed)) return 0;
    if (root.empty()) {
      turn_off_disk(
          "compile cache: no cache directory (CUDAKIT_CACHE_DIR, XDG_CACHE_HOME and HOME "
          "are unset); the disk cache is off for this process. Set CUDAKIT_CACHE_DIR.");
      return 0;
    }
    const auto bytes = detail::encode_cache_entry(key, code, schema_version);
    const std::string dir = subdir(key);
    std::uint64_t serial;
    {
      std::lock_guard lock(mutex);
      serial = ++temp_counter;
    }
    // Unique per process, per store and per instance: two writers never share a temporary file.
    const std::string temp = dir + "/" + key + std::string(temp_marker) +
                             std::to_string(::getpid()) + "." + std::to_string(serial) + "." +
                             std::to_string(temp_salt % 1000003);
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) {
        turn_off_disk(write_problem("create the directory " + dir, ec.message()));
        return 0;
      }
      fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
      turn_off_disk(write_problem("create a file in " + dir, errno_text(errno)));
      return 0;
    }
    if (!write_all(fd, bytes.data(), bytes.size())) {
      const int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      turn_off_disk(write_problem("write " + temp, errno_text(error)));
      return 0;
    }
    if (::close(fd) != 0 || ::rename(temp.c_str(), entry_path(key).c_str()) != 0) {
      const int error = errno;
      ::unlink(temp.c_str());
      // Something that is not a file sits at the entry's name: skip this
      // entry, the directory itself is fine.
      if (error == EISDIR || error == ENOTEMPTY || error == EEXIST) return 0;
      turn_off_disk(write_problem("write " + entry_path(key), errno_text(error)));
      return 0;
    }
    return bytes.size();
  }

  // Every entry on disk and their total size. Removes temporary files left
  // by writers that died, when asked.
  std::vector<DiskEntry> scan(std::size_t& total, bool remove_stale) const {
    std::vector<DiskEntry> entries;
    total = 0;
    if (root.empty()) return entries;
    DIR* top = ::opendir(root.c_str());
    if (!top) return entries;
    const std::time_t now = std::time(nullptr);
    while (const dirent* d = ::readdir(top)) {
      if (d->d_name[0] == '.') continue;
      const std::string sub = root + "/" + d->d_name;
      DIR* inner = ::opendir(sub.c_str());
      if (!inner) continue;
      while (const dirent* e = ::readdir(inner)) {
        const std::string_view name = e->d_name;
        const bool is_entry = ends_with(name, entry_suffix);
        const bool is_temp = name.find(temp_marker) != std::string_view::npos;
        if (!is_entry && !is_temp) continue;
        struct stat st {};
        if (::fstatat(::dirfd(inner), e->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode)) continue;
        if (is_temp) {
          if (remove_stale && now - st.st_mtime > stale_temp_seconds)
            ::unlinkat(::dirfd(inner), e->d_name, 0);
          continue;
        }
        total += static_cast<std::size_t>(st.st_size);
        entries.push_back({std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                           static_cast<std::uint64_t>(st.st_size), sub + "/" + std::string(name)});
      }
      ::closedir(inner);
    }
    ::closedir(top);
    return entries;
  }

  // After a store: when the directory may be over the cap, evict the least
  // recently used entries (oldest mtime) until it is under 90% of it, so
  // that eviction does not run again at the very next store.
  void evict_if_needed(std::size_t written) {
    const std::size_t cap = max_bytes.load();
    {
      std::lock_guard lock(mutex);
      if (estimate_valid) disk_estimate += written;
      const bool scan_now =
          !estimate_valid || disk_estimate > cap || ++stores_since_scan >= stores_between_scans;
      if (!scan_now) return;
    }
    std::size_t total = 0;
    auto entries = scan(total, true);
    std::size_t evicted = 0;
    if (total > cap) {
      std::sort(entries.begin(), entries.end(),
                [](const DiskEntry& a, const DiskEntry& b) { return a.mtime_ns < b.mtime_ns; });
      const std::size_t target = cap - cap / 10;
      for (const auto& e : entries) {
        if (total <= target) break;
        if (::unlink(e.path.c_str()) == 0) {
          ++evicted;
          total -= e.bytes;
        } else if (errno == ENOENT) {
          total -= e.bytes;  // another process evicted it first
        }
      }
    }
    std::lock_guard lock(mutex);
    disk_estimate = total;
    estimate_valid = true;
    stores_since_scan = 0;
    stats.evictions += evicted;
  }
};

CompileCache& CompileCache::global() {
  // Never destroyed: kernels may be compiled from static destructors and
  // other threads while the process exits.
  static CompileCache* cache = [] {
    auto settings = detail::compile_cache_settings();
    for (const auto& warning : settings.warnings)
      std::fprintf(stderr, "cudakit: warning: %s\n", warning.c_str());
    auto* c = new CompileCache(settings.directory, settings.max_bytes);
    c->set_enabled(settings.enabled);
    return c;
  }();
  return *cache;
}

CompileCache::CompileCache(std::filesystem::path directory, std::size_t max_bytes)
    : impl_(new Impl) {
  // Absolute, so that a later chdir does not move the cache.
  if (!directory.empty()) {
    std::error_code ec;
    auto absolute = directory.is_absolute() ? directory : std::filesystem::absolute(directory, ec);
    impl_->directory = ec ? directory : absolute.lexically_normal();
    std::string dir = impl_->directory.string();
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    impl_->root = dir + "/v" + std::to_string(schema_version);
  }
  impl_->max_bytes = max_bytes;
}

CompileCache::~CompileCache() { delete impl_; }

std::optional<CompiledCode> CompileCache::load(const std::string& key) {
  check_key(key, "loading from the compile cache");
  if (!impl_->enabled.load(std::memory_order_relaxed)) return std::nullopt;
  {
    std::lock_guard lock(impl_->mutex);
    if (auto it = impl_->index.find(key); it != impl_->index.end()) {
      impl_->lru.splice(impl_->lru.begin(), impl_->lru, it->second);
      ++impl_->stats.memory_hits;
      return it->second->second;
    }
  }
  bool corrupt = false;
  auto code = impl_->disk_load(key, corrupt);
  std::lock_guard lock(impl_->mutex);
  if (code) {
    ++impl_->stats.disk_hits;
    impl_->memory_put(key, *code);
    return code;
  }
  ++impl_->stats.misses;
  if (corrupt) ++impl_->stats.corrupt_entries;
  return std::nullopt;
}

void CompileCache::store(const std::string& key, const CompiledCode& code) {
  check_key(key, "storing in the compile cache");
  if (!impl_->enabled.load(std::memory_order_relaxed)) return;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->memory_put(key, code);
  }
  if (const std::size_t written = impl_->disk_store(key, code)) impl_->evict_if_needed(written);
}

void CompileCache::clear() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->memory_clear();
    impl_->estimate_valid = false;
  }
  if (!impl_->root.empty()) {
    // Only this schema's subtree: the directory may hold other versions' entries
    // in use by other cudakit builds, or the user's own files.
    std::error_code ec;
    std::filesystem::remove_all(impl_->root, ec);
  }
}

bool CompileCache::enabled() const noexcept { return impl_->enabled.load(); }
void CompileCache::set_enabled(bool enabled) noexcept { impl_->enabled = enabled; }
const std::filesystem::path& CompileCache::directory() const noexcept { return impl_->directory; }
std::size_t CompileCache::max_bytes() const noexcept { return impl_->max_bytes.load(); }
void CompileCache::set_max_bytes(std::size_t bytes) noexcept { impl_->max_bytes = bytes; }

std::size_t CompileCache::disk_bytes() const {
  std::size_t total = 0;
  impl_->scan(total, false);
  return total;
}

CompileCacheStats CompileCache::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

void CompileCache::reset_stats() {
  std::lock_guard lock(impl_->mutex);
  impl_->stats = {};
}

std::string CompileCache::disk_problem() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->disk_problem;
}

std::string CompileCache::check_disk() {
  if (impl_->disk_writable.load() && !impl_->root.empty()) {
    const std::string probe_dir = impl_->root + "/00";
    std::error_code ec;
    std::filesystem::create_directories(probe_dir, ec);
    if (ec) {
      impl_->turn_off_disk(impl_->write_problem("create the directory " + probe_dir, ec.message()));
    } else {
      const std::string probe =
          probe_dir + "/probe" + std::string(temp_marker) + std::to_string(::getpid());
      const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) {
        impl_->turn_off_disk(
            impl_->write_problem("create a file in " + probe_dir, errno_text(errno)));
      } else {
        ::close(fd);
        ::unlink(probe.c_str());
      }
    }
  } else if (impl_->root.empty()) {
    impl_->disk_store("00", CompiledCode{});  // records the "no directory" problem
  }
  return disk_problem();
}

}  // namespace cudakit
