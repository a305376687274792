#include "support/include_lines.hpp"

#include <algorithm>
#include <iterator>

namespace cudakit::detail {

std::vector<IncludeLine> include_lines(std::string_view text) {
  std::vector<IncludeLine> found;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string_view::npos || line[hash] != '#') continue;
    const std::size_t word = line.find_first_not_of(" \t", hash + 1);
    if (word == std::string_view::npos || line.substr(word, 7) != "include") continue;
    const std::size_t open = line.find_first_not_of(" \t", word + 7);
    if (open == std::string_view::npos || (line[open] != '<' && line[open] != '"')) continue;
    const bool angled = line[open] == '<';
    const std::size_t close = line.find(angled ? '>' : '"', open + 1);
    if (close == std::string_view::npos) continue;
    found.push_back({line.substr(open + 1, close - open - 1), angled});
  }
  return found;
}

bool is_standard_cxx_header(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "algorithm", "array",   "atomic", "cmath",       "complex", "functional", "ios",     "iosfwd",
      "iostream",  "istream", "limits", "memory",      "new",     "numeric",    "ostream", "random",
      "sstream",   "string",  "tuple",  "type_traits", "utility", "vector"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

}  // namespace cudakit::detail
