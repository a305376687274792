// Measuring kernels from C++: benchmark() times a piece of work on the host
// and on the device the way cupyx.profiler.benchmark does (the tutorials'
// benchmark template, with warm-up and per-run device times from events);
// ProfileSession records every launch in the process while it lives and
// sums them up per kernel (what CUDAKIT_PROFILE=1 prints at exit); and
// occupancy() says how many blocks of a kernel fit on a multiprocessor and
// which resource stops more from fitting.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
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
  // Stops repeating once the timed runs have taken this long on the host
  // (at least one run is made), as cupyx.profiler.benchmark's max_duration.
  double max_duration_s = std::numeric_limits<double>::infinity();
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

// One launch as recorded by a ProfileSession.
struct ProfiledLaunch {
  std::string name;  // the kernel's, or the LaunchConfig's label
  Dim3 grid, block;
  std::size_t bytes_moved = 0;  // from LaunchConfig::bytes_moved; 0: unknown
  int device = 0;               // the device's ordinal
  int stream = 0;               // streams numbered in order of first use
  double start_ms = 0;          // device time since the session's first launch on that device
  double duration_ms = -1;      // from the event pair; -1 when the launch never completed
};

// The launches of one kernel (or one array operation) in a profile.
struct ProfileRow {
  std::string name;
  long calls = 0;
  double total_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0;
  Dim3 grid, block;             // of the first launch
  bool shapes_vary = false;     // later launches had another grid or block
  std::size_t bytes_moved = 0;  // summed over the launches that declared it
  double gb_per_s = 0;          // those bytes over those launches' time; 0: unknown
};

struct ProfileReport {
  std::vector<ProfileRow> rows;          // the most expensive first
  std::vector<ProfiledLaunch> launches;  // in launch order
  // The table CUDAKIT_PROFILE=1 prints: a header line, then one line per row
  // (name, calls, total / mean / min / max ms, GB/s or "-", launch shape).
  std::string to_string() const;
  // The launches as a Chrome trace (one complete event per launch, a row
  // per device and stream): opens in https://ui.perfetto.dev. Throws
  // ArgumentError when the file cannot be written.
  void write_chrome_trace(const std::string& path) const;
};

// Records every kernel launch in the process (any thread, any device) from
// construction until stop(): each is bracketed by two events on its stream.
// Sessions may overlap (CUDAKIT_PROFILE=1 is one that lasts until exit);
// while none is active the launch path pays one relaxed load.
class ProfileSession {
 public:
  ProfileSession();
  ~ProfileSession();  // stops, discarding the report, if stop() was not called
  ProfileSession(const ProfileSession&) = delete;
  ProfileSession& operator=(const ProfileSession&) = delete;
  // Waits for the recorded launches and sums them up. Once only: a second
  // call throws ArgumentError.
  ProfileReport stop();

 private:
  std::size_t first_ = 0;  // index of the session's first launch in the recorder
  bool active_ = true;
};

// Occupancy of `kernel` launched with blocks of `block_size` threads and
// `dynamic_shared` bytes of dynamic shared memory per block: the same as
// kernel.occupancy(block_size, dynamic_shared).
Occupancy occupancy(const Kernel& kernel, int block_size, std::size_t dynamic_shared = 0);

}  // namespace cudakit
