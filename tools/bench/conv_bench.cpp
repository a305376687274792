#include "bench/conv_bench.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <sstream>
#include <utility>

#include "bench/warp_times.hpp"
#include "cli_support.hpp"
#include "cudakit/cudakit.hpp"
#include "workloads/mean_filter_steps.hpp"
#include "workloads/references.hpp"

namespace cudakit::cli {
namespace {

// Keeps the GPU busy for a while (one warp polling the global timer), so
// that the start event, the timed launch and the stop event are all queued
// before the GPU reaches them. Without it the GPU is idle when the start
// event is recorded and the window also holds the host's own time to submit
// the launch (a few microseconds, a sixth of a 16 us filter). Compiled for a
// GPU only.
constexpr const char* hold_gpu_source = R"(
__global__ void hold_gpu(unsigned long long nanoseconds) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}
)";
constexpr unsigned long long hold_gpu_ns = 200'000;

// Event-timed runs of a piece of GPU work. With `hold` (a GPU), each run is
// queued behind hold_gpu, so it times the GPU's work alone; work whose
// submission took the host longer than the hold (a synchronous copy returns
// only when the copy is done) is named in `late`: its window holds host time.
struct LaunchTimer {
  const Device& device;
  const Kernel* hold = nullptr;
  std::vector<std::string> late;

  // Median milliseconds per call of `work` (named `what`) over `repeats` runs.
  template <class F>
  double median_ms(const std::string& what, int repeats, F work) {
    work();  // warm-up (first-touch, caches, clocks)
    device.synchronize();
    std::vector<double> samples;
    Event start(device), stop(device);
    for (int r = 0; r < repeats; ++r) {
      const auto submitted = std::chrono::steady_clock::now();
      if (hold) hold->launch(LaunchConfig{Dim3(1), Dim3(32)}, hold_gpu_ns);
      start.record();
      work();
      stop.record();
      const auto took = std::chrono::steady_clock::now() - submitted;
      if (hold && took >= std::chrono::nanoseconds(hold_gpu_ns) &&
          (late.empty() || late.back() != what))
        late.push_back(what);
      stop.synchronize();
      samples.push_back(stop.elapsed_ms_since(start));
    }
    return median(samples);
  }
};

// The copy ceiling as a kernel: 16-byte loads and stores, UNROLL of them in
// flight per thread (all loads issued before the stores), a grid-stride
// loop so one launch shape can cover the image in one pass or run as a
// resident (persistent) grid. A cuMemcpyDtoD of a 25 MB image pays for its
// own launch path and tail; this is what a filter kernel competes with.
// STREAM 1 stores with __stcs (evict-first), as the filters that do.
constexpr const char* copy_kernel_source = R"(
#define UNROLL 4
#if STREAM
#define STORE(p, v) __stcs(p, v)
#else
#define STORE(p, v) (*(p) = (v))
#endif
__global__ void copy_bytes_16(const unsigned char* __restrict__ src,
                              unsigned char* __restrict__ dst, long long bytes) {
  const long long n16 = bytes / 16;
  const uint4* in = reinterpret_cast<const uint4*>(src);
  uint4* out = reinterpret_cast<uint4*>(dst);
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long i = first;
  for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {
    uint4 v[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) STORE(out + i + k * stride, v[k]);
  }
  for (; i < n16; i += stride) out[i] = in[i];
  if (first < bytes - n16 * 16) dst[n16 * 16 + first] = src[n16 * 16 + first];
}
)";
constexpr int copy_kernel_block = 256;
constexpr int copy_kernel_unroll = 4;

// Puts the L2 lines of `bytes` bytes at `data` (256-byte aligned) back to
// evict-normal after a step that loaded them evict-last, so they do not
// stay in L2 ahead of later steps' (and later programs') data. A hint: the
// CPU backend and GPUs before sm_80 do nothing.
constexpr const char* evict_normal_source = R"(
#if !defined(__CUDAKIT_CPU__) && __CUDA_ARCH__ >= 800
#define GPU_ASM asm volatile
#endif
__global__ void l2_evict_normal(const unsigned char* data, long long bytes) {
  const long long at = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 128;
  if (at >= bytes) return;
#ifdef GPU_ASM
  GPU_ASM("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(data + at) : "memory");
#endif
}
)";

std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

}  // namespace

std::vector<int> select_conv_steps(const std::string& selection) {
  namespace wl = workloads;
  const auto& steps = wl::mean_filter_steps();
  std::vector<int> chosen;
  auto add = [&](int i) {
    if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  };
  std::string labels;
  for (const auto& s : steps) labels += (labels.empty() ? "" : ", ") + first_word(s.title);
  std::stringstream list(selection);
  std::string label;
  while (std::getline(list, label, ',')) {
    bool found = false;
    for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
      const std::string own = first_word(steps[std::size_t(i)].title);
      // "5" names every variant of step 5; "5b" one of them.
      const bool variant_of = own.size() > label.size() &&
                              own.compare(0, label.size(), label) == 0 &&
                              std::isalpha(static_cast<unsigned char>(own[label.size()]));
      if (label == "all" || own == label || variant_of ||
          (label == "shipped" && i == wl::mean_filter_shipped_step())) {
        add(i);
        found = true;
      }
    }
    if (!found)
      throw Error("cudakit bench conv --steps", "no step is called '" + label + "'",
                  "use all, shipped, or a comma-separated list of: " + labels);
  }
  if (chosen.empty())
    throw Error("cudakit bench conv --steps", "no steps given",
                "use all, shipped, or a comma-separated list of: " + labels);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

