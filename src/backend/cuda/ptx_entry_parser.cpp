#include "backend/cuda/ptx_entry_parser.hpp"

#include <cctype>
#include <charconv>

#include "cudakit/error.hpp"

namespace cudakit::detail {
namespace {

// PTX with its comments blanked out, so directives inside comments (the
// compiler writes "// .globl name") are never mistaken for real ones.
std::string strip_comments(std::string_view ptx) {
  std::string out(ptx);
  for (std::size_t i = 0; i + 1 < out.size(); ++i) {
    if (out[i] == '/' && out[i + 1] == '/') {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '/' && out[i + 1] == '*') {
      while (i + 1 < out.size() && !(out[i] == '*' && out[i + 1] == '/')) {
        if (out[i] != '\n') out[i] = ' ';
        ++i;
      }
      if (i + 1 < out.size()) out[i] = out[i + 1] = ' ';
    }
  }
  return out;
}

bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
         c == '%';
}

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (is_ident_char(c)) {
      std::size_t start = i;
      while (i < text.size() && is_ident_char(text[i])) ++i;
      tokens.emplace_back(text.substr(start, i - start));
    } else {
      tokens.emplace_back(1, c);
      ++i;
    }
  }
  return tokens;
}

std::size_t parse_size(const std::string& token, std::string_view entry, std::string_view param) {
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size())
    throw ArgumentError("reading the parameters of PTX entry " + std::string(entry),
                        "expected a number in '" + std::string(param) + "', found '" + token + "'");
  return value;
}

struct ScalarInfo {
  std::string_view type;
  ParamKind kind;
  ScalarType scalar;
  std::size_t size;
};

// The brief says what each PTX type can stand for: 8-byte integers may be
// pointers (PTX does not distinguish them), .b16 may be a half or bfloat16.
constexpr ScalarInfo kScalars[] = {
    {".u64", ParamKind::pointer_or_u64, ScalarType::u64, 8},
    {".b64", ParamKind::pointer_or_u64, ScalarType::u64, 8},
    {".s64", ParamKind::pointer_or_u64, ScalarType::i64, 8},
    {".f64", ParamKind::scalar, ScalarType::f64, 8},
    {".f32", ParamKind::scalar, ScalarType::f32, 4},
    {".u32", ParamKind::scalar, ScalarType::u32, 4},
    {".b32", ParamKind::scalar, ScalarType::u32, 4},
    {".s32", ParamKind::scalar, ScalarType::i32, 4},
    {".u16", ParamKind::scalar, ScalarType::u16, 2},
    {".s16", ParamKind::scalar, ScalarType::i16, 2},
    {".b16", ParamKind::scalar, ScalarType::unknown, 2},
    {".f16", ParamKind::scalar, ScalarType::f16, 2},
    {".bf16", ParamKind::scalar, ScalarType::bf16, 2},
    {".u8", ParamKind::scalar, ScalarType::u8, 1},
    {".s8", ParamKind::scalar, ScalarType::i8, 1},
    {".b8", ParamKind::scalar, ScalarType::u8, 1},
};

