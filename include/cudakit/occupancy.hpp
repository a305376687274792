// How many blocks of a kernel fit on one multiprocessor at a block size, and
// which resource stops more from fitting: Kernel::occupancy(block,
// dynamic_shared) (and the free function cudakit::occupancy in profiler.hpp).
// On the CPU backend the figures come from its model of a GPU's limits
// (2048 threads, 32 blocks and 228 KiB of shared memory per multiprocessor;
// no register limit), so a launch shape can be reasoned about without a GPU.
#pragma once

#include <string>

namespace cudakit {

struct Occupancy {
  int block_size = 0;
  int active_blocks_per_multiprocessor = 0;  // the driver's (or the CPU model's) answer
  int active_warps_per_multiprocessor = 0;
  int max_warps_per_multiprocessor = 0;
  double fraction = 0;  // active / max warps
  // Blocks per multiprocessor each resource alone would allow (INT_MAX:
  // no limit from that resource, e.g. no shared memory used).
  int limit_by_warps = 0;
  int limit_by_blocks = 0;
  int limit_by_registers = 0;
  int limit_by_shared_memory = 0;
  // "registers", "shared memory", "threads (warps) per multiprocessor" or
  // "blocks per multiprocessor": the resource that sets the limit.
  std::string limited_by;
  // "block 256: 8 blocks (64 of 64 warps, 100%) per multiprocessor, limited by ..."
  std::string to_string() const;
};

}  // namespace cudakit
