// Launch overhead (PERF.md P1): an empty 2-argument kernel launched through
// Kernel::launch and through the raw driver entry point, same kernel, same
// stream, same run. Usage: launch_bench [launches] [repeats]
#include "bench/launch_bench.hpp"

#include <cstdio>
#include <cstdlib>
#include <cudakit/cudakit.hpp>
#include <iostream>

int main(int argc, char** argv) try {
  int launches = argc > 1 ? std::atoi(argv[1]) : 0;
  int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  cudakit::Device device = cudakit::Device::current();
  if (device.backend_kind() != cudakit::BackendKind::cuda)
    std::cout << "no GPU: measuring the CPU backend's launch path\n";
  cudakit::cli::run_launch_bench(device, launches, repeats, std::cout);
  return 0;
} catch (const cudakit::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
