// The 3x3 mean filter at each step of the tutorial's optimisation checklist
// (naive; shared-memory tile with halo; constant-memory weights; 16-byte
// loads with several pixels per thread), each checked byte for byte against
// the CPU reference on random images whose sizes are not multiples of any
// block, and one whose rows are a multiple of 16 bytes (the vector path).
// `cudakit bench conv` times the same kernels.
#include "workloads/mean_filter_steps.hpp"

#include <cstdint>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <random>
#include <utility>
#include <vector>

#include "workloads/references.hpp"

namespace ck = cudakit;
namespace wl = cudakit::workloads;

int main() try {
  ck::Device device = ck::Device::current();
  std::printf("mean_filter_steps on %s\n", device.describe().c_str());
  std::mt19937 gen(std::random_device{}());
  std::uniform_int_distribution<int> dist(0, 255);
  const std::pair<int, int> sizes[] = {{333, 217}, {256, 67}, {3, 3}, {1, 5}, {37, 1}};
  int failures = 0;
  for (int step = 0; step < wl::mean_filter_step_count; ++step) {
    const wl::MeanFilterStep& s = wl::mean_filter_steps[step];
    ck::Kernel kernel = ck::compile(s.source, {}, device).kernel(s.kernel);
    for (auto [width, height] : sizes) {
      const std::size_t bytes = std::size_t(width) * height * wl::mean_filter_channels;
      std::vector<std::uint8_t> image(bytes), filtered(bytes), expected(bytes);
      for (auto& v : image) v = static_cast<std::uint8_t>(dist(gen));
      auto input = ck::to_device(image);
      ck::DeviceBuffer<std::uint8_t> output(device, bytes);
      kernel.launch(wl::mean_filter_step_launch(step, width, height), input, output, width, height);
      output.copy_to(filtered);
      wl::mean_filter_rows(image.data(), expected.data(), width, height, 0, height);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < bytes; ++i) wrong += filtered[i] != expected[i];
      std::printf("%-34s %4dx%-4d %zu wrong bytes\n", s.title, width, height, wrong);
      failures += wrong != 0;
    }
  }
  return failures == 0 ? 0 : 1;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
