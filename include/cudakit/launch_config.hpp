// How a kernel is launched: grid, block, dynamic shared memory and stream.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cudakit/dim3.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {

struct LaunchConfig {
  Dim3 grid{1};
  Dim3 block{1};
  std::uint32_t shared_bytes = 0;  // dynamic shared memory per block
  StreamRef stream{};              // default stream when null
  // A cooperative launch: every block is resident at once, so the kernel may
  // wait for the whole grid (cooperative_groups::this_grid().sync()). The
  // grid must fit on the device at once: Kernel::max_cooperative_grid_blocks.
  bool cooperative = false;
  // "grid 4x1x1, block 256x1x1, 0 B shared"
  std::string describe() const;
};

// One thread per element: block of `block` threads, enough blocks to cover n.
// ArgumentError when block is 0.
LaunchConfig grid_for(std::size_t n, unsigned block = 256, StreamRef stream = {});
// 2-D: blocks of bx x by covering width x height.
LaunchConfig grid_for_2d(std::size_t width, std::size_t height, unsigned bx = 16, unsigned by = 16,
                         StreamRef stream = {});

}  // namespace cudakit
