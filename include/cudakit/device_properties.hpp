// What a device is and what it can do: the values launch checks and users
// most often ask for, read once per device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudakit/dim3.hpp"

namespace cudakit {

struct DeviceProperties {
  std::string name;              // "NVIDIA H200", or "cudakit CPU backend (...)"
  int compute_major = 0;         // 9 on an H200
  int compute_minor = 0;         // 0 on an H200
  std::size_t total_memory = 0;  // bytes
  int multiprocessor_count = 0;
  int max_threads_per_block = 0;
  Dim3 max_block_dim{};
  Dim3 max_grid_dim{};
  std::size_t shared_memory_per_block = 0;        // static limit, 48 KiB
  std::size_t shared_memory_per_block_optin = 0;  // with an opt-in, 227 KiB on Hopper
  std::size_t shared_memory_per_multiprocessor = 0;
  int registers_per_block = 0;
  int warp_size = 32;
  int max_threads_per_multiprocessor = 0;
  int max_blocks_per_multiprocessor = 0;
  // Clock rates are not read here: the driver takes ~0.55 ms for each of
  // them (measured on an H200), more than a cached kernel's whole first call.
  // Ask attribute(DeviceAttribute::clock_rate / memory_clock_rate) instead.
  int memory_bus_width_bits = 0;
  int l2_cache_bytes = 0;
  int async_engine_count = 0;
  bool unified_addressing = false;
  bool concurrent_kernels = false;
  std::string pci_bus_id;  // "0000:3b:00.0"; "ffff:00:KK.0" for CPU device KK
};

// Free and total bytes of device memory.
struct MemoryInfo {
  std::size_t free = 0;
  std::size_t total = 0;
};

// Per-context limits (cuCtxSetLimit). The tutorials raise the printf FIFO.
// The context limits of cuCtxSetLimit, in CUlimit's order (the values are
// the driver's): sizes in bytes, except the device runtime's synchronize
// depth and pending launch count.
enum class ContextLimit {
  stack_size,
  printf_fifo_size,
  malloc_heap_size,
  dev_runtime_sync_depth,
  dev_runtime_pending_launch_count,
  max_l2_fetch_granularity,
  persisting_l2_cache_size,
};
inline constexpr int kContextLimitCount = 7;

}  // namespace cudakit
