#include "backend/cpu/kernel_scanner.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "backend/cpu/preprocessor_conditions.hpp"

namespace cudakit::detail::cpu {
namespace {

enum class TokenKind { identifier, punct, literal };

struct Token {
  TokenKind kind;
  std::string_view text;
  int line;
  std::size_t offset;
  bool directive;                 // part of a preprocessor line
  bool starts_directive = false;  // the `#` that opens a preprocessor line
};

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  int line = 1;
  bool at_line_start = true;
  bool in_directive = false;
  const std::size_t n = s.size();
  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      // A directive ends at a newline not escaped by a backslash. `#line N`
      // renumbers the lines after it (the core's extern "C" wrapping uses it).
      int renumber = 0;
      if (in_directive && !(i > 0 && s[i - 1] == '\\')) {
        in_directive = false;
        std::size_t h = out.size();
        while (h > 0 && out[h - 1].directive && out[h - 1].text != "#") --h;
        if (h > 0 && out[h - 1].text == "#") {
          std::size_t k = h;  // first token after '#'
          if (k < out.size() && out[k].text == "line") ++k;
          if (k < out.size() && out[k].kind == TokenKind::literal &&
              std::isdigit(static_cast<unsigned char>(out[k].text[0])))
            renumber = std::atoi(std::string(out[k].text).c_str());
        }
      }
      line = renumber > 0 ? renumber : line + 1;
      ++i;
      at_line_start = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) {
        if (s[i] == '\n') ++line;
        ++i;
      }
      i += 2;
      continue;
    }
    const bool opens_directive = c == '#' && at_line_start;
    if (opens_directive) in_directive = true;
    at_line_start = false;
    std::size_t start = i;
    if (c == 'R' && i + 1 < n && s[i + 1] == '"') {  // raw string R"delim( ... )delim"
      std::size_t open = s.find('(', i + 2);
      if (open != std::string_view::npos) {
        std::string close = ")" + std::string(s.substr(i + 2, open - i - 2)) + "\"";
        std::size_t end = s.find(close, open + 1);
        end = end == std::string_view::npos ? n : end + close.size();
        for (std::size_t k = i; k < end; ++k)
          if (s[k] == '\n') ++line;
        out.push_back(
            {TokenKind::literal, s.substr(start, end - start), line, start, in_directive});
        i = end;
        continue;
      }
    }
    if (is_ident_start(c)) {
      while (i < n && is_ident_char(s[i])) ++i;
      out.push_back({TokenKind::identifier, s.substr(start, i - start), line, start, in_directive});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      // Numbers, with digit separators (1'000) and exponents.
      while (i < n && (is_ident_char(s[i]) || s[i] == '.' || s[i] == '\'' ||
                       ((s[i] == '+' || s[i] == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E' ||
                                                         s[i - 1] == 'p' || s[i - 1] == 'P'))))
        ++i;
      out.push_back({TokenKind::literal, s.substr(start, i - start), line, start, in_directive});
      continue;
    }
    if (c == '"' || c == '\'') {
      ++i;
      while (i < n && s[i] != c && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n) ++i;
        ++i;
      }
      if (i < n && s[i] == c) ++i;
      out.push_back({TokenKind::literal, s.substr(start, i - start), line, start, in_directive});
      continue;
    }
    if (c == ':' && i + 1 < n && s[i + 1] == ':') {
      i += 2;
      out.push_back({TokenKind::punct, s.substr(start, 2), line, start, in_directive});
      continue;
    }
    ++i;
    out.push_back(
        {TokenKind::punct, s.substr(start, 1), line, start, in_directive, opens_directive});
  }
  return out;
}

// The text of tokens [begin, end) as written, comments and line
// continuations turned into single spaces.
std::string joined_text(const std::vector<Token>& t, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t k = begin; k < end; ++k) {
    if (k > begin && t[k].offset > t[k - 1].offset + t[k - 1].text.size()) out += ' ';
    out += t[k].text;
  }
  return out;
}

// Where the preprocessor keeps text: a context for each stretch between
// directives, and for each token the context it sits in.
struct ConditionContexts {
  struct Context {
    bool kept = true;
    std::string condition;  // unknown conditions open there; empty: none
    std::vector<ConditionalBranch> branches;
  };
  std::vector<Context> contexts{Context{}};
  std::vector<std::size_t> of_token;
  const Context& at(std::size_t token) const { return contexts[of_token[token]]; }
};

