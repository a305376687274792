// A kernel's parameter list as compiled: what launch arguments are checked
// against. Sizes, offsets and alignment come from the compiled code (PTX
// .entry, cuFuncGetParamInfo, or the CPU backend's generated table); type
// names from the source signature or the demangled symbol when known.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cudakit {

enum class ParamKind : std::uint8_t {
  pointer,        // T* (device or unified address)
  scalar,         // arithmetic type, see ScalarType
  aggregate,      // struct / array passed by value
  pointer_or_u64  // 8 bytes, unknown whether pointer or 64-bit integer (PTX .u64 without source
                  // info)
};

enum class ScalarType : std::uint8_t {
  unknown,
  boolean,
  i8,
  u8,
  i16,
  u16,
  i32,
  u32,
  i64,
  u64,
  f16,
  bf16,
  f32,
  f64
};

std::string_view to_string(ScalarType type) noexcept;
// Bytes of a value of `type` (1 for bool, 2 for f16/bf16); 0 for unknown.
std::size_t scalar_size(ScalarType type) noexcept;
std::string_view to_string(ParamKind kind) noexcept;

struct Param {
  std::string name;  // from the source; empty if unknown
  std::string type;  // C type as written, e.g. "const float *"; empty if unknown
  ParamKind kind = ParamKind::aggregate;
  ScalarType scalar = ScalarType::unknown;  // for kind == scalar
  std::size_t size = 0;
  std::size_t align = 1;
  std::size_t offset = 0;
  // "parameter 2 'n' (int)"
  std::string describe(std::size_t index) const;
};

struct ParamLayout {
  std::vector<Param> params;
  std::size_t total_bytes() const noexcept;
  // "(const float * a, float * b, int n)"
  std::string signature() const;
};

}  // namespace cudakit
