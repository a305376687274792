// The 3x3 mean filter at each step of the tutorial's optimisation checklist
// (naive; shared-memory tile with halo; constant-memory weights; 16-byte
// loads with several pixels per thread; column strips walked down many rows
// with packed-byte arithmetic, in several variants), each checked byte for
// byte against the CPU reference on random images whose sizes are not
// multiples of any block, including rows that are a multiple of 16 bytes
// (the vector path) and rows that are not. `cudakit bench conv` times the
// same kernels. Pass a step label ("5b") to check only that step.
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

int main(int argc, char** argv) try {
  ck::Device device = ck::Device::current();
  std::printf("mean_filter_steps on %s\n", device.describe().c_str());
  std::mt19937 gen(std::random_device{}());
  std::uniform_int_distribution<int> dist(0, 255);
  // 256x67 and 1024x70: rows of 768 and 3072 bytes (multiples of 16, the
  // vector path; 3072 bytes is 6 warps of strips); 1001x37 and 333x217: rows
  // of 3003 and 999 bytes (the byte-wise path); the small ones: borders only.
  const std::pair<int, int> sizes[] = {{333, 217}, {256, 67}, {1001, 37}, {1024, 70},
                                       {3, 3},     {1, 5},    {37, 1},    {16, 2}};
  const std::string only = argc > 1 ? argv[1] : "";
  int failures = 0;
  const auto& steps = wl::mean_filter_steps();
  for (int step = 0; step < static_cast<int>(steps.size()); ++step) {
    const wl::MeanFilterStep& s = steps[std::size_t(step)];
    if (!only.empty() && s.title.rfind(only + " ", 0) != 0) continue;
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
      std::printf("%-44s %4dx%-4d %zu wrong bytes\n", s.title.c_str(), width, height, wrong);
      failures += wrong != 0;
    }
  }
  return failures == 0 ? 0 : 1;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
