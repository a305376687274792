// Which parts of a CUDA C source the preprocessor keeps, as far as the CPU
// backend's scanner can tell without running it. #if / #ifdef / #ifndef /
// #elif / #else / #endif are evaluated over the macros known for certain:
// those the source defines itself (#define NAME <integer expression>,
// #undef), the compile options' -D defines and the prelude's own
// (__CUDAKIT_CPU__, __CUDA_ARCH__). A condition that needs anything else (a
// macro from a header, a function-like macro, a character literal) is
// unknown: its region is scanned as if kept, and whatever the scanner finds
// there carries the condition's text, so the code generated after the source
// can wrap it in the same #if and let the host compiler decide.
//
// A region known to be dropped is not scanned at all: a kernel, a
// __device__ variable or an asm statement under `#if 0`, `#ifndef
// __CUDAKIT_CPU__` or `#if FLAG` with `#define FLAG 0` is not there, as
// for the compiler. An include guard (`#ifndef X` then at once `#define X`)
// counts as kept.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudakit::detail::cpu {

// The branch of one #if chain a declaration sits in: (chain, branch), the
// chain numbered in the order the chains open, the branch counted from 0 at
// the #if. Two declarations are never both kept when they sit in different
// branches of one chain.
using ConditionalBranch = std::pair<int, int>;

bool mutually_exclusive(const std::vector<ConditionalBranch>& a,
                        const std::vector<ConditionalBranch>& b);

// The value of a preprocessor #if expression over `known` macros (name ->
// value, nullopt for a macro defined to something that is not an integer)
// and `undefined` ones; nullopt when it cannot be told (an unknown name, a
// function-like macro, a character literal, a division by zero).
std::optional<long long> evaluate_condition(
    std::string_view expression, const std::map<std::string, std::optional<long long>>& known,
    const std::set<std::string>& undefined);

class ConditionTracker {
 public:
  // `defines`: the compile options' -D NAME[=VALUE] (an empty value is 1).
  explicit ConditionTracker(const std::vector<std::pair<std::string, std::string>>& defines);

  // A directive line: its keyword ("if", "ifdef", "define", "endif", ...)
  // and its text after the keyword, comments removed.
  void directive(std::string_view keyword, std::string_view text);

  // Whether the text from here on may be kept (false: known to be dropped).
  bool kept() const;
  // The conjunction of the open conditions that cannot be told, as
  // preprocessor text; empty when none is open.
  std::string condition() const;
  std::vector<ConditionalBranch> branches() const;

 private:
  struct Frame {
    bool parent_kept = true;
    std::optional<bool> value;  // this branch: kept, dropped or unknown
    bool taken = false;         // an earlier branch of the chain was kept for certain
    std::vector<std::string> unknown_earlier;  // texts of earlier branches of unknown value
    std::string own;                           // this branch's own expression
    std::string text;                          // this branch's condition for wrapping
    int chain = 0;
    int branch = 0;
    // #ifndef X: an include guard if the next directive defines X (cleared
    // by the next directive, whatever it is).
    std::string guard;
  };
  void open_branch(Frame& f, std::optional<long long> value, const std::string& text);
  void define(std::string_view text);

  std::vector<Frame> frames_;
  std::map<std::string, std::optional<long long>> known_;
  std::set<std::string> undefined_;
  int chains_ = 0;
};

}  // namespace cudakit::detail::cpu
