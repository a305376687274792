#include "cudakit/launch_config.hpp"

#include <limits>
#include <string>

#include "cudakit/error.hpp"

namespace cudakit {

std::string LaunchConfig::describe() const {
  return "grid " + grid.to_string() + ", block " + block.to_string() + ", " +
         std::to_string(shared_bytes) + " B shared" + (cooperative ? ", cooperative" : "");
}

namespace {
// CUDA's largest grid x extent; y and z are smaller (65535).
constexpr std::size_t max_grid_x = 2147483647u;
constexpr std::size_t max_grid_yz = 65535u;

unsigned blocks_for(std::size_t n, unsigned block, std::size_t limit, const char* what) {
  // An empty range still gets one block, so the kernel's bounds check sees n == 0
  // instead of the launch failing on a zero-sized grid.
  std::size_t blocks = n == 0 ? 1 : (n - 1) / block + 1;
  if (blocks > limit)
    throw ArgumentError("computing a launch grid",
                        std::string(what) + " needs " + std::to_string(blocks) +
                            " blocks, more than the " + std::to_string(limit) + " a grid allows",
                        "use larger blocks, or a grid-stride loop over a fixed grid");
  return static_cast<unsigned>(blocks);
}
}  // namespace

LaunchConfig grid_for(std::size_t n, unsigned block, StreamRef stream) {
  if (block == 0)
    throw ArgumentError("grid_for", "the block size is 0",
                        "pass the number of threads per block, e.g. grid_for(n, 256)");
  LaunchConfig config;
  config.block = Dim3(block);
  config.grid = Dim3(
      blocks_for(n, block, max_grid_x, ("covering " + std::to_string(n) + " elements").c_str()));
  config.stream = stream;
  return config;
}

LaunchConfig grid_for_2d(std::size_t width, std::size_t height, unsigned bx, unsigned by,
                         StreamRef stream) {
  if (bx == 0 || by == 0)
    throw ArgumentError(
        "grid_for_2d",
        "a block extent is 0 (" + std::to_string(bx) + "x" + std::to_string(by) + ")",
        "pass the block's width and height, e.g. grid_for_2d(w, h, 16, 16)");
  LaunchConfig config;
  config.block = Dim3(bx, by);
  config.grid = Dim3(blocks_for(width, bx, max_grid_x, "the width"),
                     blocks_for(height, by, max_grid_yz, "the height"));
  config.stream = stream;
  return config;
}

}  // namespace cudakit
