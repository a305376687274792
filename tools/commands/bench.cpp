// `cudakit bench launch|compile|all`: the overhead benchmarks of PERF.md
// (launch: P1; compile and cache: P3), printed as tables.
#include <iostream>

#include "bench/launch_bench.hpp"
#include "commands/commands.hpp"
#include "cudakit/cudakit.hpp"

#if __has_include("compile_bench.hpp")
#include "compile_bench.hpp"
#define CUDAKIT_CLI_HAS_COMPILE_BENCH 1
#endif

namespace cudakit::cli {

int run_bench(const BenchOptions& options) {
  Device device = Device::current();
  if (device.backend_kind() != BackendKind::cuda)
    std::cout << "no GPU: benchmarking the CPU backend (figures say nothing about a GPU)\n";
  int status = 0;
  if (options.what == "launch" || options.what == "all") {
    run_launch_bench(device, options.launches, options.repeats, std::cout);
  }
  if (options.what == "compile" || options.what == "all") {
    std::cout << "\n";
#ifdef CUDAKIT_CLI_HAS_COMPILE_BENCH
    status = run_compile_bench(std::cout);
#else
    std::cout << "compile benchmark: not built into this binary (bench/compile_bench.hpp is missing)\n";
    if (options.what == "compile") status = 2;
#endif
  }
  return status;
}

}  // namespace cudakit::cli