ConvBenchResult run_conv_bench(const Device& device, int width, int height, int repeats,
                               const std::vector<int>& step_indices, ConvTiming timing,
                               std::ostream& out, bool warp_times) {
  namespace wl = workloads;
  const std::size_t bytes = std::size_t(width) * height * wl::mean_filter_channels;
  std::mt19937 gen(12345);
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<std::uint8_t> image(bytes), expected(bytes), result(bytes);
  for (auto& v : image) v = static_cast<std::uint8_t>(dist(gen));
  wl::parallel_for(std::size_t(height), [&](std::size_t lo, std::size_t hi) {
    wl::mean_filter_rows(image.data(), expected.data(), width, height, lo, hi);
  });
  auto gbps_of = [&](double ms) { return 2.0 * double(bytes) / (ms * 1e6); };

  DeviceBuffer<std::uint8_t> input = to_device(image);
  DeviceBuffer<std::uint8_t> output(device, bytes, Allocator::direct);
  ConvBenchResult r;
  std::optional<Kernel> hold;
  if (timing == ConvTiming::queued && device.backend_kind() == BackendKind::cuda)
    hold = compile(hold_gpu_source, {}, device).kernel("hold_gpu");
  LaunchTimer timer{device, hold ? &*hold : nullptr};
  auto add_ceiling = [&](std::string title, double ms) {
    r.ceilings.push_back({std::move(title), ms, gbps_of(ms)});
    r.best_ceiling_gbps = std::max(r.best_ceiling_gbps, r.ceilings.back().gbps);
  };
  add_ceiling("copy: cuMemcpyDtoD",
              timer.median_ms("copy: cuMemcpyDtoD", repeats, [&] { output.copy_from(input); }));

  // The copy kernel, checked, then timed with a grid that covers the image
  // in one pass and with a resident grid (occupancy x multiprocessors).
  const auto copy_kernel = [&](bool stream) {
    return compile(
               std::string("#define STREAM ") + (stream ? "1" : "0") + "\n" + copy_kernel_source,
               {}, device)
        .kernel("copy_bytes_16");
  };
  const Kernel copy = copy_kernel(false), copy_stream = copy_kernel(true);
  const long long n16 = static_cast<long long>(bytes / 16);
  const long long one_pass =
      std::max<long long>(1, (n16 + copy_kernel_block * copy_kernel_unroll - 1) /
                                 (copy_kernel_block * copy_kernel_unroll));
  const long long resident =
      std::max<long long>(1, copy.max_cooperative_grid_blocks(copy_kernel_block));
  const long long byte_count = static_cast<long long>(bytes);
  struct CopyRun {
    std::string title;
    const Kernel* kernel;
    long long blocks;
  };
  const CopyRun copy_runs[] = {
      {"copy kernel: 16-byte, one pass", &copy, one_pass},
      {"copy kernel: 16-byte, resident grid", &copy, resident},
      {"copy kernel: 16-byte, one pass, streaming stores", &copy_stream, one_pass},
  };
  for (const CopyRun& run : copy_runs) {
    LaunchConfig config;
    config.block = Dim3(copy_kernel_block);
    config.grid = Dim3(static_cast<unsigned>(run.blocks));
    output.untyped().fill_bytes(0, 1, bytes);
    run.kernel->launch(config, input, output, byte_count);
    output.copy_to(result);
    if (result != image) throw Error("cudakit bench conv", "the copy kernel's output is wrong");
    const std::string title = run.title + " (" + std::to_string(run.blocks) + " blocks)";
    add_ceiling(title, timer.median_ms(title, repeats, [&] {
      run.kernel->launch(config, input, output, byte_count);
    }));
  }

  std::optional<Kernel> evict_normal;  // compiled for the first step that needs it
  std::vector<WarpTimes> warp_rows;    // --warp-times: one row a strip step
  for (int step : step_indices) {
    const wl::MeanFilterStep& s = wl::mean_filter_steps().at(std::size_t(step));
    Kernel kernel = compile(s.source, {}, device).kernel(s.kernel);
    const LaunchConfig config = wl::mean_filter_step_launch(step, kernel, width, height);
    output.untyped().fill_bytes(0, 1, bytes);
    ConvStepResult row;
    row.step = step;
    row.title = s.title;
    row.registers = kernel.attributes().registers;
    row.blocks = static_cast<long long>(config.grid.x) * config.grid.y * config.grid.z;
    const int block_threads = int(config.block.x * config.block.y * config.block.z);
    row.threads_per_sm = kernel.max_active_blocks_per_multiprocessor(block_threads) * block_threads;
    kernel.launch(config, input, output, width, height);
    output.copy_to(result);
    row.correct = result == expected;
    row.ms = timer.median_ms(s.title, repeats,
                             [&] { kernel.launch(config, input, output, width, height); });
    row.gbps = gbps_of(row.ms);
    r.steps.push_back(row);
    // Before the L2 reset below: an evict-last step's instrumented launch
    // marks the input's lines again.
    if (warp_times)
      if (auto t = measure_warp_times(device, step, config, input, output, width, height))
        warp_rows.push_back(std::move(*t));
    if (s.keeps_input_in_l2()) {
      if (!evict_normal)
        evict_normal = compile(evict_normal_source, {}, device).kernel("l2_evict_normal");
      const long long lines = (byte_count + 127) / 128;
      evict_normal->launch(
          LaunchConfig{Dim3(static_cast<unsigned>((lines + 255) / 256)), Dim3(256)}, input,
          byte_count);
      device.synchronize();
    }
  }

  out << "3x3 mean filter, " << width << "x" << height << " RGB uint8 ("
      << fixed(double(bytes) / 1e6, 1) << " MB in, the same out) on " << device.describe()
      << "\nGB/s counts each input and output byte once; median of " << repeats
      << " event-timed launches"
      << (hold ? ", each queued behind a GPU hold (the GPU's time alone)"
               : (device.backend_kind() == BackendKind::cuda
                      ? ", each on an idle GPU (the window holds the launch's submission too)"
                      : ""))
      << "; shares are of the best ceiling\n";
  const ConvStepResult* naive = nullptr;
  for (const auto& s : r.steps)
    if (s.step == 0) naive = &s;
  Table table({"step", "ms", "GB/s", "of best ceiling", "x naive", "output", "regs", "threads/SM",
               "blocks"});
  for (const auto& c : r.ceilings)
    table.add({"(ceiling) " + c.title, fixed(c.ms, 4), fixed(c.gbps, 1),
               fixed(100.0 * c.gbps / r.best_ceiling_gbps, 0) + "%", "", ""});
  for (const auto& s : r.steps)
    table.add(
        {s.title + (s.step == wl::mean_filter_shipped_step() ? " [shipped]" : ""), fixed(s.ms, 4),
         fixed(s.gbps, 1), fixed(100.0 * s.gbps / r.best_ceiling_gbps, 0) + "%",
         naive ? fixed(naive->ms / s.ms, 2) + "x" : "", s.correct ? "exact" : "WRONG",
         std::to_string(s.registers), std::to_string(s.threads_per_sm), std::to_string(s.blocks)});
  table.print(out);
  const ConvStepResult* fastest = nullptr;
  for (const auto& s : r.steps)
    if (s.correct && (!fastest || s.ms < fastest->ms)) fastest = &s;
  for (const auto& s : r.steps)
    if (naive && s.step == wl::mean_filter_shipped_step())
      out << "shipped filter (" << s.title << "): " << fixed(naive->ms / s.ms, 2)
          << "x the tutorial's naive kernel (P8 target >= 5x), "
          << fixed(100.0 * s.gbps / r.best_ceiling_gbps, 0) << "% of the best ceiling\n";
  if (fastest && naive)
    out << "fastest correct step in this run: " << fastest->title << ", "
        << fixed(naive->ms / fastest->ms, 2) << "x naive, "
        << fixed(100.0 * fastest->gbps / r.best_ceiling_gbps, 0) << "% of the best ceiling\n";
  for (const std::string& what : timer.late)
    out << "note: " << what << ": the host took longer to submit it than the GPU hold ("
        << hold_gpu_ns / 1000 << " us), so its window holds host time too\n";
  if (warp_times) {
    if (warp_rows.empty())
      out << "\nwarp times: none of these steps is a strip kernel (5a onwards)\n";
    else
      print_warp_times(warp_rows, device.backend_kind() == BackendKind::cuda, out);
  }
  return r;
}

std::string conv_bench_svg(const ConvBenchResult& result, const std::string& device_name) {
  std::size_t longest_title = 20;
  for (const auto& s : result.steps) longest_title = std::max(longest_title, s.title.size());
  // About 7 px a character at font-size 13.
  const int bar_h = 34, gap = 12, left = 20 + 7 * static_cast<int>(longest_title), chart_w = 520,
            top = 50;
  const int rows = static_cast<int>(result.steps.size());
  const int height = top + rows * (bar_h + gap) + 60;
  double top_value = result.best_ceiling_gbps;
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
  const double cx = left + scale(result.best_ceiling_gbps);
  svg << "<line x1=\"" << cx << "\" y1=\"" << top - 8 << "\" x2=\"" << cx << "\" y2=\"" << y
      << "\" stroke=\"#e45756\" stroke-width=\"2\" stroke-dasharray=\"6,4\"/>\n"
      << "<text x=\"" << cx - 150 << "\" y=\"" << y + 20 << "\" fill=\"#e45756\">best copy ceiling "
      << fixed(result.best_ceiling_gbps, 0) << " GB/s</text>\n"
      << "</svg>\n";
  return svg.str();
}

}  // namespace cudakit::cli
