// `cudakit check [--tool T] -- CMD...`: runs the program under NVIDIA's
// compute-sanitizer with line information forced on for every kernel
// cudakit compiles (CUDAKIT_LINEINFO=1) and exact-sized memory-pool blocks
// (CUDAKIT_EXACT_ALLOCATIONS=1), echoes its output, and ends with
// one line per problem, kernel and source line.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "debug/debug_commands.hpp"
#include "debug/program_search.hpp"
#include "debug/sanitizer_report.hpp"

namespace cudakit::cli {
namespace {

// Where compute-sanitizer is looked for, in order; `tried` collects them.
std::string find_compute_sanitizer(std::vector<std::string>& tried) {
  if (const char* named = std::getenv("CUDAKIT_COMPUTE_SANITIZER"); named && *named) {
    tried.push_back(std::string(named) + " (CUDAKIT_COMPUTE_SANITIZER)");
    return is_executable(named) ? std::string(named) : std::string();
  }
  tried.emplace_back("PATH");
  if (std::string found = find_in_path("compute-sanitizer"); !found.empty()) return found;
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) roots.emplace_back(v);
  roots.emplace_back("/usr/local/cuda");
  // CUDA_HOME is often /usr/local/cuda itself: each place once.
  std::vector<std::string> unique_roots;
  for (const auto& root : roots)
    if (std::find(unique_roots.begin(), unique_roots.end(), root) == unique_roots.end())
      unique_roots.push_back(root);
  for (const auto& root : unique_roots)
    for (const char* sub : {"/bin/compute-sanitizer", "/compute-sanitizer/compute-sanitizer"}) {
      tried.push_back(root + sub);
      if (is_executable(root + sub)) return root + sub;
    }
  return {};
}

void explain_missing(const std::vector<std::string>& tried) {
  std::cerr << "cudakit check: compute-sanitizer was not found (looked in: ";
  for (std::size_t i = 0; i < tried.size(); ++i) std::cerr << (i ? ", " : "") << tried[i];
  std::cerr << ")\n"
               "  it ships with the CUDA Toolkit: https://developer.nvidia.com/cuda-downloads\n"
               "  (Debian/Ubuntu with NVIDIA's repository: apt-get install cuda-sanitizer-13-0),\n"
               "  then put its bin/ on PATH or name the program with CUDAKIT_COMPUTE_SANITIZER.\n"
               "  Without a GPU, check kernels on the CPU backend instead: cudakit run --sanitize "
               "-- CMD...\n";
}

}  // namespace

int run_check(const CheckOptions& options) {
  if (options.command.empty()) {
    std::cerr << "cudakit check: no program given; e.g. cudakit check -- ./my_program\n";
    return 2;
  }
  std::vector<std::string> tried;
  const std::string sanitizer = find_compute_sanitizer(tried);
  if (sanitizer.empty()) {
    explain_missing(tried);
    return 3;
  }
  ::setenv("CUDAKIT_LINEINFO", "1", 1);
  // Pool blocks of exactly the requested size: memcheck then reports a write
  // one element past a 100-float array, which a 512-byte block would hide.
  ::setenv("CUDAKIT_EXACT_ALLOCATIONS", "1", 1);
  std::vector<std::string> argv = {sanitizer, "--tool", options.tool};
  argv.insert(argv.end(), options.command.begin(), options.command.end());

  int fds[2];
  if (::pipe(fds) != 0) {
    std::cerr << "cudakit check: cannot create a pipe: " << std::strerror(errno) << '\n';
    return 1;
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::cerr << "cudakit check: cannot start a process: " << std::strerror(errno) << '\n';
    return 1;
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::close(fds[1]);
    _exit(exec_command(argv, "check"));
  }
  ::close(fds[1]);
  SanitizerReport report;
  std::string pending;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::fwrite(buf, 1, static_cast<std::size_t>(n), stdout);
    pending.append(buf, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
      report.add_line(std::string_view(pending).substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  if (!pending.empty()) report.add_line(pending);
  ::close(fds[0]);
  report.finish();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::fflush(stdout);
  std::cout << '\n' << report.summary(options.tool);
  if (report.total() > 0) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace cudakit::cli
