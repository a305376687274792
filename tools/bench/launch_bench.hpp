// The launch-overhead benchmark (PERF.md P1): cudakit's checked
// Kernel::launch against the raw driver launch (cuLaunchKernel, or the CPU
// backend's own launch entry) of the same empty 2-argument kernel on the same
// stream, in the same run, and the same launch while a profile session
// records it (the cost of CUDAKIT_PROFILE=1 a launch). Used by `cudakit bench launch` and
// bench/launch_bench.
#pragma once

#include <ostream>

#include "cudakit/device.hpp"

namespace cudakit::cli {

struct LaunchBenchResult {
  double cudakit_us = 0;  // per launch, median over repeats
  double raw_us = 0;
  double profiled_us = 0;  // cudakit's launch with a profile session recording; 0: not measured
  double ratio() const { return raw_us > 0 ? cudakit_us / raw_us : 0; }
  const char* raw_name = "";
};

// `launches` back-to-back launches then one synchronize, timed on the host;
// median of `repeats`, the two paths interleaved so drift hits both alike.
LaunchBenchResult run_launch_bench(const Device& device, int launches, int repeats,
                                   std::ostream& out);

}  // namespace cudakit::cli
