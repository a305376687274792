// add_builtin_headers: the built-in headers a compile's source includes.
#include "builtin_headers.hpp"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

namespace cudakit::detail {
namespace {
constexpr std::string_view kBuiltinNames[] = {"pycuda-complex.hpp", "pycuda-helpers.hpp",
                                              "cudakit-complex.hpp", "cudakit-helpers.hpp"};
// The CPU backend's own: the CUDA toolkit's device headers it stands in for.
constexpr std::string_view kCpuBuiltinNames[] = {"curand_kernel.h",
                                                 "curand_kernel_cpu_distributions.h"};

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

// The built-in header's name as stored (outliving `name`), or empty.
std::string_view builtin_name(std::string_view name, BackendKind backend) {
  for (std::string_view known : kBuiltinNames)
    if (known == name) return known;
  if (backend == BackendKind::cpu)
    for (std::string_view known : kCpuBuiltinNames)
      if (known == name) return known;
  return {};
}
}  // namespace

void add_builtin_headers(std::string_view source, CompileOptions& options, BackendKind backend) {
  // Texts still to look through: the source, the given headers, the files
  // they include from the include directories (a user's header may include
  // <pycuda-complex.hpp>), and each built-in header added
  // (pycuda-helpers.hpp includes pycuda-complex.hpp).
  std::vector<std::string_view> pending = {source};
  for (const auto& header : options.headers) pending.push_back(header.second);
  std::deque<std::string> file_texts;  // stable storage for the files read
  std::set<std::string> files_seen;
  std::vector<std::string_view> added;
  constexpr std::size_t kMaxFiles = 256;
  while (!pending.empty()) {
    const std::string_view text = pending.back();
    pending.pop_back();
    for (const std::string& name : included_names(text)) {
      const bool given = std::any_of(options.headers.begin(), options.headers.end(),
                                     [&](const auto& header) { return header.first == name; });
      if (given) continue;
      if (const std::string_view known = builtin_name(name, backend); !known.empty()) {
        if (std::find(added.begin(), added.end(), name) != added.end()) continue;
        added.push_back(known);
        pending.push_back(builtin_header_text(known));
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
  for (std::string_view name : added)
    options.headers.emplace_back(std::string(name), std::string(builtin_header_text(name)));
}

}  // namespace cudakit::detail
