// Where the CUDA toolkit's static libraries (libcudadevrt.a) are looked for:
// the toolkit's library directories of the one search plan
// (platform/library_search: CUDA_PATH, CUDA_HOME, CUDA_ROOT, the nvcc on PATH,
// the standard install), the distribution's library directory and
// LD_LIBRARY_PATH. Only the file system is read.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cudakit/error.hpp"
#include "cudakit/linker.hpp"
#include "platform/library_search.hpp"

namespace cudakit {
namespace fs = std::filesystem;
namespace {

#if defined(__aarch64__)
constexpr const char* kDistributionDir = "/usr/lib/aarch64-linux-gnu";
#else
constexpr const char* kDistributionDir = "/usr/lib/x86_64-linux-gnu";
#endif

}  // namespace

std::vector<fs::path> cuda_library_directories() {
  // The toolkit's directories of the one search plan (platform/library_search).
  std::vector<fs::path> dirs;
  for (const std::string& dir : detail::cuda_toolkit_library_directories()) dirs.emplace_back(dir);
  dirs.emplace_back(kDistributionDir);
  if (const char* value = std::getenv("LD_LIBRARY_PATH"); value && *value) {
    std::string_view rest(value);
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      if (colon != 0) dirs.emplace_back(std::string(rest.substr(0, colon)));
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
  }
  // Each directory once, in first-seen order.
  std::vector<fs::path> unique;
  for (auto& dir : dirs) {
    bool seen = false;
    for (const auto& kept : unique) seen = seen || kept == dir;
    if (!seen) unique.push_back(std::move(dir));
  }
  return unique;
}

fs::path find_cuda_library(std::string_view name, const std::vector<fs::path>& first) {
  const std::string file = "lib" + std::string(name) + ".a";
  if (name.empty() || name.find('/') != std::string_view::npos)
    throw ArgumentError("finding a CUDA library",
                        "'" + std::string(name) + "' is not a library name",
                        "name the library without 'lib' and '.a', e.g. \"cudadevrt\"");
  const std::vector<fs::path> dirs = first.empty() ? cuda_library_directories() : first;
  std::vector<std::string> tried;
  for (const auto& dir : dirs) {
    const fs::path candidate = dir / file;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
    tried.push_back(candidate.string() + " (not found)");
  }
  const std::string hint =
      first.empty()
          ? file +
                " comes with the CUDA toolkit (apt: cuda-cudart-dev-13-0 or the toolkit "
                "installer; pip: nvidia-cuda-runtime): set CUDA_PATH to the toolkit's "
                "directory, or name the directory that holds it (cuda_libdir=)"
          : "the directory given (cuda_libdir=) has no " + file +
                ": point it at the CUDA toolkit's library directory, or leave it unset to "
                "search the usual places";
  throw LibraryNotFound(file, tried, hint);
}

}  // namespace cudakit
