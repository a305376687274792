// `cudakit run --sanitize -- CMD...`: the program runs on the CPU backend
// with kernels built under AddressSanitizer and UBSan (CUDAKIT_CPU_DEBUG=1),
// the sanitizer runtime preloaded (it must come before every other library,
// which only LD_PRELOAD achieves for an uninstrumented program or Python)
// and options that suit a host program that is not itself instrumented.
#include <cstdlib>
#include <iostream>
#include <string>

#include "debug/debug_commands.hpp"
#include "debug/program_search.hpp"

namespace cudakit::cli {
namespace {

// Our defaults first: the sanitizers read options left to right, so a
// user's own ASAN_OPTIONS still win.
void prepend_options(const char* variable, const std::string& defaults) {
  const char* existing = std::getenv(variable);
  std::string value = defaults;
  if (existing && *existing) value += ":" + std::string(existing);
  ::setenv(variable, value.c_str(), 1);
}

}  // namespace

int run_run(const RunOptions& options) {
  if (options.command.empty()) {
    std::cerr << "cudakit run: no program given; e.g. cudakit run --sanitize -- ./my_program\n";
    return 2;
  }
  if (options.sanitize) {
    const std::string runtime = asan_runtime();
    if (runtime.empty()) {
      std::cerr << "cudakit run: the host compiler has no AddressSanitizer runtime "
                   "(c++ -print-file-name=libasan.so finds none)\n"
                   "  install it (Debian/Ubuntu: apt-get install libasan8, or the gcc "
                   "package of your compiler), or name another compiler with CUDAKIT_CXX\n";
      return 2;
    }
    std::string preload = runtime;
    if (const std::string cxx = cxx_runtime(); !cxx.empty()) preload += ":" + cxx;
    if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
      preload += ":" + std::string(existing);
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    ::setenv("CUDAKIT_CPU_DEBUG", "1", 1);
    // The sanitizers see only the CPU backend's kernels; a GPU is checked
    // with `cudakit check`.
    const char* backend = std::getenv("CUDAKIT_BACKEND");
    if (!backend || !*backend) ::setenv("CUDAKIT_BACKEND", "cpu", 1);
    // detect_leaks=0: the host program (or the Python interpreter) is not
    // instrumented, so its own allocations would look leaked.
    // protect_shadow_gap=0: the CUDA driver, if the program loads it (a GPU
    // machine, `cudakit info`), maps memory in the range ASan protects and
    // then fails to initialise. The UBSan report names the line too.
    prepend_options("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0:protect_shadow_gap=0");
    prepend_options("UBSAN_OPTIONS", "print_stacktrace=1");
    std::cerr << "cudakit run: CUDAKIT_BACKEND=" << std::getenv("CUDAKIT_BACKEND")
              << " CUDAKIT_CPU_DEBUG=1 LD_PRELOAD=" << preload << '\n';
  }
  return exec_command(options.command, "run");
}

}  // namespace cudakit::cli
