#include "array/reduce_workspace.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "cudakit/device_buffer.hpp"

namespace cudakit::detail {

namespace {

constexpr std::size_t counter_bytes = 256;  // keeps the partials aligned for any type

struct WorkspaceCache {
  std::mutex mutex;
  // Kept for the life of the process: a kernel may still be using a
  // workspace when its stream's owner goes away.
  std::map<std::tuple<int, int, void*>, std::unique_ptr<UntypedBuffer>> buffers;
};

WorkspaceCache& cache() {
  static auto* instance = new WorkspaceCache();  // never destroyed: used during exit
  return *instance;
}

}  // namespace

ReduceWorkspace reduce_workspace(const Device& device, void* native_stream) {
  auto& c = cache();
  std::lock_guard lock(c.mutex);
  auto key =
      std::make_tuple(static_cast<int>(device.backend_kind()), device.ordinal(), native_stream);
  auto it = c.buffers.find(key);
  if (it == c.buffers.end()) {
    auto buffer = std::make_unique<UntypedBuffer>(
        device, counter_bytes + workspace_max_blocks * workspace_max_partial_bytes,
        Allocator::direct);
    buffer->zero();
    it = c.buffers.emplace(key, std::move(buffer)).first;
  }
  return {it->second->address(), it->second->address() + counter_bytes};
}

unsigned reduction_grid(const Device& device, std::int64_t n, std::int64_t per_block) {
  const auto& props = device.properties();
  const int multiprocessors = std::max(1, props.multiprocessor_count);
  // Eight resident blocks of 256 threads fill a multiprocessor of 2048 threads.
  const std::int64_t full = static_cast<std::int64_t>(multiprocessors) * 8;
  const std::int64_t useful = std::max<std::int64_t>(1, (n + per_block - 1) / per_block);
  return static_cast<unsigned>(std::min<std::int64_t>({full, useful, workspace_max_blocks}));
}

}  // namespace cudakit::detail
