// Scratch memory of single-launch reductions and scans: per device and
// stream, a counter (reset to zero by the kernel that used it) and room for
// one partial per block. Work on one stream runs in order, so reusing it is
// safe; different streams get different workspaces.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudakit/device.hpp"
#include "cudakit/stream.hpp"

namespace cudakit::detail {

// The most blocks a single-launch reduction or scan uses, and the largest
// partial (accumulator) it may keep per block.
inline constexpr unsigned workspace_max_blocks = 4096;
inline constexpr std::size_t workspace_max_partial_bytes = 32;

struct ReduceWorkspace {
  std::uint64_t counter = 0;   // unsigned int, zero between launches
  std::uint64_t partials = 0;  // workspace_max_blocks * workspace_max_partial_bytes bytes
};

ReduceWorkspace reduce_workspace(const Device& device, void* native_stream);

// Blocks for a grid-stride pass over n elements of `per_block` elements per
// block and step: enough to fill the device, never more than useful.
unsigned reduction_grid(const Device& device, std::int64_t n, std::int64_t per_block);

}  // namespace cudakit::detail