ConditionContexts condition_contexts(
    const std::vector<Token>& all,
    const std::vector<std::pair<std::string, std::string>>& defines) {
  ConditionContexts c;
  c.of_token.assign(all.size(), 0);
  ConditionTracker tracker(defines);
  std::size_t current = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].starts_directive) {
      c.of_token[i] = current;
      continue;
    }
    std::size_t end = i + 1;
    while (end < all.size() && all[end].directive && !all[end].starts_directive) ++end;
    const bool named = i + 1 < end && all[i + 1].kind == TokenKind::identifier;
    tracker.directive(named ? all[i + 1].text : std::string_view{},
                      named ? joined_text(all, i + 2, end) : std::string{});
    c.contexts.push_back({tracker.kept(), tracker.condition(), tracker.branches()});
    current = c.contexts.size() - 1;
    for (std::size_t k = i; k < end; ++k) c.of_token[k] = current;
    i = end - 1;
  }
  return c;
}

const std::set<std::string_view>& barrier_names() {
  static const std::set<std::string_view> names = {
      "__syncthreads",   "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
      "__syncwarp",      "__shfl_sync",         "__shfl_up_sync",    "__shfl_down_sync",
      "__shfl_xor_sync", "__ballot_sync",       "__any_sync",        "__all_sync",
      "__activemask",    "__reduce_add_sync",   "__nanosleep"};
  return names;
}

// {identifier, construct}: what the CPU backend refuses, by the name that
// gives it away.
const std::map<std::string_view, std::string_view>& unsupported_names() {
  static const std::map<std::string_view, std::string_view> names = {
      {"asm", "inline assembly (asm)"},
      {"__asm__", "inline assembly (asm)"},
      {"__asm", "inline assembly (asm)"},
      {"texCubemap", "cube map textures"},
      {"texCubemapLayered", "cube map textures"},
      {"texCubemapLod", "cube map textures"},
      {"surfCubemapread", "cube map surfaces"},
      {"surfCubemapwrite", "cube map surfaces"},
      {"this_multi_grid", "multi-grid cooperative synchronization"},
      {"wmma", "warp matrix multiply-accumulate (nvcuda::wmma, tensor cores)"},
      {"mma_sync", "warp matrix multiply-accumulate (nvcuda::wmma, tensor cores)"},
      {"load_matrix_sync", "warp matrix multiply-accumulate (nvcuda::wmma, tensor cores)"},
      {"store_matrix_sync", "warp matrix multiply-accumulate (nvcuda::wmma, tensor cores)"},
  };
  return names;
}

// asm volatile("" : : "r"(x) : "memory"): no instructions, only a barrier to
// the optimizer (CUDA code writes it to keep a value alive), which the host
// compiler reads the same way. Constraints other than general registers and
// memory (PTX's "h", "l", "f") would not compile there: those stay refused.
bool is_empty_asm(const std::vector<Token>& all, std::size_t at) {
  std::size_t k = at + 1;
  while (k < all.size() && (all[k].text == "volatile" || all[k].text == "__volatile__")) ++k;
  if (k + 1 >= all.size() || all[k].text != "(" || all[k + 1].text != "\"\"") return false;
  static const std::set<std::string_view> allowed = {"\"r\"",  "\"=r\"", "\"+r\"",     "\"m\"",
                                                     "\"=m\"", "\"+m\"", "\"memory\"", "\"cc\""};
  int depth = 0;
  for (std::size_t j = k; j < all.size(); ++j) {
    if (all[j].text == "(") {
      ++depth;
    } else if (all[j].text == ")") {
      if (--depth == 0) return true;
    } else if (j > k + 1 && all[j].kind == TokenKind::literal && !all[j].text.empty() &&
               all[j].text.front() == '"' && allowed.count(all[j].text) == 0) {
      return false;
    }
  }
  return false;
}

struct Scope {
  bool is_namespace;  // namespace or extern "C" block: declarations at namespace scope
  std::string name;   // named namespace, else empty
};

