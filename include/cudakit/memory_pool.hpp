// A caching allocator per device: freed blocks are kept in size classes and
// handed out again without a driver call, as CuPy's and PyTorch's pools do,
// on the stream they were freed on and, once their work is done, on others.
// Library allocations (buffers, arrays, In/Out staging) come from it by default.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudakit/device.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {

struct MemoryPoolStats {
  std::size_t held_bytes = 0;         // allocated from the driver, cached or in use
  std::size_t active_bytes = 0;       // handed out and not yet returned
  std::size_t allocations = 0;        // driver allocations made
  std::size_t hits = 0;               // requests served from the cache
  std::size_t cross_stream_hits = 0;  // of those, blocks freed on another stream
};

class MemoryPool {
 public:
  // The pool of `device` (one per device, for the life of the process).
  static MemoryPool& of(const Device& device);

  const Device& device() const noexcept { return device_; }
  // Bytes rounded up to the size class; OutOfMemory when the driver cannot
  // (after freeing the cache and retrying once). `stream` is where the block
  // will be used: a block freed on the same stream is reused at once; one
  // freed on another stream only when the work queued there before the free
  // has completed (never a wait on the host). Under memory pressure, a block
  // still in use elsewhere is taken and `stream` is made to wait for that work.
  std::uint64_t allocate(std::size_t bytes, void* stream = nullptr);
  // `stream` is the stream whose work last uses the block (as queued so far).
  void deallocate(std::uint64_t ptr, std::size_t bytes, void* stream = nullptr) noexcept;
  // Marks the block `ptr` (as allocate() returned it, still in use) as used by
  // work on `stream` too, as PyTorch's record_stream does: when the block is
  // freed, no stream gets it back before the work queued on `stream` until
  // then has completed. The pool keeps `stream` alive until then.
  void record_stream(std::uint64_t ptr, const Stream& stream);
  // Streams and the pool's free lists. A block is cached on the list of the
  // stream it was freed on; the pool must never name a stream after it is
  // destroyed (the driver may crash on a dead handle). A stream cudakit
  // creates (Device::create_stream) is adopted when made and forgotten just
  // before it is destroyed: its blocks then serve the default stream once the
  // work queued on it has completed. A block freed on a stream cudakit did
  // not create (a wrapped torch or CuPy stream) goes the same way at once.
  void adopt_stream(void* stream);
  void forget_stream(void* stream) noexcept;
  // Returns every cached (unused) block to the driver.
  void free_all();
  MemoryPoolStats stats() const;
  // The size class a request of `bytes` is rounded to: a multiple of 512 B
  // up to 1 MiB, a multiple of 2 MiB above. A cached block is reused
  // only for a request of the same class.
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
