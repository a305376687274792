#include "backend/cpu/device_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>

#include "cudakit/error.hpp"

namespace cudakit::detail::cpu {
namespace {

constexpr std::size_t kMaxRounding = std::size_t{64} << 20;  // page rounding of guarded blocks
constexpr std::size_t kCanaryMax = kDeviceAlignment - 1 + kRedZoneBytes;

// Not one repeated byte, so a kernel that fills past the end with a constant
// is seen whatever the constant.
const std::array<unsigned char, kCanaryMax>& canary_pattern() {
  static const std::array<unsigned char, kCanaryMax> pattern = [] {
    std::array<unsigned char, kCanaryMax> p{};
    for (std::size_t i = 0; i < p.size(); ++i)
      p[i] = static_cast<unsigned char>(0xA5u ^ (i * 0x3Du) ^ (i >> 3));
    return p;
  }();
  return pattern;
}

std::string hex(std::uintptr_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// A number from a /proc or /sys file; false when missing or "max".
bool read_number(const std::string& path, std::size_t& out) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0) return false;
  out = static_cast<std::size_t>(v);
  return true;
}

// `key`'s value in a "key value" file (memory.stat); 0 when missing.
std::size_t read_stat(const std::string& path, std::string_view key) {
  std::ifstream in(path);
  std::string name;
  unsigned long long value = 0;
  while (in >> name >> value)
    if (name == key) return static_cast<std::size_t>(value);
  return 0;
}

// A "Key:   value kB" line of /proc/meminfo, in bytes; 0 when missing. Read
// line by line: some lines (HugePages_Total) have no unit.
std::size_t meminfo(std::string_view key) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() ||
        line[key.size()] != ':')
      continue;
    const unsigned long long kb = std::strtoull(line.c_str() + key.size() + 1, nullptr, 10);
    return static_cast<std::size_t>(kb) * 1024;
  }
  return 0;
}

// What the host can give: MemAvailable, and at least half of MemTotal (a
// virtual machine whose memory grows as it is used starts with little
// available); the free pages where /proc/meminfo says neither.
std::size_t mem_available() {
  const std::size_t available = std::max(meminfo("MemAvailable"), meminfo("MemTotal") / 2);
  if (available != 0) return available;
  return static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) *
         static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// What the cgroup (v2, else v1) this process runs in still lets it use: its
// limit less what it uses that cannot be reclaimed (inactive page cache can);
// the smallest along the path to the root. SIZE_MAX when there is no limit.
std::size_t cgroup_available() {
  std::size_t best = SIZE_MAX;
  auto consider = [&](const std::string& dir, const char* limit_file, const char* usage_file,
                      const char* inactive_key) {
    std::size_t limit = 0, usage = 0;
    if (!read_number(dir + "/" + limit_file, limit) || limit >= (std::size_t{1} << 60)) return;
    read_number(dir + "/" + usage_file, usage);
    const std::size_t inactive = read_stat(dir + "/memory.stat", inactive_key);
    usage = usage > inactive ? usage - inactive : 0;
    best = std::min(best, limit > usage ? limit - usage : 0);
  };
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    const bool v2 = line.compare(0, first, "0") == 0 && controllers.empty();
    const bool v1 = controllers == "memory" || controllers.find("memory,") == 0 ||
                    controllers.find(",memory") != std::string::npos;
    if (!v2 && !v1) continue;
    const std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    const char* limit_file = v2 ? "memory.max" : "memory.limit_in_bytes";
    const char* usage_file = v2 ? "memory.current" : "memory.usage_in_bytes";
    const char* inactive_key = v2 ? "inactive_file" : "total_inactive_file";
    // Inside a container the hierarchy is mounted at the group itself: the
    // root's files are then the group's.
    for (;;) {
      consider(root + path, limit_file, usage_file, inactive_key);
      if (path.empty() || path == "/") break;
      path = path.substr(0, path.rfind('/'));
    }
  }
  return best;
}

