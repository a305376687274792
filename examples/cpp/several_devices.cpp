// Vector add split over every device, each part computed with its device
// current (the Numba tutorial's several-GPUs program in C++). With one GPU it
// runs on that one; without several GPUs, CUDAKIT_BACKEND=cpu
// CUDAKIT_CPU_DEVICES=2 runs it on two virtual CPU devices.
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <random>
#include <span>
#include <vector>

#include "workloads/vector_add.hpp"

namespace ck = cudakit;

int main() try {
  const int devices = ck::Device::count();
  std::printf("Number of devices: %d\n", devices);

  const std::size_t n = 1'000'003;  // not a multiple of the block, nor of the device count
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = dist(gen), b[i] = dist(gen);

  for (int d = 0; d < devices; ++d) {
    const std::size_t lo = n * static_cast<std::size_t>(d) / static_cast<std::size_t>(devices);
    const std::size_t hi = n * static_cast<std::size_t>(d + 1) / static_cast<std::size_t>(devices);
    const std::size_t count = hi - lo;
    ck::DeviceScope scope(ck::Device::get(d));  // buffers, module and launch on device d
    ck::Module module = ck::compile(ck::workloads::numba_add_kernel_source);
    ck::DeviceBuffer<float> da = ck::to_device(std::span<const float>(a).subspan(lo, count));
    ck::DeviceBuffer<float> db = ck::to_device(std::span<const float>(b).subspan(lo, count));
    ck::DeviceBuffer<float> dc(count);
    module.kernel("add_kernel")
        .launch(ck::grid_for(count, 256), da, db, dc, static_cast<int>(count));
    dc.copy_to(std::span<float>(c).subspan(lo, count));
    const ck::Device current = ck::Device::current();
    std::printf("device %d (%s): %zu elements\n", current.ordinal(), current.name().c_str(), count);
  }

  for (std::size_t i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) {
      std::printf("wrong result at %zu: %f != %f\n", i, double(c[i]), double(a[i] + b[i]));
      return 1;
    }
  std::printf("ok: %zu elements on %d device(s)\n", n, devices);
  return 0;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
