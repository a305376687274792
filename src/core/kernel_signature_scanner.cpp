#include "kernel_signature_scanner.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>

namespace cudakit::detail {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident(std::string_view t) { return !t.empty() && is_ident_start(t[0]); }

// Identifiers, numbers, "::" and single punctuation characters. Comments,
// string and character literals and preprocessor lines produce no tokens:
// none of them can declare a kernel.
std::vector<std::string_view> tokenize(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  const std::size_t n = s.size();
  bool line_start = true;
  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (line_start && c == '#') {
      // A directive runs to the end of the line, continued by a backslash.
      while (i < n && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n')
          ++i;
        else if (s[i] == '\\' && i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n')
          i += 2;
        ++i;
      }
      continue;
    }
    line_start = false;
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      auto end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? n : end + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      // A raw string R"delim( ... )delim" is skipped whole.
      if (c == '"' && !out.empty() && out.back() == "R" && out.back().data() + 1 == s.data() + i) {
        out.pop_back();
        auto open = s.find('(', i);
        if (open == std::string_view::npos) return out;
        std::string close = ")" + std::string(s.substr(i + 1, open - i - 1)) + "\"";
        auto end = s.find(close, open);
        i = end == std::string_view::npos ? n : end + close.size();
        continue;
      }
      ++i;
      while (i < n && s[i] != c) {
        if (s[i] == '\\') ++i;
        ++i;
      }
      ++i;
      continue;
    }
    if (is_ident_char(c)) {
      std::size_t j = i;
      while (j < n && is_ident_char(s[j])) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
      continue;
    }
    if (c == ':' && i + 1 < n && s[i + 1] == ':') {
      out.push_back(s.substr(i, 2));
      i += 2;
      continue;
    }
    out.push_back(s.substr(i, 1));
    ++i;
  }
  return out;
}

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

bool is_qualifier(std::string_view t) {
  return t == "const" || t == "volatile" || t == "__restrict__" || t == "__restrict" ||
         t == "restrict" || t == "__grid_constant__" || t == "struct" || t == "class" ||
         t == "typename" || t == "enum" || t == "union";
}

bool is_builtin_type_word(std::string_view t) {
  return t == "unsigned" || t == "signed" || t == "int" || t == "long" || t == "short" ||
         t == "char" || t == "float" || t == "double" || t == "bool" || t == "void";
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
  if (kept.size() > 1 && is_ident(kept.back()) && !is_builtin_type_word(kept.back()) &&
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
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < inner.size(); ++i) {
    char c = inner[i];
    if (c == '(' || c == '<' || c == '[')
      ++depth;
    else if (c == ')' || c == '>' || c == ']')
      --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(trim(inner.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string last = trim(inner.substr(start));
  if (!last.empty() && last != "void")
    out.push_back(last);
  else if (!out.empty())
    out.push_back(last);
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

TypeClass classify_param_type(std::string_view type) {
  TypeClass c;
  auto toks = tokenize(type);
  int depth = 0;
  for (auto t : toks) {
    if (t == "<")
      ++depth;
    else if (t == ">")
      --depth;
    else if (depth == 0 && (t == "*" || t == "[")) {
      return {true, ParamKind::pointer, ScalarType::unknown, sizeof(void*)};
    } else if (depth == 0 && t == "&") {
      return c;  // references are not kernel parameters we can check
    }
  }
  // Collect the words that name the type, without qualifiers and std::.
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    auto t = toks[i];
    if (is_qualifier(t)) continue;
    if (t == "::") continue;
    if (t == "std" && i + 1 < toks.size() && toks[i + 1] == "::") continue;
    if (!is_ident(t)) return c;  // template arguments, arrays: leave to the layout
    words.push_back(t);
  }
  if (words.empty()) return c;
  auto set = [&](ScalarType s, std::size_t size) {
    return TypeClass{true, ParamKind::scalar, s, size};
  };
  if (words.size() == 1) {
    auto w = words[0];
    if (w == "bool") return set(ScalarType::boolean, 1);
    if (w == "int8_t") return set(ScalarType::i8, 1);
    if (w == "uint8_t" || w == "uchar") return set(ScalarType::u8, 1);
    if (w == "int16_t") return set(ScalarType::i16, 2);
    if (w == "uint16_t" || w == "ushort") return set(ScalarType::u16, 2);
    if (w == "int32_t") return set(ScalarType::i32, 4);
    if (w == "uint32_t" || w == "uint") return set(ScalarType::u32, 4);
    if (w == "int64_t" || w == "ptrdiff_t" || w == "ssize_t" || w == "intptr_t")
      return set(ScalarType::i64, 8);
    if (w == "uint64_t" || w == "size_t" || w == "uintptr_t" || w == "ulong")
      return set(ScalarType::u64, 8);
    if (w == "float") return set(ScalarType::f32, 4);
    if (w == "double") return set(ScalarType::f64, 8);
    if (w == "__half" || w == "half") return set(ScalarType::f16, 2);
    if (w == "__nv_bfloat16" || w == "nv_bfloat16") return set(ScalarType::bf16, 2);
  }
  // Built-in integer spellings in any order: "unsigned long long int", "long unsigned".
  bool is_unsigned = false, is_signed = false, is_char = false, is_int = false;
  int longs = 0, shorts = 0;
  for (auto w : words) {
    if (w == "unsigned")
      is_unsigned = true;
    else if (w == "signed")
      is_signed = true;
    else if (w == "char")
      is_char = true;
    else if (w == "int")
      is_int = true;
    else if (w == "long")
      ++longs;
    else if (w == "short")
      ++shorts;
    else
      return c;  // a user type, or a spelling we do not resolve
  }
  (void)is_int;
  (void)is_signed;
  if (is_char) return is_unsigned ? set(ScalarType::u8, 1) : set(ScalarType::i8, 1);
  if (shorts) return is_unsigned ? set(ScalarType::u16, 2) : set(ScalarType::i16, 2);
  // long is 64-bit on the LP64 hosts cudakit supports, and device code follows the host.
  if (longs) return is_unsigned ? set(ScalarType::u64, 8) : set(ScalarType::i64, 8);
  return is_unsigned ? set(ScalarType::u32, 4) : set(ScalarType::i32, 4);
}

}  // namespace cudakit::detail