std::string qualify(const std::vector<Scope>& scopes, std::string_view name) {
  std::string q;
  for (const auto& s : scopes)
    if (s.is_namespace && !s.name.empty()) q += s.name + "::";
  return q + std::string(name);
}

bool all_namespace(const std::vector<Scope>& scopes) {
  return std::all_of(scopes.begin(), scopes.end(), [](const Scope& s) { return s.is_namespace; });
}

// Index of the token that closes the bracket opened at `open` (or size()).
std::size_t match_close(const std::vector<Token>& t, std::size_t open) {
  const char o = t[open].text[0];
  const char c = o == '(' ? ')' : (o == '[' ? ']' : '}');
  int depth = 0;
  for (std::size_t i = open; i < t.size(); ++i) {
    if (t[i].kind != TokenKind::punct) continue;
    if (t[i].text[0] == o) ++depth;
    if (t[i].text[0] == c && --depth == 0) return i;
  }
  return t.size();
}

bool is(const Token& t, std::string_view text) { return t.text == text; }

struct FunctionBody {
  std::string name;
  std::size_t begin;  // token index of '{'
  std::size_t end;    // token index of the matching '}'
};

// Three tokens `c` at i, i+1, i+2 with nothing between them (`<<<`, `>>>`).
bool adjacent_triple(const std::vector<Token>& t, std::size_t i, char c) {
  return t[i].kind == TokenKind::punct && !t[i].directive && t[i].text.size() == 1 &&
         t[i].text[0] == c && i + 2 < t.size() && t[i + 1].text.size() == 1 &&
         t[i + 1].text[0] == c && t[i + 2].text.size() == 1 && t[i + 2].text[0] == c &&
         t[i + 1].offset == t[i].offset + 1 && t[i + 2].offset == t[i].offset + 2;
}

