// benchmark() and occupancy(): see include/cudakit/profiler.hpp.
#include "cudakit/profiler.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "cudakit/error.hpp"
#include "cudakit/event.hpp"

namespace cudakit {
namespace {

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}
double stddev(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size()));
}
std::string describe(const char* what, const std::vector<double>& v) {
  if (v.empty()) return std::string(what) + ": -";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: %10.3f us +/- %7.3f (min %10.3f, max %10.3f)", what,
                mean(v) * 1000.0, stddev(v) * 1000.0,
                *std::min_element(v.begin(), v.end()) * 1000.0,
                *std::max_element(v.begin(), v.end()) * 1000.0);
  return buf;
}

}  // namespace

double BenchmarkResult::cpu_mean() const { return mean(cpu_ms); }
double BenchmarkResult::gpu_mean() const { return mean(gpu_ms); }
double BenchmarkResult::gpu_min() const {
  return gpu_ms.empty() ? 0.0 : *std::min_element(gpu_ms.begin(), gpu_ms.end());
}
double BenchmarkResult::gpu_max() const {
  return gpu_ms.empty() ? 0.0 : *std::max_element(gpu_ms.begin(), gpu_ms.end());
}
double BenchmarkResult::gpu_std() const { return stddev(gpu_ms); }
std::string BenchmarkResult::to_string() const {
  return name + ": " + describe("CPU", cpu_ms) + "   " + describe("GPU", gpu_ms);
}

BenchmarkResult benchmark(const std::function<void()>& work, const BenchmarkOptions& options,
                          const Stream& stream) {
  if (options.n_repeat < 1 || options.n_warmup < 0)
    throw ArgumentError("benchmarking '" + options.name + "'",
                        "n_repeat must be at least 1 and n_warmup at least 0 (got " +
                            std::to_string(options.n_repeat) + " and " +
                            std::to_string(options.n_warmup) + ")");
  if (!(options.max_duration_s > 0))
    throw ArgumentError(
        "benchmarking '" + options.name + "'",
        "max_duration must be positive (got " + std::to_string(options.max_duration_s) + " s)",
        "leave it at its default (no limit) or give a time in seconds");
  const Device& device = stream.device();
  for (int i = 0; i < options.n_warmup; ++i) work();
  stream.synchronize();
  BenchmarkResult r;
  r.name = options.name;
  Event start(device), stop(device);
  double spent_ms = 0;
  for (int i = 0; i < options.n_repeat && spent_ms < options.max_duration_s * 1000.0; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    start.record(stream);
    work();
    stop.record(stream);
    stop.synchronize();
    const auto t1 = std::chrono::steady_clock::now();
    r.cpu_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    spent_ms += r.cpu_ms.back();
    r.gpu_ms.push_back(stop.elapsed_ms_since(start));
  }
  return r;
}

Occupancy occupancy(const Kernel& kernel, int block_size, std::size_t dynamic_shared) {
  return kernel.occupancy(block_size, dynamic_shared);
}

}  // namespace cudakit
