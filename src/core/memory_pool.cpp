// The caching allocator. Size classes: requests below 1 MiB round up to a
// multiple of 512 B, larger ones to a multiple of 2 MiB. Free blocks are
// kept per (size class, stream they were freed on).
//
// Reuse on the same stream is the fast path and needs nothing: work queued
// later on that stream runs after the work that last used the block. That
// path records no event and takes one map lookup.
//
// Reuse on another stream B of a block freed on stream A is opportunistic,
// like the CUDA stream-ordered allocator's "reuse allow opportunistic" and
// PyTorch's event-guarded blocks: on a miss in B's own list, a block of A's
// is taken when A is idle (a stream query); otherwise the pool records an
// event on A for it (lazily: only now that another stream asks, so frees
// never pay for it) and takes the block once that event has completed (an
// event query, never a host wait). The other way, making B
// wait on A's event, would always reuse the block but ties B to whatever A
// has queued meanwhile, serialising streams that the program kept apart;
// a fresh driver allocation is cheaper than that false dependency, so the
// wait is used only under memory pressure, where the alternative is
// synchronising the whole device (free_all) or failing.
//
// A block used by other streams than the one it is freed on (record_stream,
// which the array layer calls when an operation reads an array on another
// stream) gets an event on each of those streams when it is freed and waits
// in `pending` until all of them completed; then it joins the free list of
// the stream it was freed on.
#include "cudakit/memory_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "core/graph_capture.hpp"
#include "cudakit/error.hpp"

namespace cudakit {

namespace {
constexpr std::size_t small_granule = 512;
constexpr std::size_t large_threshold = std::size_t(1) << 20;
constexpr std::size_t large_granule = std::size_t(2) << 20;
// Blocks of other streams looked at per request: bounds the cost of a miss
// when many blocks of one class wait on busy streams.
constexpr int foreign_candidates = 8;
}  // namespace

struct MemoryPool::Impl {
  struct Block {
    std::uint64_t ptr;
    void* event = nullptr;  // recorded on the stream it was freed on, once another stream asked
  };
  struct Pending {
    std::uint64_t ptr;
    std::size_t size;
    void* stream;               // freed on
    std::vector<void*> events;  // one per other stream that used it
  };
  using ListKey = std::pair<std::size_t, std::uintptr_t>;  // size class, stream

  std::mutex mutex;
  std::map<ListKey, std::vector<Block>> cached;
  std::vector<Pending> pending;
  std::unordered_map<std::uint64_t, std::vector<Stream>> uses;  // record_stream, blocks in use
  std::unordered_set<void*> adopted;  // streams cudakit created that are alive
  std::vector<void*> spare_events;
  MemoryPoolStats stats;

  static ListKey key(std::size_t size, void* stream) {
    return {size, reinterpret_cast<std::uintptr_t>(stream)};
  }
  static void* stream_of(const ListKey& k) { return reinterpret_cast<void*>(k.second); }

  // The helpers below run with `mutex` held.

  // An event for the pool's own use.
  void* take_event(detail::Backend& backend, int ordinal) {
    if (!spare_events.empty()) {
      void* e = spare_events.back();
      spare_events.pop_back();
      return e;
    }
    return backend.create_event(ordinal, false);
  }

  void give_event(void* event) noexcept {
    if (!event) return;
    try {
      spare_events.push_back(event);
    } catch (...) {
      // Not listed when there is no memory to list it; never destroyed under
      // the lock (the CPU backend's destroy waits for the recording).
    }
  }

  // Pops a block of this stream's own list; 0 when it has none.
  std::uint64_t take_own(std::size_t size, void* stream) {
    auto it = cached.find(key(size, stream));
    if (it == cached.end() || it->second.empty()) return 0;
    Block b = it->second.back();
    it->second.pop_back();
    give_event(b.event);
    return b.ptr;
  }

