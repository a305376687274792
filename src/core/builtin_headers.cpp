// add_builtin_headers: the built-in headers a compile's source includes.
#include "builtin_headers.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace cudakit::detail {
namespace {
constexpr std::string_view kBuiltinNames[] = {"pycuda-complex.hpp", "pycuda-helpers.hpp",
                                              "cudakit-complex.hpp", "cudakit-helpers.hpp"};

// Whether `text` has an #include of `name` (<name> or "name").
bool includes(std::string_view text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string_view::npos;
       at = text.find(name, at + 1)) {
    if (at == 0 || at + name.size() >= text.size()) continue;
    const char open = text[at - 1], close = text[at + name.size()];
    if (!((open == '<' && close == '>') || (open == '"' && close == '"'))) continue;
    const std::size_t line_start = text.rfind('\n', at) + 1;  // npos + 1 == 0
    const std::string_view line = text.substr(line_start, at - line_start);
    const std::size_t hash = line.find_first_not_of(" \t");
    if (hash != std::string_view::npos && line[hash] == '#' &&
        line.find("include", hash) != std::string_view::npos)
      return true;
  }
  return false;
}
}  // namespace

void add_builtin_headers(std::string_view source, CompileOptions& options) {
  // Texts still to look through: the source, the given headers, then each
  // built-in header added (pycuda-helpers.hpp includes pycuda-complex.hpp).
  std::vector<std::string_view> pending = {source};
  for (const auto& header : options.headers) pending.push_back(header.second);
  std::vector<std::string_view> added;
  while (!pending.empty()) {
    const std::string_view text = pending.back();
    pending.pop_back();
    for (std::string_view name : kBuiltinNames) {
      if (!includes(text, name)) continue;
      const bool present = std::any_of(options.headers.begin(), options.headers.end(),
                                       [&](const auto& header) { return header.first == name; }) ||
                           std::find(added.begin(), added.end(), name) != added.end();
      if (present) continue;
      added.push_back(name);
      pending.push_back(builtin_header_text(name));
    }
  }
  for (std::string_view name : added)
    options.headers.emplace_back(std::string(name), std::string(builtin_header_text(name)));
}

}  // namespace cudakit::detail
