// The 3x3 mean filter at each step of the tutorial's optimisation checklist
// (naive; shared-memory tile with halo; constant-memory weights; 16-byte
// loads with several pixels per thread; column strips walked down many rows
// with packed-byte arithmetic, in several variants), each checked byte for
// byte against the CPU reference on random images whose sizes are not
// multiples of any block, including rows that are a multiple of 16 bytes
// (the vector path) and rows that are not. `cudakit bench conv` times the
// same kernels.
#include "workloads/mean_filter_steps.hpp"

#include <cstdint>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "workloads/references.hpp"

namespace ck = cudakit;
namespace wl = cudakit::workloads;

// Runs `kernel` with `config` on a fresh random width x height image and
// returns the number of bytes that differ from the CPU reference.
std::size_t wrong_bytes(const ck::Kernel& kernel, const ck::LaunchConfig& config, int width,
                        int height, std::mt19937& gen) {
  const std::size_t bytes = std::size_t(width) * height * wl::mean_filter_channels;
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<std::uint8_t> image(bytes), filtered(bytes), expected(bytes);
  for (auto& v : image) v = static_cast<std::uint8_t>(dist(gen));
  auto input = ck::to_device(image);
  ck::DeviceBuffer<std::uint8_t> output(kernel.device(), bytes);
  kernel.launch(config, input, output, width, height);
  output.copy_to(filtered);
  wl::parallel_for(std::size_t(height), [&](std::size_t lo, std::size_t hi) {
    wl::mean_filter_rows(image.data(), expected.data(), width, height, lo, hi);
  });
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < bytes; ++i) wrong += filtered[i] != expected[i];
  return wrong;
}

// Step 5 divides two packed 9-sums by 9 with multiplications (mean_of_nine);
// every pair of sums 0..2295 is checked here, on the device. Returns the
// number of wrong quotients.
long long wrong_packed_divisions(const ck::Device& device) {
  const std::string source = wl::mean_filter_strips_source({}) + R"(
__global__ void check_mean_of_nine(unsigned long long* wrong) {
  const unsigned a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a > 2295) return;
  unsigned long long bad = 0;
  for (unsigned b = 0; b <= 2295; ++b) {
    const unsigned q = mean_of_nine(a | (b << 16), b | (a << 16));
    bad += (q & 0xffu) != a / 9 || ((q >> 8) & 0xffu) != b / 9 ||
           ((q >> 16) & 0xffu) != b / 9 || (q >> 24) != a / 9;
  }
  atomicAdd(wrong, bad);
})";
  ck::Kernel kernel = ck::compile(source, {}, device).kernel("check_mean_of_nine");
  ck::DeviceBuffer<unsigned long long> wrong(device, 1);
  wrong.zero();
  kernel.launch(ck::LaunchConfig{ck::Dim3(2296 / 128 + 1), ck::Dim3(128)}, wrong);
  std::vector<unsigned long long> host(1);
  wrong.copy_to(host);
  return static_cast<long long>(host[0]);
}

// Usage: example_mean_filter_steps [LABEL [WIDTHxHEIGHT]]: only the steps
// whose title starts with LABEL ("5" for every 5x variant), and one more
// image size (e.g. 3840x2160).
int main(int argc, char** argv) try {
  ck::Device device = ck::Device::current();
  std::printf("mean_filter_steps on %s\n", device.describe().c_str());
  std::mt19937 gen(std::random_device{}());
  // 256x67, 1280x37 and 1024x70: rows of 768, 3840 and 3072 bytes (multiples
  // of 16: the vector path; 48 and 240 strips a row put a warp's lanes in two
  // row groups); 1001x37 and 333x217: rows of 3003 and 999 bytes (the
  // byte-wise path); the small ones: borders only.
  std::vector<std::pair<int, int>> sizes = {
      {333, 217}, {256, 67}, {1001, 37}, {1280, 37}, {1024, 70}, {3, 3}, {1, 5}, {37, 1}, {16, 2}};
  // The benchmark's full-size image too where it is cheap (on a GPU); on
  // the CPU backend pass 3840x2160 to check it (about a minute).
  if (device.backend_kind() == ck::BackendKind::cuda) sizes.emplace_back(3840, 2160);
  const std::string only = argc > 1 ? argv[1] : "";
  int extra_width = 0, extra_height = 0;
  if (argc > 2 && std::sscanf(argv[2], "%dx%d", &extra_width, &extra_height) == 2 &&
      extra_width > 0 && extra_height > 0)
    sizes.emplace_back(extra_width, extra_height);
  const long long wrong_quotients = wrong_packed_divisions(device);
  std::printf("packed division by 9, every pair of sums 0..2295: %lld wrong\n", wrong_quotients);
  int failures = wrong_quotients != 0;
  const auto& steps = wl::mean_filter_steps();
  std::printf("shipped (cudakit demo): %s\n",
              steps[std::size_t(wl::mean_filter_shipped_step())].title.c_str());
  for (int step = 0; step < static_cast<int>(steps.size()); ++step) {
    const wl::MeanFilterStep& s = steps[std::size_t(step)];
    if (!only.empty() && s.title.rfind(only, 0) != 0) continue;  // "5": every 5x variant
    ck::Kernel kernel = ck::compile(s.source, {}, device).kernel(s.kernel);
    for (auto [width, height] : sizes) {
      const std::size_t wrong = wrong_bytes(
          kernel, wl::mean_filter_step_launch(step, kernel, width, height), width, height, gen);
      std::printf("%-78s %4dx%-4d %zu wrong bytes\n", s.title.c_str(), width, height, wrong);
      failures += wrong != 0;
      // A resident-grid or band kernel loops over its work, so it is correct
      // with any grid: also 1 and 7 blocks.
      if (s.any_grid())
        for (unsigned blocks : {1u, 7u}) {
          ck::LaunchConfig config = wl::mean_filter_step_launch(step, kernel, width, height);
          config.grid = ck::Dim3(blocks);
          const std::size_t off_grid = wrong_bytes(kernel, config, width, height, gen);
          std::printf("%-78s %4dx%-4d %zu wrong bytes (%u blocks)\n", s.title.c_str(), width,
                      height, off_grid, blocks);
          failures += off_grid != 0;
        }
    }
  }
  return failures == 0 ? 0 : 1;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
