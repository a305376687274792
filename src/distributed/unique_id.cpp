#include <algorithm>

#include "backend/comm_backend.hpp"
#include "cudakit/communicator.hpp"
#include "cudakit/error.hpp"

namespace cudakit {

std::string_view to_string(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum:
      return "sum";
    case ReduceOp::prod:
      return "prod";
    case ReduceOp::max:
      return "max";
    case ReduceOp::min:
      return "min";
    case ReduceOp::avg:
      return "avg";
  }
  return "unknown";
}

UniqueId UniqueId::from_bytes(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != size)
    throw ArgumentError(
        "making a UniqueId from bytes",
        "got " + std::to_string(bytes.size()) + " bytes, a unique id has " + std::to_string(size),
        "pass the bytes of get_unique_id() unchanged");
  UniqueId id;
  std::copy(bytes.begin(), bytes.end(), id.bytes_.begin());
  return id;
}

UniqueId UniqueId::from_hex(std::string_view hex) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  const char* const context = "making a UniqueId from hex text";
  if (hex.size() != 2 * size)
    throw ArgumentError(context,
                        "got " + std::to_string(hex.size()) + " characters, a unique id is " +
                            std::to_string(2 * size) + " hex digits",
                        "pass the text of UniqueId::to_hex() unchanged");
  UniqueId id;
  for (std::size_t i = 0; i < size; ++i) {
    const int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      throw ArgumentError(
          context,
          "character " + std::to_string(hi < 0 ? 2 * i : 2 * i + 1) + " is not a hex digit",
          "pass the text of UniqueId::to_hex() unchanged");
    id.bytes_[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return id;
}

std::string UniqueId::to_hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * size);
  for (std::uint8_t b : bytes_) {
    text.push_back(digits[b >> 4]);
    text.push_back(digits[b & 15]);
  }
  return text;
}

UniqueId get_unique_id(BackendKind kind) {
  const detail::UniqueIdBytes bytes = detail::comm_backend_of(detail::backend(kind)).unique_id();
  return UniqueId::from_bytes(bytes);
}

}  // namespace cudakit
