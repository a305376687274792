// `cudakit bench conv` (PERF.md P8): the 3x3 mean filter at each step of the
// optimisation checklist on a 3840x2160 RGB uint8 image, each step's
// bandwidth against the device-to-device copy ceiling measured in the same
// run, every output checked against the CPU reference.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cudakit/device.hpp"

namespace cudakit::cli {

struct ConvStepResult {
  std::string title;
  double ms = 0;    // median per launch
  double gbps = 0;  // bytes read once + written once, per second
  bool correct = false;
};

struct ConvBenchResult {
  double copy_ms = 0;
  double copy_gbps = 0;  // the ceiling: a device-to-device copy of the image
  std::vector<ConvStepResult> steps;
};

ConvBenchResult run_conv_bench(const Device& device, int width, int height, int repeats,
                               std::ostream& out);

// A bar chart of the steps' GB/s with the copy ceiling as a line, as SVG.
std::string conv_bench_svg(const ConvBenchResult& result, const std::string& device_name);

}  // namespace cudakit::cli
