#include "ptx_resources.hpp"

#include <map>
#include <regex>
#include <string>

namespace cudakit::cli {
namespace {

std::size_t type_bytes(const std::string& type) {
  // .b8 .u16 .f32 .s64 ...: the width is in the name.
  std::size_t bits = 0;
  for (char c : type)
    if (c >= '0' && c <= '9') bits = bits * 10 + std::size_t(c - '0');
  if (type == "pred" || bits == 0) return 1;
  return bits / 8;
}

// Bytes of a declaration's array part: "[16][16]" -> 256 elements; none -> 1.
std::size_t element_count(const std::string& dims) {
  std::size_t count = 1;
  static const std::regex dim(R"(\[(\d*)\])");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), dim); it != std::sregex_iterator();
       ++it) {
    std::string n = (*it)[1];
    count *= n.empty() ? 0 : std::stoull(n);
  }
  return count;
}

struct Variable {
  std::size_t bytes = 0;
  bool dynamic = false;
};

// Finds the body of each entry: from its '{' to the matching '}'.
std::size_t matching_brace(std::string_view text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{')
      ++depth;
    else if (text[i] == '}' && --depth == 0)
      return i;
  }
  return text.size();
}

}  // namespace

std::vector<PtxKernelResources> parse_ptx_resources(std::string_view ptx_view) {
  const std::string ptx(ptx_view);
  static const std::regex entry_re(R"(\.entry\s+([A-Za-z_$][\w$]*)\s*\()");
  static const std::regex reg_re(R"(\.reg\s+\.(\w+)\s+%\w+<(\d+)>)");
  static const std::regex reg_single_re(R"(\.reg\s+\.(\w+)\s+%\w+\s*;)");
  static const std::regex space_re(
      R"((\.extern\s+)?\.(shared|local)\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+([A-Za-z_$][\w$]*)((?:\[\d*\])*)\s*;)");
  static const std::regex param_re(
      R"(\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(?:\.ptr\s+\S+\s+)?[A-Za-z_$][\w$]*((?:\[\d*\])*))");

  // Module-scope shared variables (static __shared__ arrays are "demoted" to
  // module scope by the compiler); entries are attributed those they name.
  std::vector<std::pair<std::size_t, std::size_t>> bodies;   // [open, close] of each entry body
  std::vector<std::pair<std::string, std::size_t>> entries;  // name, position of '('
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), entry_re);
       it != std::sregex_iterator(); ++it) {
    std::size_t paren = std::size_t(it->position(0) + it->length(0) - 1);
    std::size_t open = ptx.find('{', paren);
    if (open == std::string::npos) continue;
    entries.emplace_back((*it)[1], paren);
    bodies.emplace_back(open, matching_brace(ptx, open));
  }
  auto inside_entry = [&](std::size_t pos) {
    for (auto [open, close] : bodies)
      if (pos > open && pos < close) return true;
    return false;
  };
  std::map<std::string, Variable> module_shared;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), space_re);
       it != std::sregex_iterator(); ++it) {
    if ((*it)[2] != "shared" || inside_entry(std::size_t(it->position(0)))) continue;
    Variable v;
    v.dynamic = (*it)[1].matched;
    v.bytes = v.dynamic ? 0 : type_bytes((*it)[3]) * element_count((*it)[5]);
    module_shared[(*it)[4]] = v;
  }

  std::vector<PtxKernelResources> out;
  for (std::size_t k = 0; k < entries.size(); ++k) {
    PtxKernelResources r;
    r.name = entries[k].first;
    std::size_t paren = entries[k].second;
    auto [open, close] = bodies[k];
    std::string params = ptx.substr(paren, open - paren);
    for (auto it = std::sregex_iterator(params.begin(), params.end(), param_re);
         it != std::sregex_iterator(); ++it)
      r.param_bytes += type_bytes((*it)[1]) * element_count((*it)[2]);
    std::string body = ptx.substr(open, close - open);
    for (auto it = std::sregex_iterator(body.begin(), body.end(), reg_re);
         it != std::sregex_iterator(); ++it) {
      std::size_t n = std::stoull((*it)[2]);
      if ((*it)[1] == "pred")
        r.predicate_registers += n;
      else
        r.virtual_registers += n;
    }
    for (auto it = std::sregex_iterator(body.begin(), body.end(), reg_single_re);
         it != std::sregex_iterator(); ++it) {
      if ((*it)[1] == "pred")
        ++r.predicate_registers;
      else
        ++r.virtual_registers;
    }
    for (auto it = std::sregex_iterator(body.begin(), body.end(), space_re);
         it != std::sregex_iterator(); ++it) {
      std::size_t bytes = type_bytes((*it)[3]) * element_count((*it)[5]);
      if ((*it)[2] == "local")
        r.local_bytes += bytes;
      else if ((*it)[1].matched)
        r.uses_dynamic_shared = true;
      else
        r.shared_bytes += bytes;
    }
    for (const auto& [name, v] : module_shared) {
      static const std::regex word_char(R"([\w$])");
      std::size_t pos = body.find(name);
      while (pos != std::string::npos) {
        bool starts = pos == 0 || !std::regex_match(std::string(1, body[pos - 1]), word_char);
        bool ends = pos + name.size() >= body.size() ||
                    !std::regex_match(std::string(1, body[pos + name.size()]), word_char);
        if (starts && ends) break;
        pos = body.find(name, pos + 1);
      }
      if (pos == std::string::npos) continue;
      if (v.dynamic)
        r.uses_dynamic_shared = true;
      else
        r.shared_bytes += v.bytes;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cudakit::cli
