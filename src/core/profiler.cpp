// benchmark() and occupancy(): see include/cudakit/profiler.hpp.
#include "cudakit/profiler.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
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

std::string Occupancy::to_string() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "block %d: %d blocks (%d of %d warps, %.0f%%) per multiprocessor, limited by %s",
                block_size, active_blocks_per_multiprocessor, active_warps_per_multiprocessor,
                max_warps_per_multiprocessor, fraction * 100.0, limited_by.c_str());
  return buf;
}

Occupancy occupancy(const Kernel& kernel, int block_size, std::size_t dynamic_shared) {
  const Device& device = kernel.device();
  const KernelAttributes a = kernel.attributes();
  if (block_size <= 0 || (a.max_threads_per_block > 0 && block_size > a.max_threads_per_block))
    throw ArgumentError("computing the occupancy of kernel " + kernel.name(),
                        "block size " + std::to_string(block_size) + " is not in 1.." +
                            std::to_string(a.max_threads_per_block),
                        "the kernel's limit is kernel.attributes().max_threads_per_block");
  const DeviceProperties& p = device.properties();
  const int warp = std::max(1, p.warp_size);
  Occupancy o;
  o.block_size = block_size;
  o.max_warps_per_multiprocessor = std::max(1, p.max_threads_per_multiprocessor / warp);
  const int warps_per_block = (block_size + warp - 1) / warp;
  o.limit_by_warps = o.max_warps_per_multiprocessor / warps_per_block;
  o.limit_by_blocks =
      p.max_blocks_per_multiprocessor > 0 ? p.max_blocks_per_multiprocessor : INT_MAX;
  // Registers are allocated per warp in units of 256.
  o.limit_by_registers = INT_MAX;
  const auto regs_per_sm = device.attribute(DeviceAttribute::max_registers_per_multiprocessor);
  if (a.registers > 0 && regs_per_sm > 0) {
    const long long per_warp = (static_cast<long long>(a.registers) * warp + 255) / 256 * 256;
    o.limit_by_registers = static_cast<int>(regs_per_sm / per_warp / warps_per_block);
  }
  // Shared memory per block, with what the system reserves per block.
  o.limit_by_shared_memory = INT_MAX;
  const std::size_t reserved = static_cast<std::size_t>(std::max<std::int64_t>(
      0, device.attribute(DeviceAttribute::reserved_shared_memory_per_block)));
  const std::size_t shared = a.static_shared_bytes + dynamic_shared;
  if (shared > 0 && p.shared_memory_per_multiprocessor > 0)
    o.limit_by_shared_memory =
        static_cast<int>(p.shared_memory_per_multiprocessor / (shared + reserved));
  o.active_blocks_per_multiprocessor =
      kernel.max_active_blocks_per_multiprocessor(block_size, dynamic_shared);
  o.active_warps_per_multiprocessor = o.active_blocks_per_multiprocessor * warps_per_block;
  o.fraction = double(o.active_warps_per_multiprocessor) / double(o.max_warps_per_multiprocessor);
  // The resource with the smallest limit; on a tie, the one users can change
  // most directly comes first.
  const std::pair<int, const char*> limits[] = {
      {o.limit_by_registers, "registers"},
      {o.limit_by_shared_memory, "shared memory"},
      {o.limit_by_warps, "threads (warps) per multiprocessor"},
      {o.limit_by_blocks, "blocks per multiprocessor"}};
  const auto* lowest =
      std::min_element(std::begin(limits), std::end(limits),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
  o.limited_by = lowest->second;
  return o;
}

}  // namespace cudakit
