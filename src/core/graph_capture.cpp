#include "core/graph_capture.hpp"

#include <algorithm>
#include <cstdio>

#include "cudakit/memory_pool.hpp"

namespace cudakit::detail {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<OpenCapture> open;
  std::vector<std::weak_ptr<GraphResources>> graphs;
  bool graphs_counted = false;  // `graphs` is counted in `watched`

  void forget_expired() {
    std::erase_if(graphs, [](const std::weak_ptr<GraphResources>& w) { return w.expired(); });
  }
};

Registry& registry() {
  static Registry* r = new Registry;  // used by frees during static destruction
  return *r;
}

// Open captures plus watched graphs; zero on every path but graph code's.
std::atomic<long> watched{0};

std::string hex(std::uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

}  // namespace

GraphResources::~GraphResources() {
  std::vector<Held> held;
  {
    std::lock_guard lock(mutex_);
    held.swap(held_);
  }
  for (const Held& h : held) {
    if (h.pooled)
      MemoryPool::of(device_).deallocate(h.address, h.bytes, h.stream);
    else
      backend_of(device_).deallocate(device_.ordinal(), h.address);
  }
}

void GraphResources::note_use(std::uint64_t address, std::size_t bytes) {
  if (address == 0) return;
  const std::uint64_t end = address + std::max<std::size_t>(bytes, 1);
  std::lock_guard lock(mutex_);
  // Launches of one step repeat the same buffers: keep the list short.
  for (auto& [b, e] : used_)
    if (address >= b && address <= e) {
      e = std::max(e, end);
      return;
    }
  used_.emplace_back(address, end);
}

void GraphResources::hold(std::uint64_t address, std::size_t bytes, void* stream, bool pooled) {
  std::lock_guard lock(mutex_);
  held_.push_back(Held{address, bytes, stream, pooled});
}

void GraphResources::keep(std::shared_ptr<void> value) {
  std::lock_guard lock(mutex_);
  kept_.push_back(std::move(value));
}

void GraphResources::check_freed(std::uint64_t address, std::size_t bytes) {
  const std::uint64_t end = address + std::max<std::size_t>(bytes, 1);
  std::lock_guard lock(mutex_);
  if (broken_.load(std::memory_order_relaxed)) return;
  for (const auto& [b, e] : used_)
    if (b < end && address < e) {
      broken_reason_ = "device memory it uses (" + std::to_string(bytes) + " bytes at " +
                       hex(address) + ") was freed after the capture";
      broken_.store(true, std::memory_order_release);
      return;
    }
}

std::string GraphResources::broken_reason() const {
  std::lock_guard lock(mutex_);
  return broken_reason_;
}

std::size_t GraphResources::held_count() const {
  std::lock_guard lock(mutex_);
  return held_.size();
}

bool graph_memory_watched() noexcept { return watched.load(std::memory_order_relaxed) != 0; }

void open_capture(const OpenCapture& capture) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.open.push_back(capture);
  watched.fetch_add(1, std::memory_order_relaxed);
}

std::shared_ptr<GraphResources> close_capture(Backend* backend, NativeStream stream) noexcept {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = std::find_if(r.open.begin(), r.open.end(), [&](const OpenCapture& c) {
    return c.backend == backend && c.stream == stream;
  });
  if (it == r.open.end()) return nullptr;
  std::shared_ptr<GraphResources> resources = std::move(it->resources);
  r.open.erase(it);
  watched.fetch_sub(1, std::memory_order_relaxed);
  return resources;
}

bool find_capture(Backend* backend, NativeStream stream, OpenCapture& out) {
  if (!graph_memory_watched()) return false;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const OpenCapture& c : r.open)
    if (c.backend == backend && c.stream == stream) {
      out = c;
      return true;
    }
  return false;
}

bool this_thread_capture(Backend* backend, OpenCapture& out) {
  if (!graph_memory_watched()) return false;
  const std::thread::id self = std::this_thread::get_id();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (auto it = r.open.rbegin(); it != r.open.rend(); ++it)
    if (it->backend == backend && it->thread == self) {
      out = *it;
      return true;
    }
  return false;
}

bool capture_forbidding_sync(Backend* backend, OpenCapture& out) {
  if (!graph_memory_watched()) return false;
  const std::thread::id self = std::this_thread::get_id();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const OpenCapture& c : r.open) {
    if (c.backend != backend) continue;
    if (c.mode == CaptureMode::global ||
        (c.mode == CaptureMode::thread_local_ && c.thread == self)) {
      out = c;
      return true;
    }
  }
  return false;
}

NativeStream capture_target(Backend* backend, NativeStream stream) noexcept {
  if (stream != nullptr || !graph_memory_watched()) return stream;
  OpenCapture capture;
  try {
    if (this_thread_capture(backend, capture)) return capture.stream;
  } catch (...) {
  }
  return stream;
}

void note_capture_use(Backend* backend, NativeStream stream, std::uint64_t address,
                      std::size_t bytes) {
  OpenCapture capture;
  if (find_capture(backend, stream, capture)) capture.resources->note_use(address, bytes);
}

bool graph_memory_freed(const Device& device, std::uint64_t address, std::size_t bytes,
                        void* stream, bool pooled) noexcept {
  if (!graph_memory_watched() || address == 0) return false;
  try {
    std::vector<std::shared_ptr<GraphResources>> live;
    {
      Registry& r = registry();
      std::lock_guard lock(r.mutex);
      for (const OpenCapture& c : r.open)
        if (c.resources->device() == device) {
          c.resources->hold(address, bytes, stream, pooled);
          return true;
        }
      r.forget_expired();
      if (r.graphs.empty() && r.graphs_counted) {
        r.graphs_counted = false;
        watched.fetch_sub(1, std::memory_order_relaxed);
      }
      for (const auto& w : r.graphs)
        if (auto g = w.lock()) live.push_back(std::move(g));
    }
    for (const auto& g : live)
      if (g->device() == device) g->check_freed(address, bytes);
  } catch (...) {
    // Out of memory while looking: the free itself must still happen.
  }
  return false;
}

void watch_graph_resources(const std::shared_ptr<GraphResources>& resources) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.forget_expired();
  if (!r.graphs_counted) {
    r.graphs_counted = true;
    watched.fetch_add(1, std::memory_order_relaxed);
  }
  r.graphs.push_back(resources);
}

}  // namespace cudakit::detail