// One parameter declaration, tokens between commas:
//   .param .u64 NAME
//   .param .u64 .ptr .global .align 4 NAME
//   .param .align 8 .b8 NAME[16]
Param parse_param(const std::vector<std::string>& tokens, std::string_view entry) {
  std::string text;
  for (const auto& token : tokens) text += (text.empty() ? "" : " ") + token;
  auto fail = [&](const std::string& why) -> Param {
    throw ArgumentError("reading the parameters of PTX entry " + std::string(entry),
                        why + " in '" + text + "'");
  };
  if (tokens.empty() || tokens[0] != ".param") return fail("expected .param");

  Param param;
  const ScalarInfo* scalar = nullptr;
  std::size_t declared_align = 0;
  std::size_t array_count = 0;
  bool is_array = false;
  bool is_pointer = false;
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    if (token == ".align") {
      if (++i >= tokens.size()) return fail("missing alignment");
      declared_align = parse_size(tokens[i], entry, text);
    } else if (token == ".ptr") {
      is_pointer = true;
    } else if (token == ".global" || token == ".const" || token == ".shared" || token == ".local") {
      // state space of a .ptr parameter: a pointer all the same
    } else if (token == "[") {
      if (i + 2 >= tokens.size() || tokens[i + 2] != "]") return fail("malformed array");
      array_count = parse_size(tokens[i + 1], entry, text);
      is_array = true;
      i += 2;
    } else if (!token.empty() && token[0] == '.') {
      for (const auto& info : kScalars)
        if (info.type == token) scalar = &info;
      if (!scalar) return fail("unknown parameter type " + token);
    } else {
      // the parameter's own name; PTX names carry no information for users
    }
  }
  if (!scalar) return fail("no type");

  if (is_array) {
    param.kind = ParamKind::aggregate;
    param.scalar = ScalarType::unknown;
    param.size = scalar->size * array_count;
    param.align = declared_align ? declared_align : scalar->size;
  } else {
    param.kind = is_pointer ? ParamKind::pointer : scalar->kind;
    param.scalar = is_pointer ? ScalarType::unknown : scalar->scalar;
    param.size = scalar->size;
    // A .ptr's .align is the pointee's alignment, not the parameter's.
    param.align = (declared_align && !is_pointer) ? declared_align : scalar->size;
  }
  return param;
}

}  // namespace

std::vector<PtxEntry> parse_ptx_entries(std::string_view ptx) {
  const std::string clean = strip_comments(ptx);
  const std::vector<std::string> tokens = tokenize(clean);
  std::vector<PtxEntry> entries;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] != ".entry") continue;
    if (i + 1 >= tokens.size())
      throw ArgumentError("reading PTX", "'.entry' without a name at the end of the text");
    PtxEntry entry;
    entry.name = tokens[++i];
    if (i + 1 >= tokens.size() || tokens[i + 1] != "(") {
      // `.entry name` followed by its body: no parameter list at all
      entries.push_back(std::move(entry));
      continue;
    }
    ++i;  // at "("
    std::vector<std::string> current;
    std::size_t offset = 0;
    bool closed = false;
    for (++i; i < tokens.size(); ++i) {
      const std::string& token = tokens[i];
      if (token == ")" || token == ",") {
        if (!current.empty()) {
          Param param = parse_param(current, entry.name);
          offset = (offset + param.align - 1) / param.align * param.align;
          param.offset = offset;
          offset += param.size;
          entry.layout.params.push_back(std::move(param));
          current.clear();
        }
        if (token == ")") {
          closed = true;
          break;
        }
      } else {
        current.push_back(token);
      }
    }
    if (!closed)
      throw ArgumentError("reading the parameters of PTX entry " + entry.name,
                          "the parameter list is not closed");
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::optional<ParamLayout> find_ptx_entry(std::string_view ptx, std::string_view name) {
  for (auto& entry : parse_ptx_entries(ptx))
    if (entry.name == name) return std::move(entry.layout);
  return std::nullopt;
}

int ptx_isa_version(std::string_view ptx) {
  const std::string clean = strip_comments(ptx);
  auto pos = clean.find(".version");
  if (pos == std::string::npos) return 0;
  pos += 8;
  while (pos < clean.size() && std::isspace(static_cast<unsigned char>(clean[pos]))) ++pos;
  int major = 0, minor = 0;
  auto [end, ec] = std::from_chars(clean.data() + pos, clean.data() + clean.size(), major);
  if (ec != std::errc()) return 0;
  if (end < clean.data() + clean.size() && *end == '.')
    std::from_chars(end + 1, clean.data() + clean.size(), minor);
  return major * 10 + minor;
}

std::string ptx_target(std::string_view ptx) {
  const std::string clean = strip_comments(ptx);
  auto pos = clean.find(".target");
  if (pos == std::string::npos) return {};
  pos += 7;
  while (pos < clean.size() && std::isspace(static_cast<unsigned char>(clean[pos]))) ++pos;
  std::size_t end = pos;
  while (end < clean.size() &&
         (std::isalnum(static_cast<unsigned char>(clean[end])) || clean[end] == '_'))
    ++end;
  return clean.substr(pos, end - pos);
}

}  // namespace cudakit::detail