// CUDAKIT_CPU_MEMORY: digits, then an optional K, M, G or T (powers of 1024),
// optionally followed by "B" or "iB". 0 when unset or invalid.
std::size_t environment_limit() {
  const char* v = std::getenv("CUDAKIT_CPU_MEMORY");
  if (!v || !*v) return 0;
  char* end = nullptr;
  errno = 0;
  unsigned long long n = *v >= '0' && *v <= '9' ? std::strtoull(v, &end, 10) : 0;
  bool valid = end != nullptr && end != v && errno == 0;
  int shift = 0;
  if (valid) {
    switch (*end) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'm':
      case 'M':
        shift = 20;
        break;
      case 'g':
      case 'G':
        shift = 30;
        break;
      case 't':
      case 'T':
        shift = 40;
        break;
      default:
        break;
    }
    if (shift) ++end;
    const std::string_view rest(end);
    valid = rest.empty() || rest == "B" || (shift && rest == "iB");
    valid = valid && n > 0 && n <= (~0ull >> shift);
  }
  if (valid) return static_cast<std::size_t>(n << shift);
  std::fprintf(stderr,
               "cudakit: warning: CUDAKIT_CPU_MEMORY='%s' is not a size (bytes, or with a K, M, G "
               "or T suffix, e.g. 4G); the CPU device gets what the host has available\n",
               v);
  return 0;
}

}  // namespace

std::size_t configured_memory_limit() {
  static const std::size_t limit = [] {
    if (std::size_t from_environment = environment_limit()) return from_environment;
    const std::size_t host = mem_available();
    // A cgroup whose reading leaves (next to) nothing is one whose usage is
    // counted some other way (a virtual machine's, say): a device of no
    // memory would refuse every allocation, so such a reading is not used.
    constexpr std::size_t least_believed = std::size_t{256} << 20;
    const std::size_t group = cgroup_available();
    return group >= least_believed ? std::min(host, group) : host;
  }();
  return limit;
}

DeviceMemory& DeviceMemory::instance() {
  static DeviceMemory& memory = *new DeviceMemory();
  return memory;
}

DeviceMemory::DeviceMemory()
    : limit_(configured_memory_limit()), page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
  std::size_t max_map_count = 65530;
  read_number("/proc/sys/vm/max_map_count", max_map_count);
  // Two mappings per guarded allocation; the rest is left to fiber stacks,
  // the heap and libraries.
  max_guarded_ = max_map_count / 8;
}

void* DeviceMemory::allocate(std::size_t bytes, bool exact, const char* what) {
  const std::size_t n = std::max<std::size_t>(bytes, 1);
  const std::size_t rounded = round_up(n, kDeviceAlignment);
  const std::string context = std::string(what) +
                              " on the CPU backend (the device's size is CUDAKIT_CPU_MEMORY, "
                              "else what the host had available when it started)";
  // Beyond any limit (and a request so large the rounding wraps).
  if (rounded < n || n > limit_) throw OutOfMemory(context, bytes, free_bytes(), limit_);
  const std::size_t data_pages = round_up(rounded, page_);
  const std::size_t heap_counted = exact ? rounded : rounded + kRedZoneBytes;
  Block b;
  b.bytes = n;
  {
    std::lock_guard lock(mutex_);
    const bool guard =
        !exact && guarded_ < max_guarded_ && rounding_ + (data_pages - rounded) <= kMaxRounding;
    b.counted = guard ? data_pages : heap_counted;
    const std::size_t free = limit_ - std::min(allocated_, limit_);
    if (b.counted > free) throw OutOfMemory(context, bytes, free, limit_);
    // Reserved now, so two threads cannot both take the last bytes.
    allocated_ += b.counted;
    if (guard) {
      ++guarded_;
      rounding_ += data_pages - rounded;
      b.mapped = data_pages + page_;
    }
  }
  unsigned char* data = nullptr;
  if (b.mapped) {
    void* base =
        mmap(nullptr, b.mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base != MAP_FAILED &&
        mprotect(static_cast<unsigned char*>(base) + data_pages, page_, PROT_NONE) != 0) {
      munmap(base, b.mapped);
      base = MAP_FAILED;
    }
    if (base != MAP_FAILED) {
      b.base = base;
      data = static_cast<unsigned char*>(base) + data_pages - rounded;
      b.canary = rounded - n;
    } else {
      // No mapping to be had (the process's map count, say): the heap with
      // a red zone instead.
      std::lock_guard lock(mutex_);
      --guarded_;
      rounding_ -= data_pages - rounded;
      allocated_ -= b.counted;
      b.mapped = 0;
      b.counted = heap_counted;
      allocated_ += b.counted;
    }
  }
  if (!b.mapped) {
    void* p = nullptr;
    const std::size_t size = exact ? n : rounded + kRedZoneBytes;
    if (posix_memalign(&p, kDeviceAlignment, size) == 0) {
      b.base = p;
      data = static_cast<unsigned char*>(p);
      b.canary = size - n;
    }
  }
  std::lock_guard lock(mutex_);
  if (!data) {
    allocated_ -= b.counted;
    throw OutOfMemory(context + ": the host refused the memory", bytes,
                      limit_ - std::min(allocated_, limit_), limit_);
  }
  if (!b.mapped && b.canary) ++red_zoned_;
  std::memcpy(data + n, canary_pattern().data(), b.canary);
  blocks_[reinterpret_cast<std::uintptr_t>(data)] = b;
  return data;
}

