// The caching allocator. Size classes: requests below 1 MiB round up to a
// multiple of 512 B, larger ones to a multiple of 2 MiB; a freed block goes
// to the list of its class and is handed out again for a request of the same
// class on the same stream. Tying reuse to the stream is what makes it safe
// without a synchronize: work queued later on that stream runs after the
// work that last used the block. Blocks freed on other streams are not
// shared; they return to the driver on free_all(), which also happens once
// before an allocation is reported as out of memory.
#include "cudakit/memory_pool.hpp"

#include <limits>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "cudakit/error.hpp"

namespace cudakit {

namespace {
constexpr std::size_t small_granule = 512;
constexpr std::size_t large_threshold = std::size_t(1) << 20;
constexpr std::size_t large_granule = std::size_t(2) << 20;
}  // namespace

struct MemoryPool::Impl {
  struct Block {
    std::uint64_t ptr;
    void* stream;
  };
  std::mutex mutex;
  std::map<std::size_t, std::vector<Block>> cached;  // by size class
  MemoryPoolStats stats;
};

MemoryPool::MemoryPool(Device device) : device_(std::move(device)), impl_(new Impl) {}

MemoryPool::~MemoryPool() { delete impl_; }

MemoryPool& MemoryPool::of(const Device& device) {
  // Pools live for the whole process: buffers destroyed during static
  // destruction still find their pool.
  static std::mutex mutex;
  static auto* pools = new std::map<std::pair<BackendKind, int>, MemoryPool*>;
  std::lock_guard lock(mutex);
  auto& pool = (*pools)[{device.backend_kind(), device.ordinal()}];
  if (!pool) pool = new MemoryPool(device);
  return *pool;
}

std::size_t MemoryPool::round_size(std::size_t bytes) noexcept {
  if (bytes == 0) return 0;
  std::size_t granule = bytes < large_threshold ? small_granule : large_granule;
  if (bytes > std::numeric_limits<std::size_t>::max() - granule) return bytes;
  return (bytes + granule - 1) / granule * granule;
}

std::uint64_t MemoryPool::allocate(std::size_t bytes, void* stream) {
  if (bytes == 0) return 0;
  const std::size_t size = round_size(bytes);
  {
    std::lock_guard lock(impl_->mutex);
    auto it = impl_->cached.find(size);
    if (it != impl_->cached.end()) {
      auto& blocks = it->second;
      for (std::size_t i = blocks.size(); i-- > 0;) {
        if (blocks[i].stream != stream) continue;
        std::uint64_t ptr = blocks[i].ptr;
        blocks[i] = blocks.back();
        blocks.pop_back();
        impl_->stats.active_bytes += size;
        ++impl_->stats.hits;
        return ptr;
      }
    }
  }
  auto& backend = device_.backend();
  std::uint64_t ptr = 0;
  try {
    ptr = backend.allocate(device_.ordinal(), size);
  } catch (const OutOfMemory&) {
    // Cached blocks may be what is missing: give them back and try once more.
    bool had_cache;
    {
      std::lock_guard lock(impl_->mutex);
      had_cache = impl_->stats.held_bytes > impl_->stats.active_bytes;
    }
    if (!had_cache) throw;
    free_all();
    ptr = backend.allocate(device_.ordinal(), size);
  }
  std::lock_guard lock(impl_->mutex);
  impl_->stats.held_bytes += size;
  impl_->stats.active_bytes += size;
  ++impl_->stats.allocations;
  return ptr;
}

void MemoryPool::deallocate(std::uint64_t ptr, std::size_t bytes, void* stream) noexcept {
  if (ptr == 0) return;
  const std::size_t size = round_size(bytes);
  std::lock_guard lock(impl_->mutex);
  try {
    impl_->cached[size].push_back({ptr, stream});
  } catch (...) {
    // No memory for the bookkeeping: give the block straight back.
    device_.backend().deallocate(device_.ordinal(), ptr);
    impl_->stats.held_bytes -= size;
  }
  impl_->stats.active_bytes -= size;
}

void MemoryPool::free_all() {
  std::map<std::size_t, std::vector<Impl::Block>> blocks;
  {
    std::lock_guard lock(impl_->mutex);
    blocks.swap(impl_->cached);
  }
  if (blocks.empty()) return;
  auto& backend = device_.backend();
  // A cached block may still be read by work queued before it was freed.
  backend.synchronize(device_.ordinal());
  std::size_t released = 0;
  for (auto& [size, list] : blocks)
    for (auto& block : list) {
      backend.deallocate(device_.ordinal(), block.ptr);
      released += size;
    }
  std::lock_guard lock(impl_->mutex);
  impl_->stats.held_bytes -= released;
}

MemoryPoolStats MemoryPool::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

}  // namespace cudakit
