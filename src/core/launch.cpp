// The one checked launch: the configuration against the device's limits,
// each argument against the kernel's parameter (launch_arguments.cpp), host
// transfers staged, then the backend. Everything here runs on every launch,
// so the path that succeeds only compares fields cached in Kernel::State and
// allocates nothing up to KernelArgs::inline_capacity arguments; messages
// are built only when something is wrong.
#include <cstring>
#include <memory>
#include <string>

#include "core/graph_capture.hpp"
#include "core/launch_arguments.hpp"
#include "core/launch_profiler.hpp"
#include "cudakit/error.hpp"
#include "cudakit/event.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/memory_pool.hpp"
#include "cudakit/stream.hpp"
#include "kernel_state.hpp"

namespace cudakit {
namespace detail {
namespace {

[[noreturn]] void config_error(const Kernel::State& k, const LaunchConfig& c, const char* limit,
                               long long requested, long long device_value, std::string hint) {
  throw LaunchConfigError(launch_context(k, c), limit, requested, device_value, std::move(hint));
}

void check_dim(const Kernel::State& k, const LaunchConfig& c, unsigned value, unsigned max,
               const char* limit, const char* hint) {
  if (max != 0 && value > max) config_error(k, c, limit, value, max, hint);
}

void check_config(const Kernel::State& k, const LaunchConfig& c) {
  const Dim3 b = c.block, g = c.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0)
    config_error(k, c, "block extent (every dimension at least 1)", 0, 1,
                 "a block of " + b.to_string() + " has no threads; use e.g. block 256x1x1");
  if (g.x == 0 || g.y == 0 || g.z == 0)
    config_error(k, c, "grid extent (every dimension at least 1)", 0, 1,
                 "a grid of " + g.to_string() +
                     " has no blocks: (n + block - 1) / block blocks cover n elements "
                     "(grid_for(n, block) in C++)");
  const auto threads = b.volume();
  if (k.max_threads_per_block != 0 && threads > k.max_threads_per_block)
    config_error(k, c, "max threads per block", static_cast<long long>(threads),
                 k.max_threads_per_block,
                 "use at most " + std::to_string(k.max_threads_per_block) +
                     " threads per block (e.g. 256) and more blocks: (n + 255) / 256 of them "
                     "for n elements (grid_for(n, 256) in C++)");
  if (k.kernel_max_threads_per_block != 0 && threads > k.kernel_max_threads_per_block)
    config_error(k, c, "max threads per block for this kernel", static_cast<long long>(threads),
                 k.kernel_max_threads_per_block,
                 "the kernel's registers or __launch_bounds__ allow at most " +
                     std::to_string(k.kernel_max_threads_per_block) +
                     " threads per block; launch smaller blocks");
  check_dim(k, c, b.x, k.max_block_dim.x, "max block dimension x", "use a smaller block.x");
  check_dim(k, c, b.y, k.max_block_dim.y, "max block dimension y", "use a smaller block.y");
  check_dim(k, c, b.z, k.max_block_dim.z, "max block dimension z", "use a smaller block.z");
  check_dim(k, c, g.x, k.max_grid_dim.x, "max grid dimension x",
            "use larger blocks or a grid-stride loop");
  check_dim(k, c, g.y, k.max_grid_dim.y, "max grid dimension y",
            "put the largest extent in x (up to 2^31-1 blocks) or loop over y in the kernel");
  check_dim(k, c, g.z, k.max_grid_dim.z, "max grid dimension z",
            "put the largest extent in x (up to 2^31-1 blocks) or loop over z in the kernel");