void DeviceMemory::release(const Block& b) noexcept {
  if (b.mapped)
    munmap(b.base, b.mapped);
  else
    std::free(b.base);
}

void DeviceMemory::free(void* data) noexcept {
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  Block b;
  long long damaged = -1;
  {
    std::lock_guard lock(mutex_);
    auto it = blocks_.find(begin);
    if (it == blocks_.end() || it->second.kind != MemoryKind::device) return;  // not ours
    b = it->second;
    damaged = damaged_canary(begin, b);
    blocks_.erase(it);
    allocated_ -= b.counted;
    if (b.mapped) {
      --guarded_;
      rounding_ -= b.mapped - page_ - round_up(b.bytes, kDeviceAlignment);
    } else if (b.canary) {
      --red_zoned_;
    }
  }
  if (damaged >= 0)
    std::fprintf(stderr,
                 "cudakit: warning: the %zu-byte device allocation at %s was written past its end "
                 "(byte %lld after it changed) by a kernel the CPU backend could not name: a "
                 "kernel reached it other than through a pointer argument; CUDAKIT_CPU_DEBUG=1 "
                 "finds the line\n",
                 b.bytes, hex(begin).c_str(), damaged);
  release(b);
}

void* DeviceMemory::allocate_pinned(std::size_t bytes, const char* what) {
  const std::size_t n = std::max<std::size_t>(bytes, 1);
  const std::size_t rounded = round_up(n, kDeviceAlignment);
  // Not counted against the device, but never more than the machine has
  // (with overcommit the heap could promise it, and the process would be
  // killed on first touch).
  const std::size_t physical = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * page_;
  void* p =
      rounded >= n && rounded <= physical ? std::aligned_alloc(kDeviceAlignment, rounded) : nullptr;
  if (!p)
    throw OutOfMemory(std::string(what) + " on the CPU backend", bytes, mem_available(), limit_);
  Block b;
  b.bytes = n;
  b.base = p;
  b.kind = MemoryKind::pinned;
  try {
    std::lock_guard lock(mutex_);
    blocks_[reinterpret_cast<std::uintptr_t>(p)] = b;
  } catch (...) {
    std::free(p);
    throw;
  }
  return p;
}

void DeviceMemory::free_pinned(void* data) noexcept {
  {
    std::lock_guard lock(mutex_);
    auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(data));
    if (it != blocks_.end() && it->second.kind == MemoryKind::pinned) blocks_.erase(it);
  }
  std::free(data);
}

void DeviceMemory::add_global(const void* data, std::size_t bytes) {
  if (!data || bytes == 0) return;
  Block b;
  b.bytes = bytes;
  b.kind = MemoryKind::global;
  std::lock_guard lock(mutex_);
  blocks_.emplace(reinterpret_cast<std::uintptr_t>(data), b);
}

void DeviceMemory::remove_global(const void* data) noexcept {
  std::lock_guard lock(mutex_);
  auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(data));
  if (it != blocks_.end() && it->second.kind == MemoryKind::global) blocks_.erase(it);
}

std::size_t DeviceMemory::free_bytes() const {
  std::lock_guard lock(mutex_);
  return limit_ - std::min(allocated_, limit_);
}

DeviceMemory::Map::const_iterator DeviceMemory::containing(std::uintptr_t address,
                                                           bool with_guard) const {
  auto it = blocks_.upper_bound(address);
  if (it == blocks_.begin()) return blocks_.end();
  --it;
  const Block& b = it->second;
  const std::size_t extent = b.bytes + b.canary + (with_guard && b.mapped ? page_ : 0);
  return address - it->first < extent ? it : blocks_.end();
}

