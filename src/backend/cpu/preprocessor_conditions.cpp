#include "backend/cpu/preprocessor_conditions.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <utility>

namespace cudakit::detail::cpu {
namespace {

using Value = std::optional<long long>;

struct ExprToken {
  enum class Kind { number, identifier, op, unknown, end } kind;
  std::string text;
  long long value = 0;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// An integer literal as the preprocessor reads it (0x, 0b, octal, digit
// separators, u/l suffixes); nullopt for anything else (a float).
Value integer_literal(std::string text) {
  std::string digits;
  for (char c : text)
    if (c != '\'') digits += c;
  while (!digits.empty() && (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' ||
                             digits.back() == 'L'))
    digits.pop_back();
  int base = 10;
  std::size_t at = 0;
  if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    at = 2;
  } else if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
    base = 2;
    at = 2;
  } else if (digits.size() > 1 && digits[0] == '0') {
    base = 8;
    at = 1;
  }
  if (at >= digits.size()) return base == 8 ? Value(0) : std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(digits.c_str() + at, &end, base);
  if (errno != 0 || end != digits.c_str() + digits.size()) return std::nullopt;
  return static_cast<long long>(v);
}

std::vector<ExprToken> lex(std::string_view s) {
  static const char* const two_char[] = {"&&", "||", "==", "!=", "<=", ">=", "<<", ">>"};
  std::vector<ExprToken> out;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (ident_start(c)) {
      std::size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      out.push_back({ExprToken::Kind::identifier, std::string(s.substr(i, j - i))});
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < s.size() && (ident_char(s[j]) || s[j] == '\'' || s[j] == '.')) ++j;
      const std::string text(s.substr(i, j - i));
      const Value v = integer_literal(text);
      out.push_back({v ? ExprToken::Kind::number : ExprToken::Kind::unknown, text, v.value_or(0)});
      i = j;
      continue;
    }
    if (c == '\'' || c == '"') {  // a character or string literal: not told here
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != c) j += s[j] == '\\' ? 2 : 1;
      out.push_back({ExprToken::Kind::unknown, std::string(s.substr(i, j + 1 - i))});
      i = j + 1;
      continue;
    }
    std::string op(1, c);
    for (const char* two : two_char)
      if (s.substr(i, 2) == two) op = two;
    out.push_back({ExprToken::Kind::op, op});
    i += op.size();
  }
  out.push_back({ExprToken::Kind::end, ""});
  return out;
}

// A recursive-descent reading of the #if grammar, each value known or not:
// `0 && x` is 0 and `1 || x` is 1 whatever x is, as the preprocessor
// short-circuits; anything else with an unknown operand is unknown.
class Evaluator {
 public:
  Evaluator(std::vector<ExprToken> tokens,
            const std::map<std::string, std::optional<long long>>& known,
            const std::set<std::string>& undefined)
      : t_(std::move(tokens)), known_(known), undefined_(undefined) {}

  Value evaluate() {
    Value v = conditional();
    if (failed_ || t_[pos_].kind != ExprToken::Kind::end) return std::nullopt;
    return v;
  }

