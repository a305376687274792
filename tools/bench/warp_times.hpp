// `cudakit bench conv --warp-times`: how a launch of a strip kernel spends its
// time, warp by warp. The step's kernel is built once more with WARP_TIMES:
// each warp's first lane records the multiprocessor it ran on and the GPU's
// global timer when the warp started and when it finished, into a __device__
// array of the module that is read back after one launch. What it answers:
// do a launch's warps finish together, or does the launch wait for a few?
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cudakit/cudakit.hpp"

namespace cudakit::cli {

// Microseconds from the first warp's start. A percentile row is p0 (the
// least), p10, p50, p90 and p100 (the most).
struct WarpTimes {
  std::string title;
  long long warps = 0;
  int multiprocessors = 0;   // that ran at least one warp
  double span_us = 0;        // first warp's start to last warp's end
  double warp_us[5] = {};    // each warp's own time, start to end
  double sm_end_us[5] = {};  // when each multiprocessor's last warp ended
};

// One launch of step `step` (an index into workloads::mean_filter_steps())
// built with WARP_TIMES, in the plain kernel's launch shape `config`, on
// `input` into `output` (width x height RGB); empty for steps that are not
// strip kernels (the only ones instrumented).
std::optional<WarpTimes> measure_warp_times(const Device& device, int step,
                                            const LaunchConfig& config,
                                            const DeviceBuffer<std::uint8_t>& input,
                                            DeviceBuffer<std::uint8_t>& output, int width,
                                            int height);

void print_warp_times(const std::vector<WarpTimes>& rows, bool gpu, std::ostream& out);

}  // namespace cudakit::cli
