// add_builtin_headers: the built-in headers a compile's source includes.
#include "builtin_headers.hpp"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/include_lines.hpp"

namespace cudakit::detail {
namespace {
constexpr std::string_view kBuiltinNames[] = {"pycuda-complex.hpp", "pycuda-helpers.hpp",
                                              "cudakit-complex.hpp", "cudakit-helpers.hpp"};

// The CPU backend's own: the toolkit's cub, thrust, libcu++ and cuRAND
// device headers do not build for the host, so these portable versions
// stand in for them (cuRAND's by full name: a user's curand_*.h stays theirs).
constexpr std::string_view kCpuBuiltinPrefixes[] = {"cub/",
                                                    "thrust/",
                                                    "cuda/std/complex",
                                                    "cuda/std/functional",
                                                    "cuda/functional",
                                                    "cuComplex.h",
                                                    "curand.h",
                                                    "curand_kernel.h",
                                                    "curand_kernel_cpu_distributions.h",
                                                    "curand_kernel_cpu_sobol.h",
                                                    "curand_globals.h",
                                                    "curand_philox4x32_x.h",
                                                    "curand_mrg32k3a.h",
                                                    "curand_precalc.h",
                                                    "curand_uniform.h",
                                                    "curand_normal.h",
                                                    "curand_normal_static.h",
                                                    "curand_lognormal.h",
                                                    "curand_poisson.h",
                                                    "curand_discrete.h",
                                                    "curand_discrete2.h",
                                                    "curand_mtgp32.h",
                                                    "curand_mtgp32_host.h",
                                                    "curand_mtgp32_kernel.h",
                                                    "curand_mtgp32dc_p_11213.h"};

// The text of built-in header `name` for a compile on `kind`, or nullopt.
std::optional<std::string> builtin_for(std::string_view name, BackendKind kind) {
  if (std::find(std::begin(kBuiltinNames), std::end(kBuiltinNames), name) !=
      std::end(kBuiltinNames))
    return std::string(builtin_header_text(name));
  // thrust::complex as cuda::std::complex on every backend (the toolkit's
  // header does not compile with NVRTC).
  if (name == "thrust/complex.h") return std::string(cpu_builtin_header_text(name));
  if (kind != BackendKind::cpu) return std::nullopt;
  const bool cpu_name =
      std::any_of(std::begin(kCpuBuiltinPrefixes), std::end(kCpuBuiltinPrefixes),
                  [&](std::string_view prefix) { return name.starts_with(prefix); });
  if (!cpu_name) return std::nullopt;
  if (const std::string_view text = cpu_builtin_header_text(name); !text.empty())
    return std::string(text);
  const std::string_view why =
      name.starts_with("cub/device/") || name.starts_with("cub/agent/") ||
              name.starts_with("cub/dispatch/")
          ? "cub's device-wide algorithms launch kernels from the host, and the CPU backend "
            "runs device code only"
      : name.starts_with("thrust/")
          ? "thrust's algorithms and containers run from the host; of thrust the CPU backend "
            "provides <thrust/complex.h>"
      : name.starts_with("curand")
          ? "of cuRAND the CPU backend provides the device API of <curand_kernel.h> (the "
            "XORWOW, Philox4_32_10, MRG32k3a and Sobol states; not MTGP32 or the host API)"
          : "of cub the CPU backend provides <cub/cub.cuh>, <cub/block/block_reduce.cuh>, "
            "block_scan, block_load, block_store, block_radix_sort, <cub/warp/warp_reduce.cuh> "
            "and warp_scan";
  return "#error \"<" + std::string(name) +
         "> is not supported on the CPU backend: " + std::string(why) +
         "; run this kernel on a GPU\"\n";
}
}  // namespace

void add_builtin_headers(std::string_view source, CompileOptions& options, BackendKind kind) {
  // Texts still to look through: the source, the given headers, the files
  // they include from the include directories (a user's header may include
  // <pycuda-complex.hpp>), and each built-in header added
  // (pycuda-helpers.hpp includes pycuda-complex.hpp).
  std::vector<std::string_view> pending = {source};
  for (const auto& header : options.headers) pending.push_back(header.second);
  std::deque<std::string> file_texts;  // stable storage for the files read
  std::set<std::string> files_seen;
  std::vector<std::pair<std::string, std::string>> added;
  constexpr std::size_t kMaxFiles = 256;
  while (!pending.empty()) {
    const std::string_view text = pending.back();
    pending.pop_back();
    for (const IncludeLine& include : include_lines(text)) {
      const std::string name(include.name);
      const bool given = std::any_of(options.headers.begin(), options.headers.end(),
                                     [&](const auto& header) { return header.first == name; });
      if (given) continue;
      if (std::any_of(added.begin(), added.end(), [&](const auto& a) { return a.first == name; }))
        continue;
      if (auto builtin = builtin_for(name, kind)) {
        file_texts.push_back(std::move(*builtin));
        added.emplace_back(name, file_texts.back());
        pending.push_back(file_texts.back());
        continue;
      }
      if (options.include_dirs.empty() || files_seen.size() >= kMaxFiles) continue;
      for (const auto& dir : options.include_dirs) {
        const std::filesystem::path path = std::filesystem::path(dir) / name;
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec)) continue;
        if (!files_seen.insert(std::filesystem::weakly_canonical(path, ec).string()).second) break;
        std::ifstream in(path, std::ios::binary);
        file_texts.emplace_back(std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>());
        pending.push_back(file_texts.back());
        break;
      }
    }
  }
  for (auto& header : added) options.headers.push_back(std::move(header));
}

}  // namespace cudakit::detail
