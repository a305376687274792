// The PyCUDA tutorial's 3x3 mean filter over a random RGB image: interior
// pixels become the integer mean of their neighbourhood, borders are copied.
// Checked exactly against the same loop on the host.
#include <cstdint>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <random>
#include <vector>

#include "workloads/mean_filter.hpp"
#include "workloads/references.hpp"

namespace ck = cudakit;

int main() try {
  ck::Device device = ck::Device::current();
  std::printf("mean_filter_3x3 on %s\n", device.describe().c_str());

  ck::Module module = ck::compile(ck::workloads::mean_filter_source, {}, device);
  ck::Kernel filter = module.kernel("convolution_3x3");

  const int width = 333, height = 217;  // not multiples of the 16x16 block
  const std::size_t bytes = std::size_t(width) * height * ck::workloads::mean_filter_channels;
  std::mt19937 gen(std::random_device{}());
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<std::uint8_t> image(bytes), filtered(bytes), expected(bytes);
  for (auto& v : image) v = static_cast<std::uint8_t>(dist(gen));

  auto input = ck::to_device(image);
  ck::DeviceBuffer<std::uint8_t> output(device, bytes);
  filter.launch(ck::grid_for_2d(width, height, 16, 16), input, output, width, height);
  output.copy_to(filtered);

  ck::workloads::mean_filter_rows(image.data(), expected.data(), width, height, 0, height);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < bytes; ++i) wrong += filtered[i] != expected[i];
  std::printf("%dx%d RGB: %zu wrong bytes\n", width, height, wrong);
  return wrong == 0 ? 0 : 1;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
