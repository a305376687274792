#include "bench/warp_times.hpp"

#include <algorithm>
#include <map>

#include "cli_support.hpp"
#include "workloads/mean_filter_steps.hpp"

namespace cudakit::cli {
namespace {

// p0, p10, p50, p90, p100 of `v` (not empty), nearest rank.
void percentiles(std::vector<double> v, double (&out)[5]) {
  std::sort(v.begin(), v.end());
  const double at[5] = {0, 0.1, 0.5, 0.9, 1.0};
  for (int i = 0; i < 5; ++i) out[i] = v[static_cast<std::size_t>(at[i] * double(v.size() - 1))];
}

}  // namespace

std::optional<WarpTimes> measure_warp_times(const Device& device, int step,
                                            const LaunchConfig& config,
                                            const DeviceBuffer<std::uint8_t>& input,
                                            DeviceBuffer<std::uint8_t>& output, int width,
                                            int height) {
  namespace wl = workloads;
  const wl::MeanFilterStep& s = wl::mean_filter_steps().at(static_cast<std::size_t>(step));
  if (s.shape != wl::MeanFilterShape::strips) return std::nullopt;
  // The record array sized for the launch's warps.
  const long long block_threads =
      static_cast<long long>(config.block.x) * config.block.y * config.block.z;
  const long long warps = static_cast<long long>(config.grid.x) * config.grid.y * config.grid.z *
                          ((block_threads + 31) / 32);
  const Module module = compile("#define WARP_TIMES 1\n__device__ unsigned long long warp_times[" +
                                    std::to_string(3 * warps) + "];\n" + s.source,
                                {}, device);
  const Kernel kernel = module.kernel(s.kernel);
  kernel.launch(config, input, output, width, height);  // warm-up: caches, clocks
  kernel.launch(config, input, output, width, height);
  device.synchronize();
  std::vector<unsigned long long> records(static_cast<std::size_t>(3 * warps));
  module.get_global("warp_times")
      .copy_to_host(records.data(), records.size() * sizeof(unsigned long long));

  unsigned long long first = ~0ull, last = 0;
  for (long long w = 0; w < warps; ++w) {
    first = std::min(first, records[std::size_t(3 * w + 1)]);
    last = std::max(last, records[std::size_t(3 * w + 2)]);
  }
  auto us = [&](unsigned long long t) { return double(t - first) / 1000.0; };
  std::vector<double> own;
  std::map<unsigned long long, double> sm_end;
  for (long long w = 0; w < warps; ++w) {
    const unsigned long long* r = &records[std::size_t(3 * w)];
    own.push_back(double(r[2] - r[1]) / 1000.0);
    double& end = sm_end[r[0]];
    end = std::max(end, us(r[2]));
  }
  std::vector<double> ends;
  for (const auto& [sm, end] : sm_end) ends.push_back(end);
  WarpTimes t;
  t.title = s.title;
  t.warps = warps;
  t.multiprocessors = static_cast<int>(sm_end.size());
  t.span_us = us(last);
  percentiles(own, t.warp_us);
  percentiles(ends, t.sm_end_us);
  return t;
}

void print_warp_times(const std::vector<WarpTimes>& rows, bool gpu, std::ostream& out) {
  out << "\nwarp times: one launch of each strip step built with WARP_TIMES (each warp's "
      << (gpu ? "%globaltimer" : "host clock") << " at its start and end; us)\n";
  Table table({"step", "warps", "SMs", "span", "warp time p0", "p10", "p50", "p90", "max",
               "SM's last warp ends p0", "p10", "p50", "p90", "max"});
  for (const WarpTimes& t : rows) {
    std::vector<std::string> row = {t.title.substr(0, t.title.find(' ')), std::to_string(t.warps),
                                    std::to_string(t.multiprocessors), fixed(t.span_us, 2)};
    for (double v : t.warp_us) row.push_back(fixed(v, 2));
    for (double v : t.sm_end_us) row.push_back(fixed(v, 2));
    table.add(row);
  }
  table.print(out);
  out << "(a warp's time is its own start to end; an SM's last warp ends at the time given from "
         "the first warp's start, so the spread of that column is how long the launch waits "
         "for its slowest multiprocessors)\n";
}

}  // namespace cudakit::cli