// The launch whose `<<<` is at token `open`: the callee before it (a name,
// qualified or with template arguments) and the `>>>` after it.
std::optional<DeviceLaunch> device_launch_at(const std::vector<Token>& t, std::size_t open) {
  if (open == 0) return std::nullopt;
  std::size_t k = open - 1;
  // Template arguments: step back over a balanced <...>.
  if (is(t[k], ">")) {
    int depth = 0;
    for (;; --k) {
      if (is(t[k], ">")) ++depth;
      if (is(t[k], "<") && --depth == 0) break;
      if (k == 0) return std::nullopt;
    }
    if (k == 0) return std::nullopt;
    --k;
  }
  if (t[k].kind != TokenKind::identifier) return std::nullopt;
  DeviceLaunch launch;
  launch.callee = std::string(t[k].text);
  launch.line = t[open].line;
  // Qualification: ns::name, ::name.
  while (k >= 1 && is(t[k - 1], "::")) {
    --k;
    if (k >= 1 && t[k - 1].kind == TokenKind::identifier) --k;
  }
  launch.callee_begin = t[k].offset;
  launch.open = t[open].offset;
  int parens = 0;
  for (std::size_t j = open + 3; j < t.size(); ++j) {
    if (t[j].directive) continue;
    if (is(t[j], "(") || is(t[j], "[") || is(t[j], "{")) ++parens;
    if (is(t[j], ")") || is(t[j], "]") || is(t[j], "}")) --parens;
    if (parens < 0 || is(t[j], ";")) return std::nullopt;
    if (parens == 0 && adjacent_triple(t, j, '>')) {
      launch.close = t[j].offset;
      return launch;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string rewrite_device_launches(std::string_view source, const ScanResult& scan) {
  std::string out;
  std::size_t pos = 0;
  for (const auto& launch : scan.device_launches) {
    out.append(source.substr(pos, launch.callee_begin - pos));
    out += "::cudakit_cpu::device_launch(";
    out.append(source.substr(launch.callee_begin, launch.open - launch.callee_begin));
    out += ", ";
    out.append(source.substr(launch.open + 3, launch.close - launch.open - 3));
    out += ")";
    pos = launch.close + 3;
  }
  out.append(source.substr(pos));
  return out;
}

bool ScanResult::function_uses_barrier(std::string_view name) const {
  for (const auto& [n, uses] : function_barriers)
    if (n == name) return uses;
  return false;
}

ScanResult scan_kernel_source(std::string_view source,
                              const std::vector<std::pair<std::string, std::string>>& defines) {
  ScanResult result;
  std::vector<Token> all = tokenize(source);
  const ConditionContexts contexts = condition_contexts(all, defines);

  // Unsupported constructs: looked for everywhere outside preprocessor lines.
  const auto& refused = unsupported_names();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Token& t = all[i];
    if (!contexts.at(i).kept) continue;  // the preprocessor drops it
    // kernel<<<grid, block>>>(...) inside device code: a launch from the
    // device (dynamic parallelism), run by the prelude's device_launch.
    if (t.directive && t.kind == TokenKind::punct && is(t, "<") && i + 2 < all.size() &&
        all[i + 1].directive && all[i + 2].directive && is(all[i + 1], "<") &&
        is(all[i + 2], "<") && all[i + 2].offset == t.offset + 2) {
      result.unsupported.push_back(
          {"a device-side kernel launch inside a macro (the CPU backend runs launches written "
           "out in the source)",
           "<<<", t.line});
      i += 2;
      continue;
    }
    if (adjacent_triple(all, i, '<')) {
      if (auto launch = device_launch_at(all, i)) {
        result.device_launches.push_back(std::move(*launch));
      } else {
        result.unsupported.push_back(
            {"a device-side kernel launch whose kernel or configuration cannot be read", "<<<",
             t.line});
      }
      i += 2;
      continue;
    }
    if (t.kind != TokenKind::identifier || t.directive) continue;
    auto it = refused.find(t.text);
    bool hit =
        it != refused.end() && !(it->second == "inline assembly (asm)" && is_empty_asm(all, i));
    std::string_view construct = hit ? it->second : std::string_view{};
    // grid.sync() on a grid_group named anything: the type gives it away above;
    // `nvcuda::` alone also names the wmma namespace.
    if (!hit && is(t, "nvcuda")) {
      hit = true;
      construct = "warp matrix multiply-accumulate (nvcuda::wmma, tensor cores)";
    }
    if (hit) result.unsupported.push_back({std::string(construct), std::string(t.text), t.line});
  }

  // Everything else ignores preprocessor lines and what they drop.
  std::vector<Token> t;
  std::vector<const ConditionContexts::Context*> context_of;
  t.reserve(all.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    if (!all[i].directive && contexts.at(i).kept) {
      t.push_back(all[i]);
      context_of.push_back(&contexts.at(i));
    }

  std::vector<Scope> scopes;
  std::vector<std::pair<std::size_t, std::size_t>>
      open_functions;  // (scope depth, FunctionBody index)
  std::vector<FunctionBody> functions;
  // Each kernel name's definitions so far, by the #if branches they sit in.
  std::map<std::string, std::vector<std::vector<ConditionalBranch>>> kernel_branches;

  for (std::size_t i = 0; i < t.size(); ++i) {
    const Token& tok = t[i];
    if (tok.kind == TokenKind::punct && is(tok, "{")) {
      Scope scope{false, {}};
      // namespace a { / namespace a::b { / namespace { / extern "C" {
      std::size_t k = i;
      std::string ns;
      while (k > 0 && (t[k - 1].kind == TokenKind::identifier || is(t[k - 1], "::")) &&
             !is(t[k - 1], "namespace")) {
        ns = std::string(t[k - 1].text) + ns;
        --k;
      }
      if (k > 0 && is(t[k - 1], "namespace")) {
        scope = {true, ns};
      } else if (i > 0 && t[i - 1].kind == TokenKind::literal && i > 1 && is(t[i - 2], "extern")) {
        scope = {true, {}};
      } else {
        // A function body: `name ( ... ) [qualifiers] {`.
        std::size_t p = i;
        while (p > 0 && t[p - 1].kind == TokenKind::identifier &&
               (is(t[p - 1], "const") || is(t[p - 1], "noexcept") || is(t[p - 1], "override")))
          --p;
        if (p > 0 && is(t[p - 1], ")")) {
          int depth = 0;
          std::size_t q = p - 1;
          for (;; --q) {
            if (is(t[q], ")")) ++depth;
            if (is(t[q], "(") && --depth == 0) break;
            if (q == 0) break;
          }
          if (q > 0 && t[q - 1].kind == TokenKind::identifier) {
            functions.push_back({std::string(t[q - 1].text), i, t.size()});
            open_functions.push_back({scopes.size(), functions.size() - 1});
          }
        }
      }
      scopes.push_back(scope);
      continue;
    }
    if (tok.kind == TokenKind::punct && is(tok, "}")) {
      if (!scopes.empty()) scopes.pop_back();
      if (!open_functions.empty() && open_functions.back().first == scopes.size()) {
        functions[open_functions.back().second].end = i;
        open_functions.pop_back();
      }
      continue;
    }
    if (tok.kind != TokenKind::identifier) continue;

    if (is(tok, "__global__")) {
      bool is_template = false;
      for (std::size_t b = i; b > 0; --b) {
        const Token& p = t[b - 1];
        if (is(p, ";") || is(p, "}") || is(p, "{")) break;
        if (is(p, "template")) is_template = true;
      }
      std::size_t k = i + 1;
      while (k + 1 < t.size()) {
        const Token& n = t[k];
        if (n.kind == TokenKind::identifier && is(t[k + 1], "(")) {
          if (is(n, "__launch_bounds__") || is(n, "__attribute__") || is(n, "alignas") ||
              is(n, "__maxnreg__")) {
            k = match_close(t, k + 1) + 1;
            continue;
          }
          break;
        }
        if (is(n, ";") || is(n, "{")) break;
        ++k;
      }
      if (k + 1 >= t.size() || t[k].kind != TokenKind::identifier || !is(t[k + 1], "(")) continue;
      std::size_t close = match_close(t, k + 1);
      if (close + 1 >= t.size() || !is(t[close + 1], "{")) continue;  // a declaration
      std::string qualified = qualify(scopes, t[k].text);
      const ConditionContexts::Context& where = *context_of[k];
      auto& earlier = kernel_branches[qualified];
      // A second definition is an overload unless the two sit in different
      // branches of one #if (only one of them is compiled).
      const bool alternative = std::all_of(
          earlier.begin(), earlier.end(),
          [&](const auto& branches) { return mutually_exclusive(branches, where.branches); });
      if (earlier.empty() || alternative)
        result.kernels.push_back(
            {std::string(t[k].text), qualified, is_template, false, t[k].line, where.condition});
      else if (!is_template)
        result.repeated_kernels.push_back({qualified, t[k].line});
      earlier.push_back(where.branches);
      continue;
    }

    // `texture<T, dim, mode> name;` / `surface<void, type> name;` at namespace
    // scope: references (records the prelude defines), bound by name.
    if ((is(tok, "texture") || is(tok, "surface")) && i + 1 < t.size() && is(t[i + 1], "<") &&
        all_namespace(scopes) &&
        (i == 0 || is(t[i - 1], ";") || is(t[i - 1], "}") || is(t[i - 1], "{") ||
         is(t[i - 1], "static"))) {
      std::size_t k = i + 2;
      int depth = 1;
      for (; k < t.size() && depth > 0 && !is(t[k], ";"); ++k) {
        if (is(t[k], "<")) ++depth;
        if (is(t[k], ">")) --depth;
      }
      if (depth == 0 && k + 1 < t.size() && t[k].kind == TokenKind::identifier &&
          is(t[k + 1], ";")) {
        result.globals.push_back({std::string(t[k].text), qualify(scopes, t[k].text), tok.line,
                                  context_of[k]->condition});
        i = k + 1;
        continue;
      }
    }

    if ((is(tok, "__device__") || is(tok, "__constant__") || is(tok, "__managed__")) &&
        all_namespace(scopes)) {
      bool skip = false;
      for (std::size_t b = i; b > 0; --b) {
        const Token& p = t[b - 1];
        if (is(p, ";") || is(p, "}") || is(p, "{")) break;
        if (is(p, "template") || is(p, "extern") || is(p, "typedef") || is(p, "using")) skip = true;
      }
      std::size_t k = i + 1;
      std::size_t last_ident = 0;
      bool is_function = false;
      for (; k < t.size(); ++k) {
        const Token& n = t[k];
        if (is(n, "(")) {
          if (k > 0 && (is(t[k - 1], "__align__") || is(t[k - 1], "alignas") ||
                        is(t[k - 1], "__attribute__"))) {
            k = match_close(t, k);
            continue;
          }
          is_function = true;
          break;
        }
        if (is(n, ";") || is(n, "=") || is(n, "[") || is(n, "{")) break;
        if (n.kind == TokenKind::identifier && !is(n, "__device__") && !is(n, "__constant__") &&
            !is(n, "__managed__"))
          last_ident = k;
      }
      if (skip || is_function || last_ident == 0 || k >= t.size()) continue;
      result.globals.push_back({std::string(t[last_ident].text),
                                qualify(scopes, t[last_ident].text), tok.line,
                                context_of[last_ident]->condition});
      i = k;  // one declaration, even when it names several qualifiers
      continue;
    }

    if (is(tok, "extern")) {
      // extern [__align__(n)] __shared__ [__align__(n)] T name[];
      std::size_t k = i + 1;
      bool shared = false;
      std::vector<std::size_t> type_tokens;
      for (; k < t.size() && !is(t[k], ";"); ++k) {
        const Token& n = t[k];
        if (is(n, "__shared__")) {
          shared = true;
          continue;
        }
        if ((is(n, "__align__") || is(n, "alignas") || is(n, "__attribute__")) &&
            k + 1 < t.size() && is(t[k + 1], "(")) {
          k = match_close(t, k + 1);
          continue;
        }
        if (is(n, "(") || is(n, "{")) break;
        type_tokens.push_back(k);
      }
      if (!shared || k >= t.size() || !is(t[k], ";") || type_tokens.size() < 4) continue;
      // ... type name [ ]
      std::size_t m = type_tokens.size();
      if (!is(t[type_tokens[m - 1]], "]") || !is(t[type_tokens[m - 2]], "[") ||
          t[type_tokens[m - 3]].kind != TokenKind::identifier)
        continue;
      DynamicSharedDecl decl;
      decl.begin = tok.offset;
      decl.end = t[k].offset + 1;
      decl.name = std::string(t[type_tokens[m - 3]].text);
      for (std::size_t j = 0; j + 3 < m; ++j) {
        if (!decl.type.empty()) decl.type += ' ';
        decl.type += t[type_tokens[j]].text;
      }
      decl.namespace_scope = all_namespace(scopes);
      result.dynamic_shared.push_back(decl);
      i = k;
      continue;
    }
  }

  // Which functions synchronize: directly, or by calling one that does
  // (to a fixed point). Unknown callees (library functions) do not.
  const auto& barriers = barrier_names();
  std::map<std::string, bool> uses;
  for (const auto& f : functions) uses[f.name] = uses[f.name] || false;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& f : functions) {
      if (uses[f.name]) continue;
      for (std::size_t k = f.begin; k < f.end && k < t.size(); ++k) {
        if (t[k].kind != TokenKind::identifier) continue;
        auto it = uses.find(std::string(t[k].text));
        if (barriers.count(t[k].text) || (it != uses.end() && it->second) ||
            is(t[k], "this_thread_block") || is(t[k], "tiled_partition") || is(t[k], "this_grid") ||
            is(t[k], "grid_group")) {
          uses[f.name] = true;
          changed = true;
          break;
        }
      }
    }
  }
  for (const auto& [name, u] : uses) result.function_barriers.push_back({name, u});
  for (auto& k : result.kernels) k.uses_barrier = uses[k.name];
  for (const auto& tok : t)
    if (tok.kind == TokenKind::identifier && barriers.count(tok.text)) result.any_barrier = true;
  return result;
}

std::string rewrite_dynamic_shared(std::string_view source, const ScanResult& scan) {
  std::string out;
  std::size_t pos = 0;
  for (const auto& d : scan.dynamic_shared) {
    out.append(source.substr(pos, d.begin - pos));
    if (d.namespace_scope)
      out += "static const ::cudakit_cpu::DynamicShared<" + d.type + "> " + d.name + "{};";
    else
      out += d.type + "* const " + d.name + " = static_cast<" + d.type +
             "*>(::cudakit_cpu::runtime->dynamic_shared());";
    // Keep the line numbers of everything after the declaration.
    for (std::size_t k = d.begin; k < d.end; ++k)
      if (source[k] == '\n') out += '\n';
    pos = d.end;
  }
  out.append(source.substr(pos));
  return out;
}

}  // namespace cudakit::detail::cpu
