// Vector add with explicit device buffers: allocate, copy in, launch, copy
// back, check. The kernel is the Numba tutorial's add_kernel in CUDA C.
#include <cmath>
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <random>
#include <vector>

#include "workloads/vector_add.hpp"

namespace ck = cudakit;

int main() try {
  ck::Device device = ck::Device::current();  // the GPU, or the CPU backend without one
  std::printf("vector_add_buffers on %s\n", device.describe().c_str());

  ck::Module module = ck::compile(ck::workloads::numba_add_kernel_source, {}, device);
  ck::Kernel add = module.kernel("add_kernel");

  const std::size_t n = 1'000'003;  // not a multiple of the block: the bounds check matters
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = dist(gen), b[i] = dist(gen);

  ck::DeviceBuffer<float> da = ck::to_device(a);
  ck::DeviceBuffer<float> db = ck::to_device(b);
  ck::DeviceBuffer<float> dc(device, n);
  // Checked against add_kernel(const float*, const float*, float*, int).
  add.launch(ck::grid_for(n, 256), da, db, dc, static_cast<int>(n));
  std::vector<float> c = dc.to_host();

  for (std::size_t i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) {
      std::printf("wrong result at %zu: %f != %f\n", i, double(c[i]), double(a[i] + b[i]));
      return 1;
    }
  std::printf("ok: %zu elements\n", n);
  return 0;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
