#include "cudakit/param_layout.hpp"

#include <string>

namespace cudakit {

std::string_view to_string(ScalarType type) noexcept {
  switch (type) {
    case ScalarType::boolean:
      return "bool";
    case ScalarType::i8:
      return "int8";
    case ScalarType::u8:
      return "uint8";
    case ScalarType::i16:
      return "int16";
    case ScalarType::u16:
      return "uint16";
    case ScalarType::i32:
      return "int32";
    case ScalarType::u32:
      return "uint32";
    case ScalarType::i64:
      return "int64";
    case ScalarType::u64:
      return "uint64";
    case ScalarType::f16:
      return "float16";
    case ScalarType::bf16:
      return "bfloat16";
    case ScalarType::f32:
      return "float32";
    case ScalarType::f64:
      return "float64";
    case ScalarType::unknown:
      break;
  }
  return "unknown";
}

std::size_t scalar_size(ScalarType type) noexcept {
  switch (type) {
    case ScalarType::boolean:
    case ScalarType::i8:
    case ScalarType::u8:
      return 1;
    case ScalarType::i16:
    case ScalarType::u16:
    case ScalarType::f16:
    case ScalarType::bf16:
      return 2;
    case ScalarType::i32:
    case ScalarType::u32:
    case ScalarType::f32:
      return 4;
    case ScalarType::i64:
    case ScalarType::u64:
    case ScalarType::f64:
      return 8;
    case ScalarType::unknown:
      break;
  }
  return 0;
}

std::string_view to_string(ParamKind kind) noexcept {
  switch (kind) {
    case ParamKind::pointer:
      return "pointer";
    case ParamKind::scalar:
      return "scalar";
    case ParamKind::aggregate:
      return "aggregate";
    case ParamKind::pointer_or_u64:
      return "pointer or 64-bit integer";
  }
  return "unknown";
}

namespace {
// What a parameter is when the source did not say: "float32", "8-byte pointer", "16-byte
// aggregate".
std::string type_text(const Param& p) {
  if (!p.type.empty()) return p.type;
  if (p.kind == ParamKind::scalar && p.scalar != ScalarType::unknown)
    return std::string(to_string(p.scalar));
  return std::to_string(p.size) + "-byte " + std::string(to_string(p.kind));
}
}  // namespace

std::string Param::describe(std::size_t index) const {
  std::string out = "parameter " + std::to_string(index);
  if (!name.empty()) out += " '" + name + "'";
  out += " (" + type_text(*this) + ")";
  return out;
}

std::size_t ParamLayout::total_bytes() const noexcept {
  std::size_t end = 0;
  for (const auto& p : params)
    if (p.offset + p.size > end) end = p.offset + p.size;
  return end;
}

std::string ParamLayout::signature() const {
  std::string out = "(";
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) out += ", ";
    out += type_text(params[i]);
    if (!params[i].name.empty()) out += " " + params[i].name;
  }
  return out + ")";
}

}  // namespace cudakit
