// Vector add the PyCUDA way: host vectors passed straight to the launch with
// In / Out (drv.In(a), drv.Out(c)); cudakit stages the copies. The kernel is
// the PyCUDA tutorial's vec_add, verbatim.
#include <cstdio>
#include <cudakit/cudakit.hpp>
#include <random>
#include <vector>

#include "workloads/vector_add.hpp"

namespace ck = cudakit;

int main() try {
  ck::Device device = ck::Device::current();
  std::printf("vector_add_in_out on %s\n", device.describe().c_str());

  ck::Module module = ck::compile(ck::workloads::pycuda_vec_add_source, {}, device);
  ck::Kernel vec_add = module.kernel("vec_add");

  // The tutorial's kernel has no bounds check: one thread per element, so n is
  // a whole number of 256-thread blocks (the tutorial uses 1024).
  const unsigned threads_per_block = 256;
  const std::size_t n = 1024 * 37;
  std::mt19937 gen(std::random_device{}());
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> a(n), b(n), c(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) a[i] = dist(gen), b[i] = dist(gen);

  ck::LaunchConfig config;
  config.block = ck::Dim3(threads_per_block);
  config.grid = ck::Dim3(unsigned((n + threads_per_block - 1) / threads_per_block));
  vec_add.launch(config, ck::In(a), ck::In(b), ck::Out(c));  // returns with c filled

  double max_error = 0;
  for (std::size_t i = 0; i < n; ++i)
    max_error = std::max(max_error, double(std::abs(c[i] - (a[i] + b[i]))));
  std::printf("max error: %g\n", max_error);
  return max_error == 0 ? 0 : 1;
} catch (const ck::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
