// A kernel of a loaded module, and the type-checked launch. Every launch is
// checked against the kernel's real parameter layout (count, size, pointer
// or scalar, scalar type) and the device's limits before it reaches the
// driver. There is one checked path, launch(config, KernelArgs&); the
// variadic launch builds its KernelArgs on the stack, so a launch of up to
// KernelArgs::inline_capacity arguments allocates nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "cudakit/cache_config.hpp"
#include "cudakit/kernel_args.hpp"
#include "cudakit/kernel_attributes.hpp"
#include "cudakit/launch_config.hpp"
#include "cudakit/module.hpp"
#include "cudakit/occupancy.hpp"
#include "cudakit/param_layout.hpp"

namespace cudakit {

namespace detail {
struct KernelAccess;  // the core's own constructor (src/core/kernel_state.hpp)
}

class Kernel {
 public:
  const std::string& name() const;    // as the user asked for it
  const std::string& symbol() const;  // lowered / mangled symbol
  const ParamLayout& params() const;
  const Device& device() const;
  const Module& module() const;
  KernelAttributes attributes() const;
  // Occupancy: resident blocks per multiprocessor for this block size.
  int max_active_blocks_per_multiprocessor(int block_size, std::size_t dynamic_shared = 0) const;
  // The same with the resident warps, the fraction of the multiprocessor's
  // warps they are, and the resource that limits them (registers, shared
  // memory, threads, blocks per multiprocessor) named. ArgumentError for a
  // block size outside 1..attributes().max_threads_per_block.
  Occupancy occupancy(int block_size, std::size_t dynamic_shared = 0) const;
  Occupancy occupancy(const Dim3& block, std::size_t dynamic_shared = 0) const;
  // {min grid size for full occupancy, block size}.
  std::pair<int, int> suggest_block_size(std::size_t dynamic_shared = 0) const;
  // The most blocks of `block_size` threads a cooperative launch
  // (LaunchConfig::cooperative) may have: all of them resident at once
  // (occupancy x multiprocessors on a GPU). 0 when the block cannot run.
  long long max_cooperative_grid_blocks(int block_size, std::size_t dynamic_shared = 0) const;
  // Allows more than 48 KiB of dynamic shared memory (up to the device's opt-in limit).
  void set_max_dynamic_shared_memory(std::size_t bytes) const;
  // The kernel's L1 / shared memory preference (cuFuncSetCacheConfig), a hint
  // that overrides the context's for this kernel. The driver cannot read it
  // back; cache_preference() is the value last set (prefer_none at first).
  void set_cache_preference(CachePreference preference) const;
  CachePreference cache_preference() const;
  // The share of L1 / shared memory this kernel prefers as shared memory, in
  // percent from 0 to 100, or -1 for the device's default (the driver's
  // preferred carveout, a hint). ArgumentError outside -1..100.
  void set_shared_memory_carveout(int percent) const;
  void* native() const;

  // The checked launch of a run-time built argument list. Host transfers
  // (KernelArgs::host) are staged and the call returns when their data is
  // back on the host; otherwise it returns once the launch is queued. The
  // arguments are not changed: the same list may be launched again.
  void launch(const LaunchConfig& config, KernelArgs& args) const;
  void launch(const LaunchConfig& config, KernelArgs&& args) const { launch(config, args); }
  // The same for arguments known at compile time: each one as KernelArgs::add
  // takes it (DeviceBuffer, Array, In/Out/InOut, ArrayView, scalars, structs).
  template <class... Args>
  void launch(const LaunchConfig& config, const Args&... args) const {
    KernelArgs pack;
    (pack.add(args), ...);
    launch(config, pack);
  }

  // Launches and returns the kernel's device time in milliseconds (events
  // around the launch; waits for it).
  float launch_timed(const LaunchConfig& config, KernelArgs& args) const;
  template <class... Args>
  float launch_timed(const LaunchConfig& config, const Args&... args) const {
    KernelArgs pack;
    (pack.add(args), ...);
    return launch_timed(config, pack);
  }

  struct State;  // what the handles share; opaque outside the library

 private:
  friend struct detail::KernelAccess;
  explicit Kernel(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
};

}  // namespace cudakit
