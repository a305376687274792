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

namespace cudakit::detail {
namespace {
constexpr std::string_view kBuiltinNames[] = {"pycuda-complex.hpp", "pycuda-helpers.hpp",
                                              "cudakit-complex.hpp", "cudakit-helpers.hpp"};

// The names `text` #includes (<name> or "name"), in order.
std::vector<std::string> included_names(std::string_view text) {
  std::vector<std::string> names;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string_view::npos || line[hash] != '#') continue;
    const std::size_t word = line.find_first_not_of(" \t", hash + 1);
    if (word == std::string_view::npos || line.substr(word, 7) != "include") continue;
    const std::size_t open = line.find_first_of("\"<", word + 7);
    if (open == std::string_view::npos) continue;
    const std::size_t close = line.find(line[open] == '"' ? '"' : '>', open + 1);
    if (close == std::string_view::npos) continue;
    names.emplace_back(line.substr(open + 1, close - open - 1));
  }
  return names;
}

// The CPU backend's own: the toolkit's cub, thrust and libcu++ do not build
// for the host, so these portable versions stand in for them.
constexpr std::string_view kCpuBuiltinPrefixes[] = {
    "cub/", "thrust/", "cuda/std/complex", "cuda/std/functional", "cuda/functional", "cuComplex.h"};

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
    for (const std::string& name : included_names(text)) {
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
