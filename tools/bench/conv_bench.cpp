#include "bench/conv_bench.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>

#include "cli_support.hpp"
#include "cudakit/cudakit.hpp"
#include "workloads/mean_filter_steps.hpp"
#include "workloads/references.hpp"

namespace cudakit::cli {
namespace {

// Median milliseconds per call of `work` over `repeats` event-timed runs.
template <class F>
double time_ms(const Device& device, int repeats, F work) {
  work();  // warm-up (first-touch, caches, clocks)
  device.synchronize();
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    Event start(device), stop(device);
    start.record();
    work();
    stop.record();
    stop.synchronize();
    samples.push_back(stop.elapsed_ms_since(start));
  }
  return median(samples);
}

}  // namespace

ConvBenchResult run_conv_bench(const Device& device, int width, int height, int repeats,
                               std::ostream& out) {
  namespace wl = workloads;
  const std::size_t bytes = std::size_t(width) * height * wl::mean_filter_channels;
  std::mt19937 gen(12345);
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<std::uint8_t> image(bytes), expected(bytes), result(bytes);
  for (auto& v : image) v = static_cast<std::uint8_t>(dist(gen));
  wl::mean_filter_rows(image.data(), expected.data(), width, height, 0, std::size_t(height));

  DeviceBuffer<std::uint8_t> input = to_device(image);
  DeviceBuffer<std::uint8_t> output(device, bytes, Allocator::direct);
  ConvBenchResult r;
  r.copy_ms = time_ms(device, repeats, [&] { output.copy_from(input); });
  r.copy_gbps = 2.0 * double(bytes) / (r.copy_ms * 1e6);

  for (int step = 0; step < wl::mean_filter_step_count; ++step) {
    const wl::MeanFilterStep& s = wl::mean_filter_steps[step];
    Kernel kernel = compile(s.source, {}, device).kernel(s.kernel);
    const LaunchConfig config = wl::mean_filter_step_launch(step, width, height);
    output.untyped().fill_bytes(0, 1, bytes);
    ConvStepResult row;
    row.title = s.title;
    row.ms = time_ms(device, repeats, [&] { kernel.launch(config, input, output, width, height); });
    row.gbps = 2.0 * double(bytes) / (row.ms * 1e6);
    output.copy_to(result);
    row.correct = result == expected;
    r.steps.push_back(row);
  }

  out << "3x3 mean filter, " << width << "x" << height << " RGB uint8 ("
      << fixed(double(bytes) / 1e6, 1) << " MB in, the same out) on " << device.describe()
      << "\nGB/s counts each input and output byte once; median of " << repeats
      << " event-timed launches\n";
  Table table({"step", "ms", "GB/s", "of copy ceiling", "x naive", "output"});
  table.add({"device-to-device copy (ceiling)", fixed(r.copy_ms, 4), fixed(r.copy_gbps, 1), "100%",
             "", ""});
  const double naive_ms = r.steps.empty() ? 0 : r.steps.front().ms;
  for (const auto& s : r.steps)
    table.add({s.title, fixed(s.ms, 4), fixed(s.gbps, 1),
               fixed(100.0 * s.gbps / r.copy_gbps, 0) + "%", fixed(naive_ms / s.ms, 2) + "x",
               s.correct ? "exact" : "WRONG"});
  table.print(out);
  if (!r.steps.empty()) {
    const auto& fastest = r.steps[wl::mean_filter_fastest_step];
    out << "shipped filter (" << fastest.title << "): " << fixed(naive_ms / fastest.ms, 2)
        << "x the tutorial's naive kernel (P8 target >= 5x), "
        << fixed(100.0 * fastest.gbps / r.copy_gbps, 0) << "% of the copy ceiling\n";
  }
  return r;
}

std::string conv_bench_svg(const ConvBenchResult& result, const std::string& device_name) {
  const int bar_h = 34, gap = 12, left = 300, chart_w = 520, top = 50;
  const int rows = static_cast<int>(result.steps.size());
  const int height = top + rows * (bar_h + gap) + 60;
  double top_value = result.copy_gbps;
  for (const auto& s : result.steps) top_value = std::max(top_value, s.gbps);
  top_value = std::max(top_value * 1.1, 1e-9);
  auto scale = [&](double v) { return v / top_value * chart_w; };
  auto escape = [](const std::string& s) {
    std::string o;
    for (char c : s)
      o += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
    return o;
  };
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + chart_w + 120
      << "\" height=\"" << height << "\" font-family=\"sans-serif\" font-size=\"13\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"10\" y=\"24\" font-size=\"16\">3x3 mean filter: GB/s per optimisation step ("
      << escape(device_name) << ")</text>\n";
  int y = top;
  for (const auto& s : result.steps) {
    svg << "<text x=\"10\" y=\"" << y + bar_h * 0.65 << "\">" << escape(s.title) << "</text>\n"
        << "<rect x=\"" << left << "\" y=\"" << y << "\" width=\"" << scale(s.gbps)
        << "\" height=\"" << bar_h << "\" fill=\"#4c78a8\"/>\n"
        << "<text x=\"" << left + scale(s.gbps) + 6 << "\" y=\"" << y + bar_h * 0.65 << "\">"
        << fixed(s.gbps, 0) << " GB/s</text>\n";
    y += bar_h + gap;
  }
  const double cx = left + scale(result.copy_gbps);
  svg << "<line x1=\"" << cx << "\" y1=\"" << top - 8 << "\" x2=\"" << cx << "\" y2=\"" << y
      << "\" stroke=\"#e45756\" stroke-width=\"2\" stroke-dasharray=\"6,4\"/>\n"
      << "<text x=\"" << cx - 150 << "\" y=\"" << y + 20 << "\" fill=\"#e45756\">copy ceiling "
      << fixed(result.copy_gbps, 0) << " GB/s</text>\n"
      << "</svg>\n";
  return svg.str();
}

}  // namespace cudakit::cli