 private:
  const ExprToken& peek() const { return t_[pos_]; }
  bool take(std::string_view op) {
    if (peek().kind == ExprToken::Kind::op && peek().text == op) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool is_known(const Value& v, long long x) const { return v && *v == x; }

  Value conditional() {
    Value c = logical_or();
    if (!take("?")) return c;
    Value a = conditional();
    if (!take(":")) failed_ = true;
    Value b = conditional();
    if (c) return *c ? a : b;
    return a && b && *a == *b ? a : std::nullopt;
  }
  Value logical_or() {
    Value l = logical_and();
    while (take("||")) {
      Value r = logical_and();
      if ((l && *l) || (r && *r))
        l = 1;
      else
        l = l && r ? Value(0) : std::nullopt;
    }
    return l;
  }
  Value logical_and() {
    Value l = binary(0);
    while (take("&&")) {
      Value r = binary(0);
      if (is_known(l, 0) || is_known(r, 0))
        l = 0;
      else
        l = l && r ? Value(1) : std::nullopt;
    }
    return l;
  }
  Value binary(int level) {
    static const std::vector<std::vector<std::string>> levels = {
        {"|"},        {"^"},      {"&"},          {"==", "!="}, {"<", ">", "<=", ">="},
        {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(levels.size())) return unary();
    Value l = binary(level + 1);
    for (;;) {
      std::string op;
      for (const auto& candidate : levels[std::size_t(level)])
        if (peek().kind == ExprToken::Kind::op && peek().text == candidate) op = candidate;
      if (op.empty()) return l;
      ++pos_;
      Value r = binary(level + 1);
      l = apply(op, l, r);
    }
  }
  // Wrapping arithmetic (through unsigned), so no input is undefined
  // behaviour here; the preprocessor's own overflow rules do not matter for
  // telling a region kept or dropped.
  static long long wrap(unsigned long long v) { return static_cast<long long>(v); }
  static Value apply(const std::string& op, Value l, Value r) {
    if (!l || !r) return std::nullopt;
    const long long a = *l, b = *r;
    const auto ua = static_cast<unsigned long long>(a), ub = static_cast<unsigned long long>(b);
    if (op == "|") return a | b;
    if (op == "^") return a ^ b;
    if (op == "&") return a & b;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<") return a < b;
    if (op == ">") return a > b;
    if (op == "<=") return a <= b;
    if (op == ">=") return a >= b;
    if (op == "<<" || op == ">>") {
      if (b < 0 || b > 62) return std::nullopt;
      return op == "<<" ? wrap(ua << b) : a >> b;
    }
    if (op == "+") return wrap(ua + ub);
    if (op == "-") return wrap(ua - ub);
    if (op == "*") return wrap(ua * ub);
    if (b == 0 || (b == -1 && a == std::numeric_limits<long long>::min())) return std::nullopt;
    return op == "/" ? a / b : a % b;
  }
  Value unary() {
    if (take("!")) {
      Value v = unary();
      return v ? Value(!*v) : std::nullopt;
    }
    if (take("-")) {
      Value v = unary();
      return v ? Value(wrap(0ull - static_cast<unsigned long long>(*v))) : std::nullopt;
    }
    if (take("~")) {
      Value v = unary();
      return v ? Value(~*v) : std::nullopt;
    }
    if (take("+")) return unary();
    return primary();
  }
  Value primary() {
    const ExprToken tok = peek();
    ++pos_;
    switch (tok.kind) {
      case ExprToken::Kind::number:
        return tok.value;
      case ExprToken::Kind::unknown:
        return std::nullopt;
      case ExprToken::Kind::end:
        failed_ = true;
        return std::nullopt;
      case ExprToken::Kind::op:
        if (tok.text == "(") {
          Value v = conditional();
          if (!take(")")) failed_ = true;
          return v;
        }
        failed_ = true;
        return std::nullopt;
      case ExprToken::Kind::identifier:
        break;
    }
    if (tok.text == "defined") {
      const bool paren = take("(");
      if (peek().kind != ExprToken::Kind::identifier) {
        failed_ = true;
        return std::nullopt;
      }
      const std::string name = peek().text;
      ++pos_;
      if (paren && !take(")")) failed_ = true;
      if (known_.count(name)) return 1;
      if (undefined_.count(name)) return 0;
      return std::nullopt;
    }
    if (take("(")) {  // a function-like macro's call: its arguments skipped
      for (int depth = 1; depth > 0 && peek().kind != ExprToken::Kind::end; ++pos_) {
        if (peek().kind == ExprToken::Kind::op && peek().text == "(") ++depth;
        if (peek().kind == ExprToken::Kind::op && peek().text == ")") --depth;
      }
      return std::nullopt;
    }
    if (auto it = known_.find(tok.text); it != known_.end()) return it->second;
    if (undefined_.count(tok.text)) return 0;
    if (tok.text == "true") return 1;
    if (tok.text == "false") return 0;
    return std::nullopt;
  }

  std::vector<ExprToken> t_;
  const std::map<std::string, std::optional<long long>>& known_;
  const std::set<std::string>& undefined_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

// The identifier a directive's text starts with ("X" of "X 1" or "X(a) a").
std::string leading_name(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t j = i;
  while (j < text.size() && ident_char(text[j])) ++j;
  return std::string(text.substr(i, j - i));
}

}  // namespace

bool mutually_exclusive(const std::vector<ConditionalBranch>& a,
                        const std::vector<ConditionalBranch>& b) {
  for (const auto& [chain, branch] : a)
    for (const auto& [other_chain, other_branch] : b)
      if (chain == other_chain && branch != other_branch) return true;
  return false;
}

std::optional<long long> evaluate_condition(
    std::string_view expression, const std::map<std::string, std::optional<long long>>& known,
    const std::set<std::string>& undefined) {
  return Evaluator(lex(expression), known, undefined).evaluate();
}

ConditionTracker::ConditionTracker(
    const std::vector<std::pair<std::string, std::string>>& defines) {
  // The prelude's own: the CPU backend, and a device architecture so that
  // device-code branches on __CUDA_ARCH__ are taken.
  known_["__CUDAKIT_CPU__"] = 1;
  known_["__CUDA_ARCH__"] = 900;
  for (const auto& [name, value] : defines)
    known_[name] = value.empty() ? Value(1) : evaluate_condition(value, known_, undefined_);
}

bool ConditionTracker::kept() const {
  return frames_.empty() || (frames_.back().parent_kept && frames_.back().value != false);
}

std::string ConditionTracker::condition() const {
  std::string out;
  for (const Frame& f : frames_)
    if (!f.value) out += (out.empty() ? "(" : " && (") + f.text + ")";
  return out;
}

std::vector<ConditionalBranch> ConditionTracker::branches() const {
  std::vector<ConditionalBranch> out;
  for (const Frame& f : frames_) out.emplace_back(f.chain, f.branch);
  return out;
}

void ConditionTracker::open_branch(Frame& f, std::optional<long long> value,
                                   const std::string& text) {
  if (!f.parent_kept || f.taken) {
    f.value = false;
    f.text.clear();
    return;
  }
  if (value && *value == 0) {
    f.value = false;
  } else if (!f.unknown_earlier.empty() || !value) {
    f.value = std::nullopt;
  } else {
    f.value = true;
  }
  f.text.clear();
  for (const std::string& earlier : f.unknown_earlier) f.text += "!(" + earlier + ") && ";
  f.text += "(" + text + ")";
}

void ConditionTracker::define(std::string_view text) {
  const std::string name = leading_name(text);
  if (name.empty()) return;
  undefined_.erase(name);
  std::size_t after = text.find(name) + name.size();
  if (after < text.size() && text[after] == '(') {  // function-like: defined, no value
    known_[name] = std::nullopt;
    return;
  }
  const std::string_view body = text.substr(after);
  const bool empty = body.find_first_not_of(" \t") == std::string_view::npos;
  known_[name] = empty ? std::nullopt : evaluate_condition(body, known_, undefined_);
}

void ConditionTracker::directive(std::string_view keyword, std::string_view text) {
  // Only the directive right after an #ifndef can make it an include guard.
  const std::string guard =
      frames_.empty() ? std::string() : std::exchange(frames_.back().guard, {});
  const std::string written(text);
  if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef") {
    Frame f;
    f.parent_kept = kept();
    f.chain = ++chains_;
    std::string expression = written;
    if (keyword != "if") {
      const std::string name = leading_name(text);
      expression = (keyword == "ifndef" ? "!defined(" : "defined(") + name + ")";
      if (keyword == "ifndef") f.guard = name;
    }
    f.own = expression;
    open_branch(f, f.parent_kept ? evaluate_condition(expression, known_, undefined_) : Value(0),
                expression);
    frames_.push_back(std::move(f));
    return;
  }
  if (keyword == "elif" || keyword == "elifdef" || keyword == "elifndef" || keyword == "else") {
    if (frames_.empty()) return;
    Frame& f = frames_.back();
    if (f.value == true) f.taken = true;
    if (!f.value) f.unknown_earlier.push_back(f.own);
    ++f.branch;
    std::string expression = keyword == "else" ? "1" : written;
    if (keyword == "elifdef" || keyword == "elifndef")
      expression = (keyword == "elifndef" ? "!defined(" : "defined(") + leading_name(text) + ")";
    f.own = expression;
    open_branch(f, evaluate_condition(expression, known_, undefined_), expression);
    return;
  }
  if (keyword == "endif") {
    if (!frames_.empty()) frames_.pop_back();
    return;
  }
  if (keyword == "define" || keyword == "undef") {
    const std::string name = leading_name(text);
    // An include guard: `#ifndef X` at once followed by `#define X`.
    if (keyword == "define" && !guard.empty() && guard == name && frames_.back().parent_kept) {
      frames_.back().value = true;
      frames_.back().text.clear();
    }
    if (!kept()) return;
    if (!condition().empty()) {  // kept or not, the compiler decides: the macro is unknown
      known_.erase(name);
      undefined_.erase(name);
      return;
    }
    if (keyword == "define") {
      define(text);
    } else {
      known_.erase(name);
      undefined_.insert(name);
    }
  }
}

}  // namespace cudakit::detail::cpu
