#include "support/c_types.hpp"

#include <cctype>

namespace cudakit::detail {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

bool is_c_identifier(std::string_view t) { return !t.empty() && is_ident_start(t[0]); }

std::vector<std::string_view> tokenize_c(std::string_view s) {
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

bool is_c_qualifier(std::string_view t) {
  return t == "const" || t == "volatile" || t == "__restrict__" || t == "__restrict" ||
         t == "restrict" || t == "__grid_constant__" || t == "struct" || t == "class" ||
         t == "typename" || t == "enum" || t == "union";
}

bool is_c_builtin_type_word(std::string_view t) {
  return t == "unsigned" || t == "signed" || t == "int" || t == "long" || t == "short" ||
         t == "char" || t == "float" || t == "double" || t == "bool" || t == "void";
}

namespace {
std::string trimmed(std::string_view s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  const auto end = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(begin, end - begin + 1));
}
}  // namespace

std::vector<std::string> split_c_list(std::string_view list) {
  std::vector<std::string> out;
  if (trimmed(list).empty()) return out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const char c = list[i];
    if (c == '(' || c == '<' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == '>' || c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == ',' && depth == 0) {
      out.push_back(trimmed(list.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(trimmed(list.substr(start)));
  return out;
}

CDeclaration split_c_declaration(std::string_view declaration) {
  const std::string text = trimmed(declaration);
  std::size_t name_start = text.size();
  while (name_start > 0 && is_ident_char(text[name_start - 1])) --name_start;
  CDeclaration out;
  out.name = text.substr(name_start);
  if (!is_c_identifier(out.name)) out.name.clear();
  out.type = trimmed(std::string_view(text).substr(0, name_start));
  // A qualifier or a built-in type word last ("unsigned int", "float const")
  // ends a type without a name.
  if (out.type.empty() || out.name.empty() || is_c_qualifier(out.name) ||
      is_c_builtin_type_word(out.name))
    return {text, {}};
  return out;
}

std::string pointee_c_type(std::string_view pointer_type) {
  int depth = 0;
  std::size_t last_star = std::string_view::npos;
  for (std::size_t i = 0; i < pointer_type.size(); ++i) {
    const char c = pointer_type[i];
    if (c == '(' || c == '<' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == '>' || c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == '*' && depth == 0)
      last_star = i;
  }
  if (last_star == std::string_view::npos) return std::string(pointer_type);
  return std::string(pointer_type.substr(0, last_star));
}

std::string bare_c_type(std::string_view type) {
  const auto toks = tokenize_c(type);
  std::string out;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    const auto t = toks[i];
    if (is_c_qualifier(t) || t == "::") continue;
    if (i + 1 < toks.size() && toks[i + 1] == "::") continue;  // a namespace
    if (!out.empty() && is_c_identifier(t) &&
        (std::isalnum(static_cast<unsigned char>(out.back())) || out.back() == '_'))
      out += ' ';
    out += t;
  }
  return out;
}

TypeClass classify_c_type(std::string_view type) {
  TypeClass c;
  auto toks = tokenize_c(type);
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
    if (is_c_qualifier(t)) continue;
    if (t == "::") continue;
    if (t == "std" && i + 1 < toks.size() && toks[i + 1] == "::") continue;
    if (!is_c_identifier(t)) return c;  // template arguments, arrays: leave to the layout
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

namespace cudakit {

std::string ElementType::describe() const {
  const std::string bits = std::to_string(8 * static_cast<int>(size));
  switch (kind) {
    case 'f':
      return "float" + bits;
    case 'i':
      return "int" + bits;
    case 'u':
      return "uint" + bits;
    case 'b':
      return "bool";
    case 'c':
      return "complex" + bits;
    case 'x':
      return "char";
    case 'V':
      return std::to_string(size) + "-byte records";
    default:
      return "untyped";
  }
}

}  // namespace cudakit

namespace cudakit::detail {

bool pointee_accepts(ElementType pointee, ElementType element) noexcept {
  if (pointee.kind == 0 || element.kind == 0 || element.kind == 'V') return true;
  if (pointee.kind == 'x') return element.size == 1 && element.kind != 'f';
  if (pointee.size != element.size) return false;
  if ((pointee.kind == 'f') != (element.kind == 'f')) return false;
  return element.kind != 'c' || pointee.kind == 'c';
}

ElementType pointee_element_type(std::string_view pointer_type) {
  if (pointer_type.find('*') == std::string_view::npos) return {};
  const std::string pointee = pointee_c_type(pointer_type);
  if (bare_c_type(pointee) == "char") return {'x', 1};
  const TypeClass c = classify_c_type(pointee);
  if (!c.known || c.kind != ParamKind::scalar) return {};
  const auto size = static_cast<unsigned char>(scalar_size(c.scalar));
  switch (c.scalar) {
    case ScalarType::boolean:
      return {'b', size};
    case ScalarType::i8:
    case ScalarType::i16:
    case ScalarType::i32:
    case ScalarType::i64:
      return {'i', size};
    case ScalarType::u8:
    case ScalarType::u16:
    case ScalarType::u32:
    case ScalarType::u64:
      return {'u', size};
    case ScalarType::f16:
    case ScalarType::bf16:
    case ScalarType::f32:
    case ScalarType::f64:
      return {'f', size};
    case ScalarType::unknown:
      break;
  }
  return {};
}

}  // namespace cudakit::detail
