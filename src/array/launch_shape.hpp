// The launch shape of the array layer's one-item-per-thread kernels (fused
// expressions, ElementwiseKernel): one place decides how many blocks cover a
// given amount of work on each backend.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cudakit/backend_kind.hpp"
#include "cudakit/device.hpp"
#include "cudakit/launch_config.hpp"

namespace cudakit::detail {

// Threads per block of the elementwise kernels.
inline constexpr unsigned elementwise_block = 256;

// A 1-D launch for `work` items (at least one block). Kernels launched with
// it keep a grid-stride loop: the grid is capped at the device's limit.
inline LaunchConfig elementwise_launch(const Device& device, std::int64_t work, StreamRef stream) {
  const unsigned block = elementwise_block;
  const auto& props = device.properties();
  // On a GPU, a grid that covers the work (one item per thread) beats one
  // wave of resident blocks with a grid-stride loop: 4356 against 4099 GB/s
  // for a float32 add of 2^28 elements on an H200 (bench/experiments/
  // add_grid_policy.cu); the loop then only runs past 2^31-1 blocks. On the
  // CPU backend each block costs a task, so one wave and the loop it is.
  std::int64_t limit = std::int64_t(props.max_grid_dim.x > 0 ? props.max_grid_dim.x : 65535);
  if (device.backend_kind() == BackendKind::cpu) {
    const std::int64_t per_sm =
        std::max(1, props.max_threads_per_multiprocessor / static_cast<int>(block));
    limit = std::max<std::int64_t>(1, props.multiprocessor_count) * per_sm;
  }
  const std::int64_t blocks = std::clamp<std::int64_t>((work + block - 1) / block, 1, limit);
  LaunchConfig config;
  config.grid = Dim3{static_cast<unsigned>(blocks)};
  config.block = Dim3{block};
  config.stream = stream;
  return config;
}

}  // namespace cudakit::detail
