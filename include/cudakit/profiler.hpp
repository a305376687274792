// Measuring kernels from C++: benchmark() times a piece of work on the host
// and on the device the way cupyx.profiler.benchmark does (the tutorials'
// benchmark template, with warm-up and per-run device times from events),
// and occupancy() says how many blocks of a kernel fit on a multiprocessor
// and which resource stops more from fitting.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cudakit/device.hpp"
#include "cudakit/kernel.hpp"
#include "cudakit/occupancy.hpp"
#include "cudakit/stream.hpp"

namespace cudakit {

struct BenchmarkOptions {
  int n_warmup = 10;  // untimed runs first (compiles, caches, clocks)
  int n_repeat = 100;
  std::string name = "benchmark";  // printed by BenchmarkResult::to_string
};

struct BenchmarkResult {
  std::string name;
  std::vector<double> cpu_ms;  // per run: host time to submit and finish (synchronised)
  std::vector<double> gpu_ms;  // per run: device time between events around the work
  double cpu_mean() const;
  double gpu_mean() const;
  double gpu_min() const;
  double gpu_max() const;
  double gpu_std() const;
  // "name: CPU: 12.3 us +/- 1.0 (min 11.0, max 15.0)  GPU: 10.1 us +/- 0.5 (...)", as CuPy prints.
  std::string to_string() const;
};

// Runs `work` n_warmup times, then n_repeat times each between two events on
// `stream` and synchronised, recording host and device time per run.
BenchmarkResult benchmark(const std::function<void()>& work, const BenchmarkOptions& options = {},
                          const Stream& stream = Stream());

// Occupancy of `kernel` launched with blocks of `block_size` threads and
// `dynamic_shared` bytes of dynamic shared memory per block: the same as
// kernel.occupancy(block_size, dynamic_shared).
Occupancy occupancy(const Kernel& kernel, int block_size, std::size_t dynamic_shared = 0);

}  // namespace cudakit
