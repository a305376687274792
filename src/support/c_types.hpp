// The C types of kernel signatures, in one place: the tokenizer, the
// argument-list splitter, and what a C type name is (its ScalarType and
// size). The signature scanner, the demangled-name reader, the ArrayView
// check and the array layer's generated-kernel parameters all read C types
// through these, so `size_t`, `long long`, `unsigned char`, `int8_t` or
// `__half` mean the same everywhere.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cudakit/param_layout.hpp"

namespace cudakit {

// The element type an array says it holds, as NumPy's typestr kinds: 'f'
// floating, 'i' signed, 'u' unsigned, 'b' bool, 'c' complex, 'V' records
// (not checked), and its size in bytes; kind 0 when unknown (a bare address).
// A pointer parameter's pointee is one too (kind 'x' for char*, which takes
// either signedness).
struct ElementType {
  char kind = 0;
  unsigned char size = 0;
  // "float32", "int64", "uint8", "bool", "complex64", "12-byte records", "untyped"
  std::string describe() const;
  friend bool operator==(const ElementType&, const ElementType&) = default;
};

}  // namespace cudakit

namespace cudakit::detail {

// Identifiers, numbers, "::" and single punctuation characters. Comments,
// string and character literals and preprocessor lines produce no tokens.
std::vector<std::string_view> tokenize_c(std::string_view source);
bool is_c_identifier(std::string_view token);
// const, volatile, restrict spellings, __grid_constant__, struct/class/typename/enum/union.
bool is_c_qualifier(std::string_view token);
// The words of built-in type names: void, bool, char, short, int, long, float,
// double, signed, unsigned (a declaration ending in one has no name).
bool is_c_builtin_type_word(std::string_view token);

// Splits a comma-separated list at the top level only, respecting (), <>,
// [] and {} nesting: "T<a, b>, int n" -> {"T<a, b>", "int n"}. Each piece is
// trimmed; an empty (or all-blank) list gives no pieces.
std::vector<std::string> split_c_list(std::string_view list);

// One declaration of a parameter list split into its type and its name:
// "const float* __restrict__ x" -> {"const float* __restrict__", "x"}. The
// name is the trailing identifier; an empty name or type means the piece is
// not "type name" (e.g. "float*" alone, or "x").
struct CDeclaration {
  std::string type;
  std::string name;
};
CDeclaration split_c_declaration(std::string_view declaration);

// The type a pointer type points to: "const float * __restrict__" -> "const float ";
// "Pair<int*, float>*" -> "Pair<int*, float>". The type itself when it has no top-level '*'.
std::string pointee_c_type(std::string_view pointer_type);

// The type without qualifiers and namespace prefixes, words joined by one
// space: "const std::uint8_t" -> "uint8_t", "unsigned  long long" -> "unsigned long long".
std::string bare_c_type(std::string_view type);

// What a C type written in a signature is to the launch check.
struct TypeClass {
  bool known = false;  // false: a name we cannot resolve (typedef, struct)
  ParamKind kind = ParamKind::aggregate;
  ScalarType scalar = ScalarType::unknown;
  std::size_t size = 0;  // 0 when not known
};
// bool, char (signed, unsigned), short, int, long, long long in any order and
// signedness, int8_t..uint64_t, size_t, ptrdiff_t, intptr_t, uintptr_t,
// float, double, __half/half, __nv_bfloat16/nv_bfloat16; any pointer.
TypeClass classify_c_type(std::string_view type);

// Whether an array of `element`s may be read through a pointer to `pointee`
// (pointee_element_type): the same size and the same family (integers of
// either sign are the same bits; char* takes any 1-byte integer; a float is
// never an integer). True when either is unknown.
bool pointee_accepts(ElementType pointee, ElementType element) noexcept;

// The arithmetic type a pointer type points to, as an array's element type:
// "const float *__restrict__" -> float32, "unsigned char*" -> uint8,
// "char*" -> kind 'x' (either signedness); kind 0 for void*, structs,
// template parameters, T** and anything that is not a pointer.
ElementType pointee_element_type(std::string_view pointer_type);

}  // namespace cudakit::detail