  const std::size_t dynamic = c.shared_bytes;
  const std::size_t raised = k.max_dynamic_shared_bytes.load(std::memory_order_relaxed);
  if (raised != 0) {
    if (dynamic > raised)
      config_error(k, c, "max dynamic shared memory per block (as raised for this kernel)",
                   static_cast<long long>(dynamic), static_cast<long long>(raised),
                   "call set_max_dynamic_shared_memory(" + std::to_string(dynamic) +
                       ") on the kernel first, or request less");
  } else if (k.shared_per_block != 0 && dynamic + k.static_shared_bytes > k.shared_per_block) {
    const std::size_t total = dynamic + k.static_shared_bytes;
    std::string hint =
        k.shared_per_block_optin != 0 && total <= k.shared_per_block_optin
            ? "above " + std::to_string(k.shared_per_block) +
                  " bytes a kernel must opt in: call set_max_dynamic_shared_memory(" +
                  std::to_string(dynamic) + ") on it (the device allows up to " +
                  std::to_string(k.shared_per_block_optin) + " bytes per block)"
            : "even with an opt-in the device allows " +
                  std::to_string(k.shared_per_block_optin ? k.shared_per_block_optin
                                                          : k.shared_per_block) +
                  " bytes per block; use smaller tiles";
    config_error(k, c, "shared memory per block (static + dynamic)", static_cast<long long>(total),
                 static_cast<long long>(k.shared_per_block), std::move(hint));
  }
}

// A cooperative grid must be resident at once, or its grid barrier never
// completes: refused here with the maximum, as the driver would refuse it
// (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) without saying how many fit.
[[gnu::noinline]] void check_cooperative(const Kernel::State& k, const LaunchConfig& c) {
  const auto threads = static_cast<int>(c.block.volume());
  const long long max_blocks =
      k.backend->max_cooperative_grid_blocks(k.device.ordinal(), k.native, threads, c.shared_bytes);
  const auto blocks = static_cast<long long>(c.grid.volume());
  if (blocks > max_blocks)
    config_error(k, c, "max co-resident blocks for a cooperative launch", blocks, max_blocks,
                 "a cooperative launch of blocks of " + std::to_string(threads) + " threads (" +
                     std::to_string(c.shared_bytes) + " B dynamic shared) may have at most " +
                     std::to_string(max_blocks) +
                     " blocks (Kernel::max_cooperative_grid_blocks); launch fewer blocks and "
                     "loop over the data in the kernel (a grid-stride loop)");
}

// A launch recorded into a graph: the memory its pointers (and array views'
// data pointers) reach is noted with the graph, so a replay after that memory
// was freed is refused. Sizes are unknown here: an address marks its block.
[[gnu::noinline]] void note_captured_launch(const Kernel::State& k, const LaunchConfig& config,
                                            void** values) {
  void* stream = capture_target(k.backend, config.stream.native);
  OpenCapture capture;
  if (!find_capture(k.backend, stream, capture)) return;
  for (std::size_t i = 0; i < k.params.params.size(); ++i) {
    const Param& p = k.params.params[i];
    if (p.size < sizeof(std::uint64_t)) continue;
    if (p.kind != ParamKind::pointer && p.kind != ParamKind::aggregate) continue;
    std::uint64_t address = 0;
    std::memcpy(&address, values[i], sizeof address);
    capture.resources->note_use(address, 1);
  }
}

void launch_on_backend(const Kernel::State& k, const LaunchConfig& config, void** values) {
  if (graph_memory_watched()) [[unlikely]]
    note_captured_launch(k, config, values);
  // A profile session or an NVTX tool: the launch with its record and range.
  if (launches_observed()) [[unlikely]] {
    observed_launch(k, config, values);
    return;
  }
  if (config.cooperative) [[unlikely]] {
    k.backend->launch_cooperative(k.native, k.name.c_str(), config.grid, config.block,
                                  config.shared_bytes, config.stream.native, values);
    return;
  }
  k.backend->launch(k.native, k.name.c_str(), config.grid, config.block, config.shared_bytes,
                    config.stream.native, values);
}

void* as_pointer(std::uint64_t address) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
}

// Copies In/InOut data into pooled device buffers, launches, waits for the
// stream and then copies Out/InOut data back: a launch that fails (a
// KernelFault) leaves the host arrays as they were, never filled with what
// the device memory held. Staging buffers go back to the pool tagged with
// the stream after the stream has drained, also when something throws (the
// host data may still be in flight).
void launch_staged(const Kernel::State& k, const LaunchConfig& config, const KernelArgs& args,
                   void** values, std::uint64_t* staged) {
  Backend& backend = *k.backend;
  MemoryPool& pool = MemoryPool::of(k.device);
  void* stream = config.stream.native;
  const auto list = args.args();

  struct Staging {
    Backend& backend;
    MemoryPool& pool;
    void* stream;
    const KernelArgs::Arg* list;
    std::uint64_t* staged;
    std::size_t done = 0;  // arguments looked at so far
    ~Staging() {
      bool any = false;
      for (std::size_t i = 0; i < done; ++i)
        any = any || (list[i].kind == KernelArgs::Kind::host && staged[i] != 0);
      if (!any) return;
      try {
        backend.synchronize_stream(stream);
      } catch (...) {
        // The error that got us here is the one the user sees.
      }
      for (std::size_t i = 0; i < done; ++i)
        if (list[i].kind == KernelArgs::Kind::host && staged[i] != 0)
          pool.deallocate(staged[i], list[i].host_bytes, stream);
    }
  } staging{backend, pool, stream, list.data(), staged};

  for (std::size_t i = 0; i < list.size(); ++i) {
    const KernelArgs::Arg& a = list[i];
    if (a.kind != KernelArgs::Kind::host) {
      staging.done = i + 1;
      continue;
    }
    staged[i] = 0;
    staging.done = i + 1;
    if (a.host_bytes == 0) continue;  // a null pointer, as an empty transfer
    staged[i] = pool.allocate(a.host_bytes, stream);
    if (a.direction != TransferDirection::out)
      backend.copy(as_pointer(staged[i]), a.host_data, a.host_bytes, stream, true);
  }
  launch_on_backend(k, config, values);
  backend.synchronize_stream(stream);  // throws the launch's failure before anything is copied
  for (std::size_t i = 0; i < list.size(); ++i) {
    const KernelArgs::Arg& a = list[i];
    if (a.kind != KernelArgs::Kind::host || a.host_bytes == 0 ||
        a.direction == TransferDirection::in)
      continue;
    backend.copy(a.host_data, as_pointer(staged[i]), a.host_bytes, stream, false);
  }
}

void check_and_launch(const Kernel::State& k, const LaunchConfig& config, const KernelArgs& args,
                      void** values, std::uint64_t* converted) {
  check_arguments(k, config, args, values, converted);
  if (args.has_host_transfers()) {
    launch_staged(k, config, args, values, converted);
    return;
  }
  launch_on_backend(k, config, values);
}

// More arguments than KernelArgs keeps inline: the pointers and converted
// values on the heap too (kept off the common path's frame).
[[gnu::noinline]] void launch_many(const Kernel::State& k, const LaunchConfig& config,
                                   const KernelArgs& args) {
  const std::size_t n = args.size();
  auto values = std::make_unique<void*[]>(n);
  auto converted = std::make_unique<std::uint64_t[]>(n);
  check_and_launch(k, config, args, values.get(), converted.get());
}

}  // namespace
}  // namespace detail

void Kernel::launch(const LaunchConfig& config, KernelArgs& args) const {
  const State& k = *state_;
  detail::check_config(k, config);
  if (config.cooperative) [[unlikely]]
    detail::check_cooperative(k, config);
  if (args.size() > KernelArgs::inline_capacity) {
    detail::launch_many(k, config, args);
    return;
  }
  // The argument pointers and converted values, on the stack.
  void* values[KernelArgs::inline_capacity];
  std::uint64_t converted[KernelArgs::inline_capacity];
  detail::check_and_launch(k, config, args, values, converted);
}

float Kernel::launch_timed(const LaunchConfig& config, KernelArgs& args) const {
  Event start(device()), stop(device());
  start.record(Stream::wrap(device(), config.stream.native));
  launch(config, args);
  stop.record(Stream::wrap(device(), config.stream.native));
  stop.synchronize();
  return elapsed_ms(start, stop);
}

}  // namespace cudakit
