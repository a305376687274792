// `cudakit bench launch|compile|conv|all`: the overhead benchmarks of
// PERF.md (launch: P1; compile and cache: P3) and the 3x3 filter's steps
// against the copy ceilings (conv: P8), printed as tables.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/conv_bench.hpp"
#include "bench/launch_bench.hpp"
#include "commands/commands.hpp"
#include "cudakit/cudakit.hpp"

#ifdef CUDAKIT_CLI_HAS_COMPILE_BENCH
#include "compile_bench.hpp"
#endif

namespace cudakit::cli {
namespace {

int compile_bench() {
#ifdef CUDAKIT_CLI_HAS_COMPILE_BENCH
  return cudakit::run_compile_bench(std::cout);
#else
  // Not linked in: run the bench/ program built beside this binary.
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  auto program = self.parent_path() / "compile_bench";
  if (ec || access(program.c_str(), X_OK) != 0) {
    std::cout << "compile benchmark: not available (build the compile_bench target of bench/)\n";
    return 2;
  }
  int status = std::system(program.c_str());
  return status == 0 ? 0 : 1;
#endif
}

}  // namespace

int run_bench(const BenchOptions& options) {
  // A mistyped --steps is reported before any work starts.
  const std::vector<int> steps =
      options.what == "conv" ? select_conv_steps(options.steps) : std::vector<int>{};
  Device device = Device::current();
  if (device.backend_kind() != BackendKind::cuda)
    std::cout << "no GPU: benchmarking the CPU backend (figures say nothing about a GPU)\n";
  int status = 0;
  if (options.what == "launch" || options.what == "all")
    run_launch_bench(device, options.launches, options.repeats, std::cout);
  if (options.what == "conv") {
    // Full size on a GPU (P8); a smaller image keeps the CPU backend quick.
    const bool gpu = device.backend_kind() == BackendKind::cuda;
    ConvBenchResult result =
        run_conv_bench(device, gpu ? 3840 : 960, gpu ? 2160 : 540, options.repeats, steps,
                       options.timing == "idle" ? ConvTiming::idle : ConvTiming::queued, std::cout,
                       options.warp_times);
    if (!options.plot.empty()) {
      std::ofstream svg(options.plot);
      svg << conv_bench_svg(result, device.describe());
      if (!svg) {
        std::cerr << "cudakit bench: cannot write " << options.plot << '\n';
        return 1;
      }
      std::cout << "chart written to " << options.plot << '\n';
    }
    for (const auto& step : result.steps)
      if (!step.correct) status = 1;
  }
  if (options.what == "compile" || options.what == "all") {
    std::cout << "\n" << std::flush;
    status = compile_bench();
    // With `all`, a compile benchmark that is not built is not a failure.
    if (status == 2 && options.what == "all") status = 0;
  }
  return status;
}

}  // namespace cudakit::cli