  // Moves pending blocks whose other streams finished into their free lists.
  void collect_pending(detail::Backend& backend) {
    for (std::size_t i = 0; i < pending.size();) {
      auto& p = pending[i];
      bool done = std::all_of(p.events.begin(), p.events.end(),
                              [&](void* e) { return backend.query_event(e); });
      if (!done) {
        ++i;
        continue;
      }
      cached[key(p.size, p.stream)].push_back({p.ptr, nullptr});
      for (void* e : p.events) give_event(e);
      pending[i] = std::move(pending.back());
      pending.pop_back();
    }
  }

  // A block of class `size` freed on another stream than `stream` whose work
  // has completed; with `wait`, any such block or pending block, `stream`
  // then waiting for its work. 0 when there is none.
  std::uint64_t take_foreign(detail::Backend& backend, int ordinal, std::size_t size, void* stream,
                             bool wait) {
    const ListKey own = key(size, stream);
    int looked = 0;
    bool current = false;  // the device's context, for the null stream's sake
    for (auto it = cached.lower_bound(key(size, nullptr));
         it != cached.end() && it->first.first == size; ++it) {
      if (it->first == own) continue;
      auto& blocks = it->second;
      for (std::size_t i = blocks.size(); i-- > 0;) {
        if (!wait && looked++ == foreign_candidates) return 0;
        Block& b = blocks[i];
        if (!current) {
          backend.make_current(ordinal);
          current = true;
        }
        if (!b.event) {
          // An idle stream has finished all the block's work: no event needed.
          bool idle = false;
          try {
            idle = backend.query_stream(stream_of(it->first));
          } catch (const Error&) {
            // The stream is gone (destroyed with blocks still cached): its
            // blocks wait for free_all(), which synchronises the device.
            continue;
          }
          if (idle) {
            std::uint64_t ptr = b.ptr;
            b = blocks.back();
            blocks.pop_back();
            return ptr;
          }
          void* e = take_event(backend, ordinal);
          try {
            backend.record_event(e, stream_of(it->first));
          } catch (const Error&) {
            give_event(e);
            continue;
          }
          b.event = e;
        }
        if (!backend.query_event(b.event)) {
          if (!wait) continue;
          backend.stream_wait_event(stream, b.event);
        }
        std::uint64_t ptr = b.ptr;
        give_event(b.event);
        b = blocks.back();
        blocks.pop_back();
        return ptr;
      }
    }
    if (!wait) return 0;
    if (!pending.empty()) backend.make_current(ordinal);
    for (std::size_t i = 0; i < pending.size(); ++i) {
      auto& p = pending[i];
      if (p.size != size) continue;
      for (void* e : p.events) backend.stream_wait_event(stream, e);
      if (p.stream != stream) {
        void* e = take_event(backend, ordinal);
        backend.record_event(e, p.stream);
        backend.stream_wait_event(stream, e);
        give_event(e);
      }
      std::uint64_t ptr = p.ptr;
      for (void* e : p.events) give_event(e);
      pending[i] = std::move(pending.back());
      pending.pop_back();
      return ptr;
    }
    return 0;
  }
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
  // Up to and including the threshold: a block of a class's own size is
  // served from that class (PyCUDA's pool promises bin_number(alloc_size(b)) == b).
  std::size_t granule = bytes <= large_threshold ? small_granule : large_granule;
  if (bytes > std::numeric_limits<std::size_t>::max() - granule) return bytes;
  return (bytes + granule - 1) / granule * granule;
}

namespace {
// CUDAKIT_EXACT_ALLOCATIONS=1 (`cudakit check` sets it): every block has
// exactly the requested size, so compute-sanitizer's memcheck sees where each
// allocation ends; rounded up, a write just past the end lands in the block's
// spare bytes and goes unreported.
bool exact_blocks() {
  static const bool exact = [] {
    const char* v = std::getenv("CUDAKIT_EXACT_ALLOCATIONS");
    return v && *v && std::string_view(v) != "0";
  }();
  return exact;
}

std::size_t block_size(std::size_t bytes) {
  return exact_blocks() ? bytes : MemoryPool::round_size(bytes);
}
}  // namespace

std::uint64_t MemoryPool::allocate(std::size_t bytes, void* stream) {
  if (bytes == 0) return 0;
  const std::size_t size = block_size(bytes);
  auto& backend = detail::backend_of(device_);
  // From the cache: this stream's list, blocks other streams released since,
  // then other streams' blocks whose work is done.
  auto from_cache = [&](bool wait) -> std::uint64_t {
    std::lock_guard lock(impl_->mutex);
    std::uint64_t ptr = impl_->take_own(size, stream);
    if (ptr == 0 && !impl_->pending.empty()) {
      impl_->collect_pending(backend);
      ptr = impl_->take_own(size, stream);
    }
    const bool own = ptr != 0;
    if (!own) ptr = impl_->take_foreign(backend, device_.ordinal(), size, stream, wait);
    if (ptr == 0) return 0;
    impl_->stats.active_bytes += size;
    ++impl_->stats.hits;
    if (!own) ++impl_->stats.cross_stream_hits;
    return ptr;
  };
  if (std::uint64_t ptr = from_cache(false)) {
    backend.set_usable_bytes(ptr, bytes, size);
    return ptr;
  }

  std::uint64_t ptr = 0;
  try {
    ptr = backend.allocate(device_.ordinal(), size);
  } catch (const OutOfMemory&) {
    // A block still in use on another stream costs that stream's remaining
    // work as a dependency; cheaper than synchronising the device.
    if (std::uint64_t reused = from_cache(true)) {
      backend.set_usable_bytes(reused, bytes, size);
      return reused;
    }
    // Cached blocks of other classes may be what is missing: give them back
    // and try once more.
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
  backend.set_usable_bytes(ptr, bytes, size);
  return ptr;
}

void MemoryPool::deallocate(std::uint64_t ptr, std::size_t bytes, void* stream) noexcept {
  if (ptr == 0) return;
  // Freed inside a capture: the graph keeps the block (its operations use it).
  if (detail::graph_memory_watched()) [[unlikely]]
    if (detail::graph_memory_freed(device_, ptr, bytes, stream, true)) return;
  const std::size_t size = block_size(bytes);
  auto& backend = detail::backend_of(device_);
  backend.set_usable_bytes(ptr, size, size);
  std::vector<Stream> users;  // released after the lock: the last copy may destroy a stream
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stats.active_bytes -= size;
    try {
      if (!impl_->uses.empty())
        if (auto it = impl_->uses.find(ptr); it != impl_->uses.end()) {
          users = std::move(it->second);
          impl_->uses.erase(it);
        }
      Impl::Pending p{ptr, size, stream, {}};
      const bool foreign = stream && !impl_->adopted.count(stream);
      if (!users.empty() || foreign) backend.make_current(device_.ordinal());
      for (const Stream& s : users) {
        if (s.native() == stream) continue;
        p.events.push_back(impl_->take_event(backend, device_.ordinal()));
        backend.record_event(p.events.back(), s.native());
      }
      if (foreign) {
        // A stream the pool cannot see destroyed: the block waits for its
        // work by an event, then serves the default stream.
        p.events.push_back(impl_->take_event(backend, device_.ordinal()));
        backend.record_event(p.events.back(), stream);
        p.stream = nullptr;
      }
      if (p.events.empty())
        impl_->cached[Impl::key(size, stream)].push_back({ptr, nullptr});
      else
        impl_->pending.push_back(std::move(p));
      return;
    } catch (...) {
      impl_->stats.held_bytes -= size;
    }
  }
  // No memory for the bookkeeping, or an event could not be recorded: give
  // the block straight back once nothing can be using it (outside the lock:
  // work being waited for may itself free memory).
  try {
    backend.synchronize(device_.ordinal());
  } catch (...) {
  }
  backend.deallocate(device_.ordinal(), ptr);
}

void MemoryPool::record_stream(std::uint64_t ptr, const Stream& stream) {
  if (ptr == 0) return;
  if (!(stream.device() == device_))
    throw ArgumentError(
        "recording a stream's use of a pool block",
        "the stream is on " + stream.device().describe() + ", the pool on " + device_.describe());
  std::lock_guard lock(impl_->mutex);
  auto& users = impl_->uses[ptr];
  for (const Stream& s : users)
    if (s.native() == stream.native()) return;
  users.push_back(stream);
}

void MemoryPool::adopt_stream(void* stream) {
  if (!stream) return;
  std::lock_guard lock(impl_->mutex);
  impl_->adopted.insert(stream);
}

void MemoryPool::forget_stream(void* stream) noexcept {
  if (!stream) return;
  auto& backend = detail::backend_of(device_);
  std::lock_guard lock(impl_->mutex);
  if (!impl_->adopted.erase(stream)) return;
  // The stream's blocks, cached or pending, each with an event recorded on
  // the stream now (it is still alive), owned by the default stream after.
  std::vector<Impl::Pending> moved;
  for (auto it = impl_->cached.begin(); it != impl_->cached.end();) {
    if (Impl::stream_of(it->first) != stream) {
      ++it;
      continue;
    }
    for (const Impl::Block& b : it->second) {
      moved.push_back({b.ptr, it->first.first, nullptr, {}});
      if (b.event) moved.back().events.push_back(b.event);
    }
    it = impl_->cached.erase(it);
  }
  bool pending_too = false;
  for (const Impl::Pending& p : impl_->pending) pending_too = pending_too || p.stream == stream;
  if (moved.empty() && !pending_too) return;
  try {
    backend.make_current(device_.ordinal());
    for (Impl::Pending& p : moved) {
      p.events.push_back(impl_->take_event(backend, device_.ordinal()));
      backend.record_event(p.events.back(), stream);
    }
    for (Impl::Pending& p : impl_->pending)
      if (p.stream == stream) {
        p.events.push_back(impl_->take_event(backend, device_.ordinal()));
        backend.record_event(p.events.back(), stream);
        p.stream = nullptr;
      }
    for (Impl::Pending& p : moved) impl_->pending.push_back(std::move(p));
  } catch (...) {
    // No event: wait for the stream here, then the blocks are free.
    try {
      backend.synchronize_stream(stream);
    } catch (...) {
    }
    for (Impl::Pending& p : impl_->pending)
      if (p.stream == stream) p.stream = nullptr;
    for (Impl::Pending& p : moved) {
      for (void* e : p.events) impl_->give_event(e);
      impl_->cached[Impl::key(p.size, nullptr)].push_back({p.ptr, nullptr});
    }
  }
}

void MemoryPool::free_all() {
  std::map<Impl::ListKey, std::vector<Impl::Block>> blocks;
  std::vector<Impl::Pending> pending;
  std::vector<void*> events;
  {
    std::lock_guard lock(impl_->mutex);
    blocks.swap(impl_->cached);
    pending.swap(impl_->pending);
    events.swap(impl_->spare_events);
  }
  if (blocks.empty() && pending.empty() && events.empty()) return;
  auto& backend = detail::backend_of(device_);
  // A cached block may still be read by work queued before it was freed.
  backend.synchronize(device_.ordinal());
  std::size_t released = 0;
  for (auto& [key, list] : blocks)
    for (auto& block : list) {
      backend.deallocate(device_.ordinal(), block.ptr);
      if (block.event) backend.destroy_event(block.event);
      released += key.first;
    }
  for (auto& p : pending) {
    backend.deallocate(device_.ordinal(), p.ptr);
    for (void* e : p.events) backend.destroy_event(e);
    released += p.size;
  }
  for (void* e : events) backend.destroy_event(e);
  std::lock_guard lock(impl_->mutex);
  impl_->stats.held_bytes -= released;
}

MemoryPoolStats MemoryPool::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

}  // namespace cudakit