long long DeviceMemory::damaged_canary(std::uintptr_t begin, const Block& b) {
  if (b.canary == 0) return -1;
  const auto* tail = reinterpret_cast<const unsigned char*>(begin + b.bytes);
  if (std::memcmp(tail, canary_pattern().data(), b.canary) == 0) return -1;
  for (std::size_t i = 0; i < b.canary; ++i)
    if (tail[i] != canary_pattern()[i]) return static_cast<long long>(i);
  return -1;
}

bool DeviceMemory::find(std::uintptr_t address, KnownRange& out) const {
  std::lock_guard lock(mutex_);
  auto it = containing(address, false);
  if (it == blocks_.end() || address - it->first >= it->second.bytes) return false;
  out = {it->first, it->second.bytes, it->second.kind};
  return true;
}

void DeviceMemory::check_range(std::uintptr_t address, std::size_t bytes,
                               const std::string& what) const {
  std::lock_guard lock(mutex_);
  auto it = containing(address, true);
  if (it == blocks_.end()) return;
  const Block& b = it->second;
  const std::uintptr_t offset = address - it->first;
  const char* kind = b.kind == MemoryKind::device   ? "device allocation"
                     : b.kind == MemoryKind::pinned ? "page-locked host allocation"
                                                    : "__device__ variable";
  if (offset >= b.bytes)
    throw ArgumentError(what,
                        "address " + hex(address) + " (" + std::to_string(bytes) +
                            " bytes) starts " + std::to_string(offset - b.bytes) +
                            " bytes past the end of the " + std::to_string(b.bytes) + "-byte " +
                            kind + " at " + hex(it->first),
                        "address memory inside an allocation: at most its size from its start");
  if (bytes > b.bytes - offset)
    throw ArgumentError(what,
                        "the " + std::to_string(bytes) + " bytes at " + hex(address) + " run " +
                            std::to_string(bytes - (b.bytes - offset)) +
                            " bytes past the end of the " + std::to_string(b.bytes) + "-byte " +
                            kind + " at " + hex(it->first) + " (offset " + std::to_string(offset) +
                            ")",
                        "copy at most " + std::to_string(b.bytes - offset) +
                            " bytes from that address, or allocate more");
}

void DeviceMemory::check_canaries(const void* argument_bytes, std::size_t size,
                                  const std::string& kernel_name, bool report) {
  const auto* words = static_cast<const unsigned char*>(argument_bytes);
  std::lock_guard lock(mutex_);
  for (std::size_t at = 0; at + sizeof(std::uintptr_t) <= size; at += sizeof(std::uintptr_t)) {
    std::uintptr_t value;
    std::memcpy(&value, words + at, sizeof value);
    auto it = containing(value, false);
    if (it == blocks_.end() || it->second.kind != MemoryKind::device) continue;
    const long long damaged = damaged_canary(it->first, it->second);
    if (damaged < 0) continue;
    const Block& b = it->second;
    // Restored: the next launch checks afresh, and freeing reports nothing twice.
    std::memcpy(reinterpret_cast<unsigned char*>(it->first + b.bytes), canary_pattern().data(),
                b.canary);
    if (!report) continue;
    throw KernelFault("running kernel " + kernel_name + " on the CPU backend",
                      "the kernel wrote past the end of the " + std::to_string(b.bytes) +
                          "-byte device allocation at " + hex(it->first) + " (byte " +
                          std::to_string(damaged) +
                          " after its end changed); the write landed in the allocation's red "
                          "zone, so no other memory was harmed",
                      {kernel_name},
                      "check the kernel's bounds (if (i < n)) against the buffer's size; "
                      "CUDAKIT_CPU_DEBUG=1 finds the line (cudakit run --sanitize -- PROGRAM)");
  }
}

std::string DeviceMemory::describe_overrun(std::uintptr_t address) const {
  std::lock_guard lock(mutex_);
  auto it = containing(address, true);
  if (it == blocks_.end()) return {};
  const Block& b = it->second;
  const std::uintptr_t offset = address - it->first;
  if (offset < b.bytes || b.kind != MemoryKind::device) return {};
  return std::to_string(offset - b.bytes) + " bytes past the end of the " +
         std::to_string(b.bytes) + "-byte device allocation at " + hex(it->first);
}

std::pair<std::size_t, std::size_t> DeviceMemory::guarded_and_red_zoned() const {
  std::lock_guard lock(mutex_);
  return {guarded_, red_zoned_};
}

}  // namespace cudakit::detail::cpu
