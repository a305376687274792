#include "kernel_signature_scanner.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>

#include "support/c_types.hpp"

namespace cudakit::detail {
namespace {

bool is_ident(std::string_view t) { return is_c_identifier(t); }
bool is_qualifier(std::string_view t) { return is_c_qualifier(t); }
std::vector<std::string_view> tokenize(std::string_view s) { return tokenize_c(s); }

bool is_open(std::string_view t) { return t == "(" || t == "[" || t == "{" || t == "<"; }
bool is_close(std::string_view t) { return t == ")" || t == "]" || t == "}" || t == ">"; }

// Index of the token closing the bracket opened at `open` (or tokens.size()).
std::size_t matching(const std::vector<std::string_view>& t, std::size_t open) {
  std::string_view o = t[open];
  std::string_view c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : ">";
  int depth = 0;
  for (std::size_t i = open; i < t.size(); ++i) {
    if (t[i] == o)
      ++depth;
    else if (t[i] == c && --depth == 0)
      return i;
    else if (o == "<" && (t[i] == ";" || t[i] == "{"))
      break;  // a comparison, not a template
  }
  return t.size();
}

std::string join_tokens(const std::vector<std::string_view>& toks) {
  std::string out;
  std::string_view prev;
  for (auto t : toks) {
    bool glue = out.empty() || t == "::" || prev == "::" || t == ">" || t == "," || prev == "<" ||
                t == "<" || t == "]" || prev == "[";
    if (!glue) out += ' ';
    out += t;
    prev = t;
  }
  return out;
}

// Annotations that may stand between `__global__` and the kernel's name.
bool is_attribute_macro(std::string_view t) {
  return t == "__launch_bounds__" || t == "__attribute__" || t == "__declspec" || t == "alignas" ||
         t == "__maxnreg__" || t == "__cluster_dims__" || t == "__align__" || t == "decltype";
}

ScannedParam parse_param(std::vector<std::string_view> toks) {
  ScannedParam p;
  // Drop a default value and the qualifiers that do not change what is passed.
  for (std::size_t i = 0; i < toks.size(); ++i)
    if (toks[i] == "=") {
      toks.resize(i);
      break;
    }
  std::vector<std::string_view> kept;
  for (auto t : toks)
    if (t != "__restrict__" && t != "__restrict" && t != "restrict" && t != "__grid_constant__")
      kept.push_back(t);
  // An array parameter `float a[]` / `float a[16]` is a pointer.
  bool array = false;
  while (!kept.empty() && kept.back() == "]") {
    std::size_t i = kept.size() - 1;
    int depth = 0;
    for (; i < kept.size(); --i) {
      if (kept[i] == "]")
        ++depth;
      else if (kept[i] == "[" && --depth == 0)
        break;
    }
    if (i >= kept.size()) break;
    kept.resize(i);
    array = true;
  }
  if (kept.size() > 1 && is_ident(kept.back()) && !is_c_builtin_type_word(kept.back()) &&
      !is_qualifier(kept.back())) {
    bool only_qualifiers_before = true;
    for (std::size_t i = 0; i + 1 < kept.size(); ++i)
      if (!is_qualifier(kept[i])) only_qualifiers_before = false;
    if (!only_qualifiers_before) {
      p.name = std::string(kept.back());
      kept.pop_back();
    }
  }
  p.type = join_tokens(kept);
  if (array) p.type += " *";
  return p;
}

std::vector<ScannedParam> parse_params(const std::vector<std::string_view>& t, std::size_t open,
                                       std::size_t close) {
  std::vector<ScannedParam> params;
  std::vector<std::string_view> cur;
  int depth = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    auto tok = t[i];
    if (is_open(tok))
      ++depth;
    else if (is_close(tok) && depth > 0)
      --depth;
    if (tok == "," && depth == 0) {
      params.push_back(parse_param(cur));
      cur.clear();
    } else {
      cur.push_back(tok);
    }
  }
  if (!cur.empty() && !(cur.size() == 1 && cur[0] == "void")) params.push_back(parse_param(cur));
  return params;
}

bool preceded_by_template(const std::vector<std::string_view>& t, std::size_t i) {
  // Step back over specifiers (`static`, `extern`, attributes) to a `template <...>`.
  std::size_t j = i;
  while (j > 0) {
    auto tok = t[j - 1];
    if (tok == ">") {
      int depth = 0;
      std::size_t k = j - 1;
      for (; k < t.size(); --k) {
        if (t[k] == ">")
          ++depth;
        else if (t[k] == "<" && --depth == 0)
          break;
        else if (t[k] == ";" || t[k] == "{" || t[k] == "}")
          return false;
      }
      return k < t.size() && k > 0 && t[k - 1] == "template";
    }
    if (tok == ";" || tok == "{" || tok == "}" || tok == ")") return false;
    --j;
  }
  return false;
}

// The index of '(' that closes at the end of `text`, or npos.
std::size_t param_list_open(std::string_view text) {
  auto end = text.find_last_not_of(" \t");
  if (end == std::string_view::npos || text[end] != ')') return std::string_view::npos;
  int depth = 0;
  for (std::size_t i = end + 1; i-- > 0;) {
    if (text[i] == ')')
      ++depth;
    else if (text[i] == '(' && --depth == 0)
      return i;
  }
  return std::string_view::npos;
}

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\n");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

std::vector<KernelSignature> scan_kernel_signatures(std::string_view source) {
  auto t = tokenize(source);
  std::vector<KernelSignature> out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] != "__global__") continue;
    KernelSignature sig;
    sig.is_template = preceded_by_template(t, i);
    std::size_t k = i + 1;
    while (k < t.size()) {
      auto tok = t[k];
      if (tok == ";" || tok == "{" || tok == "(" || tok == "}") break;
      if (tok == "[" && k + 1 < t.size() && t[k + 1] == "[") {
        k = matching(t, k) + 1;
        continue;
      }
      if (is_ident(tok) && k + 1 < t.size() && t[k + 1] == "(") {
        std::size_t close = matching(t, k + 1);
        if (is_attribute_macro(tok)) {
          k = close + 1;
          continue;
        }
        if (close >= t.size()) break;
        sig.name = std::string(tok);
        sig.params = parse_params(t, k + 1, close);
        i = close;
        break;
      }
      if (is_ident(tok) && k + 1 < t.size() && t[k + 1] == "<") {
        // An explicit specialisation `k<float>(...)`: the name is before the '<'.
        std::size_t close = matching(t, k + 1);
        if (close + 1 < t.size() && t[close + 1] == "(") {
          std::size_t pclose = matching(t, close + 1);
          if (pclose >= t.size()) break;
          sig.name = std::string(tok);
          sig.params = parse_params(t, close + 1, pclose);
          i = pclose;
          break;
        }
      }
      ++k;
    }
    if (!sig.name.empty()) out.push_back(std::move(sig));
  }
  return out;
}

