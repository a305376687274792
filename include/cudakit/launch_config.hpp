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
  // For the profile (CUDAKIT_PROFILE=1, cudakit::ProfileSession) and NVTX
  // ranges only; the launch itself ignores them. `label` names the launch
  // instead of the kernel (the array operations pass their expression); it is
  // copied when recorded, so it need only live through the launch call.
  // `bytes_moved` is what the launch reads plus writes in device memory, from
  // which the profile computes the achieved GB/s (0: unknown).
  const char* label = nullptr;
  std::size_t bytes_moved = 0;
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
