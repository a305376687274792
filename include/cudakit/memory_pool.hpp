// A caching allocator per device: freed blocks are kept in size classes and
// handed out again without a driver call, as CuPy's and PyTorch's pools do.
// Library allocations (buffers, arrays, In/Out staging) come from it by default.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudakit/device.hpp"

namespace cudakit {

struct MemoryPoolStats {
  std::size_t held_bytes = 0;    // allocated from the driver, cached or in use
  std::size_t active_bytes = 0;  // handed out and not yet returned
  std::size_t allocations = 0;   // driver allocations made
  std::size_t hits = 0;          // requests served from the cache
};

class MemoryPool {
 public:
  // The pool of `device` (one per device, for the life of the process).
  static MemoryPool& of(const Device& device);

  const Device& device() const noexcept { return device_; }
  // Bytes rounded up to the size class; OutOfMemory when the driver cannot
  // (after freeing the cache and retrying once). `stream` is where the block
  // will be used: a cached block is reused on the same stream without a sync.
  std::uint64_t allocate(std::size_t bytes, void* stream = nullptr);
  void deallocate(std::uint64_t ptr, std::size_t bytes, void* stream = nullptr) noexcept;
  // Returns every cached (unused) block to the driver.
  void free_all();
  MemoryPoolStats stats() const;
  // The size class a request of `bytes` is rounded to: a multiple of 512 B
  // below 1 MiB, a multiple of 2 MiB from 1 MiB up. A cached block is reused
  // only for the same class on the stream it was freed on.
  static std::size_t round_size(std::size_t bytes) noexcept;

  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;
  ~MemoryPool();

 private:
  explicit MemoryPool(Device device);
  struct Impl;
  Device device_;
  Impl* impl_;
};

}  // namespace cudakit
