// `cudakit bench conv` (PERF.md P8): the 3x3 mean filter at each step of the
// optimisation checklist (and each variant of its last step) on a 3840x2160
// RGB uint8 image, each step's bandwidth against the best copy ceiling
// measured in the same run, every output checked against the CPU reference.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cudakit/device.hpp"

namespace cudakit::cli {

// A copy of the image's bytes, the most any filter pass could achieve.
struct ConvCeiling {
  std::string title;
  double ms = 0;
  double gbps = 0;  // bytes read + written, per second
};

struct ConvStepResult {
  int step = 0;  // index into workloads::mean_filter_steps()
  std::string title;
  double ms = 0;    // median per launch
  double gbps = 0;  // bytes read once + written once, per second
  bool correct = false;
  int registers = 0;       // per thread
  int threads_per_sm = 0;  // resident at once (occupancy), 0 when unknown
  long long blocks = 0;    // in the grid
};

struct ConvBenchResult {
  std::vector<ConvCeiling> ceilings;
  double best_ceiling_gbps = 0;
  std::vector<ConvStepResult> steps;
};

// The steps named by `selection`: "all", "shipped", or a comma-separated list
// of step labels ("1,4,5b"; a label is the first word of a step's title, "5"
// means every 5x variant). Throws cudakit::Error naming the labels on a label
// that matches none.
std::vector<int> select_conv_steps(const std::string& selection);

// How each launch is timed. queued: behind a kernel that holds the GPU, so
// the start event, the launch and the stop event are all queued when the GPU
// reaches them and the window is the GPU's work alone. idle: launched on an
// idle GPU, so the window also holds the host's submission of the launch.
enum class ConvTiming { queued, idle };

// With `warp_times`, the strip steps are also run once built with WARP_TIMES
// and each warp's time is summarised (bench/warp_times.hpp).
ConvBenchResult run_conv_bench(const Device& device, int width, int height, int repeats,
                               const std::vector<int>& steps, ConvTiming timing, std::ostream& out,
                               bool warp_times = false);

// A bar chart of the steps' GB/s with the best ceiling as a line, as SVG.
std::string conv_bench_svg(const ConvBenchResult& result, const std::string& device_name);

}  // namespace cudakit::cli