std::optional<std::vector<std::string>> demangled_param_types(std::string_view demangled) {
  auto open = param_list_open(demangled);
  if (open == std::string_view::npos) return std::nullopt;
  auto close = demangled.find_last_of(')');
  std::string_view inner = demangled.substr(open + 1, close - open - 1);
  std::vector<std::string> out = split_c_list(inner);
  if (out.size() == 1 && out[0] == "void") out.clear();
  return out;
}

std::string demangled_without_params(std::string_view demangled) {
  auto open = param_list_open(demangled);
  std::string_view head = open == std::string_view::npos ? demangled : demangled.substr(0, open);
  // A return type ("void ") precedes the name of a template instance.
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    char c = head[i];
    if (c == '<' || c == '(')
      ++depth;
    else if (c == '>' || c == ')')
      --depth;
    else if (c == ' ' && depth == 0)
      start = i + 1;
  }
  return trim(head.substr(start));
}

std::string demangled_base_name(std::string_view demangled) {
  std::string name = demangled_without_params(demangled);
  if (!name.empty() && name.back() == '>') {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      if (name[i] == '>')
        ++depth;
      else if (name[i] == '<' && --depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  auto scope = name.rfind("::");
  if (scope != std::string::npos) name = name.substr(scope + 2);
  return name;
}

std::string demangle(std::string_view symbol) {
  if (!symbol.starts_with("_Z")) return std::string(symbol);
  int status = 0;
  std::string mangled(symbol);
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !text) return mangled;
  return text.get();
}

TypeClass classify_param_type(std::string_view type) { return classify_c_type(type); }

}  // namespace cudakit::detail
