// The CPU backend's device memory: every allocation it made, so that an
// overrun is caught where it happens, a copy to or from an address that is
// not (wholly) inside an allocation is refused, and free memory is what the
// device was given less what is allocated, as on a GPU.
//
// Layout. An allocation ends at a page boundary, 256-byte aligned as
// cuMemAlloc guarantees, and is followed by a PROT_NONE guard page: a kernel
// that reads or writes past its end faults at once (a KernelFault naming the
// allocation). The up to 255 bytes between the requested size and the
// rounded end hold a canary pattern, as does a red zone of kRedZoneBytes
// after allocations made without a guard page (beyond the guard budget
// below); the canaries of the allocations a launch's arguments point into
// are checked when the launch ends, and every allocation's when it is freed.
//
// Bounded overhead. Guard pages cost address space and one more mapping
// each, rounding a page of resident memory at most: at most
// max_map_count / 8 allocations (8191 by default) and 64 MiB of rounding are
// guarded at once; further allocations are plain aligned heap memory with
// the red zone.
//
// Accounting. The device has limit() bytes: CUDAKIT_CPU_MEMORY (bytes, or
// with a K, M, G or T suffix), else what the host can give when the backend
// starts (MemAvailable, or the cgroup's limit less its usage when lower).
// Every device allocation counts its pages; one past the limit is
// OutOfMemory naming the request and what is free, before the host's
// out-of-memory killer would be reached. Virtual devices (CUDAKIT_CPU_DEVICES)
// share the one host's memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace cudakit::detail::cpu {

inline constexpr std::size_t kDeviceAlignment = 256;  // as cuMemAlloc guarantees
inline constexpr std::size_t kRedZoneBytes = 256;     // after an unguarded allocation

enum class MemoryKind : std::uint8_t { device, pinned, global };

// A live range the backend knows, as found by DeviceMemory::find.
struct KnownRange {
  std::uintptr_t begin = 0;
  std::size_t bytes = 0;  // the size asked for
  MemoryKind kind = MemoryKind::device;
};

class DeviceMemory {
 public:
  // The one per process; never destroyed, so memory freed during static
  // destruction (a pool's cached blocks) is still accounted.
  static DeviceMemory& instance();

  // Device memory of `bytes` (at least 1); OutOfMemory beyond the limit or
  // when the host refuses. `exact`: exactly the bytes asked for from the heap
  // (AddressSanitizer's red zone then starts at the first byte past the end).
  void* allocate(std::size_t bytes, bool exact, const char* what);
  // Reports a damaged canary on stderr (nothing can be thrown here).
  void free(void* data) noexcept;
  // Host memory the backend hands out as page-locked: known, not accounted.
  void* allocate_pinned(std::size_t bytes, const char* what);
  void free_pinned(void* data) noexcept;
  // A module's __device__ / __constant__ variables: valid copy targets.
  void add_global(const void* data, std::size_t bytes);
  void remove_global(const void* data) noexcept;

  std::size_t limit() const noexcept { return limit_; }
  std::size_t free_bytes() const;

  // The live range that contains `address`; false for memory the backend
  // did not allocate (pageable host memory, or no memory at all).
  bool find(std::uintptr_t address, KnownRange& out) const;
  // ArgumentError when [address, address + bytes) starts inside a known
  // range and runs past its end. `what`: "copying ..." for the message.
  void check_range(std::uintptr_t address, std::size_t bytes, const std::string& what) const;

  // Checks the canaries of every allocation that one of the 8-byte words of
  // `argument_bytes` points into (a launch's argument values), restoring
  // them; KernelFault naming the allocation when one was written. With
  // `report` false (the launch failed already, and says so) they are only
  // restored.
  void check_canaries(const void* argument_bytes, std::size_t size, const std::string& kernel_name,
                      bool report = true);

  // "12 bytes past the end of the 256-byte allocation at 0x7f..." when
  // `address` lies in an allocation's guard page or canary; empty otherwise.
  std::string describe_overrun(std::uintptr_t address) const;

  // For tests: allocations made with a guard page / with a red zone only.
  std::pair<std::size_t, std::size_t> guarded_and_red_zoned() const;

 private:
  DeviceMemory();
  struct Block {
    std::size_t bytes = 0;    // asked for
    std::size_t canary = 0;   // canary bytes after `bytes`
    void* base = nullptr;     // what to give back: mapping start or heap pointer
    std::size_t mapped = 0;   // the mapping, guard page included (0: heap memory)
    std::size_t counted = 0;  // bytes accounted against the limit
    MemoryKind kind = MemoryKind::device;
  };
  using Map = std::map<std::uintptr_t, Block>;
  // The block whose range (canary and guard page included) holds `address`.
  Map::const_iterator containing(std::uintptr_t address, bool with_guard) const;
  // The first byte of the block's canary that differs, or -1.
  static long long damaged_canary(std::uintptr_t begin, const Block& b);
  void release(const Block& b) noexcept;

  std::size_t limit_;
  std::size_t page_;
  std::size_t max_guarded_;
  mutable std::mutex mutex_;
  Map blocks_;
  std::size_t allocated_ = 0;  // accounted bytes of device allocations
  std::size_t guarded_ = 0;    // live allocations with a guard page
  std::size_t rounding_ = 0;   // their bytes lost to page rounding
  std::size_t red_zoned_ = 0;  // live allocations with a red zone only
};

// The limit as CUDAKIT_CPU_MEMORY or the host gives it (read once).
std::size_t configured_memory_limit();

}  // namespace cudakit::detail::cpu
