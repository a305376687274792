#include "core/compiled_code_format.hpp"

#include <xxhash.h>

#include <cstring>

namespace cudakit::detail {
namespace {

// Fixed little-endian encoding, so that an entry means the same thing on
// every host that shares a cache directory (e.g. over NFS). The writer fills
// a buffer sized exactly beforehand: one allocation, plain copies.
class Writer {
 public:
  explicit Writer(std::size_t size) : out_(size) {}
  void u8(std::uint8_t v) { out_[pos_++] = v; }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_[pos_++] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out_[pos_++] = static_cast<std::uint8_t>(v >> (8 * i));
  }
  void raw(const void* data, std::size_t size) {
    if (size) std::memcpy(out_.data() + pos_, data, size);
    pos_ += size;
  }
  void bytes(const void* data, std::size_t size) {
    u64(size);
    raw(data, size);
  }
  void string(std::string_view s) { bytes(s.data(), s.size()); }
  std::size_t pos() const { return pos_; }
  std::vector<std::uint8_t>& out() { return out_; }

 private:
  std::vector<std::uint8_t> out_;
  std::size_t pos_ = 0;
};

std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(p[i]) << (8 * i);
  return v;
}

std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(p[i]) << (8 * i);
  return v;
}

// A bounds-checked cursor over the payload: every read checks what is left
// first, so garbage lengths end the decode instead of reading past the end.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  bool u8(std::uint8_t& v) {
    if (left() < 1) return false;
    v = bytes_[pos_++];
    return true;
  }
  bool u64(std::uint64_t& v) {
    if (left() < 8) return false;
    v = get_u64(bytes_.data() + pos_);
    pos_ += 8;
    return true;
  }
  // A length-prefixed run of bytes, as a view into the payload.
  bool view(std::span<const std::uint8_t>& v) {
    std::uint64_t size = 0;
    if (!u64(size) || size > left()) return false;
    v = bytes_.subspan(pos_, static_cast<std::size_t>(size));
    pos_ += static_cast<std::size_t>(size);
    return true;
  }
  bool string(std::string& s) {
    std::span<const std::uint8_t> v;
    if (!view(v)) return false;
    s.assign(reinterpret_cast<const char*>(v.data()), v.size());
    return true;
  }
  std::size_t left() const { return bytes_.size() - pos_; }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

std::optional<CompiledCode> fail(std::string* why, const char* reason) {
  if (why) *why = reason;
  return std::nullopt;
}

}  // namespace

std::vector<std::uint8_t> encode_cache_entry(std::string_view key, const CompiledCode& code,
                                             std::uint32_t schema_version) {
  // Each length-prefixed field takes 8 bytes more than its content.
  std::size_t payload_size = 8 + key.size() + 1 + 8 + code.image.size() + 8 + code.ptx.size() + 8 +
                             code.log.size() + 8 + code.arch.size() + 8;
  for (const auto& [expr, lowered] : code.lowered_names)
    payload_size += 16 + expr.size() + lowered.size();

  Writer w(cache_entry_header_bytes + payload_size + cache_entry_trailer_bytes);
  w.raw(cache_entry_magic, sizeof cache_entry_magic);
  w.u32(schema_version);
  w.u32(0);
  w.u64(payload_size);
  w.string(key);
  w.u8(static_cast<std::uint8_t>(code.format));
  w.bytes(code.image.data(), code.image.size());
  w.string(code.ptx);
  w.string(code.log);
  w.string(code.arch);
  w.u64(code.lowered_names.size());
  for (const auto& [expr, lowered] : code.lowered_names) {
    w.string(expr);
    w.string(lowered);
  }
  w.u64(XXH3_64bits(w.out().data() + cache_entry_header_bytes, payload_size));
  return std::move(w.out());
}

std::optional<CompiledCode> decode_cache_entry(std::span<const std::uint8_t> bytes,
                                               std::string_view key, std::uint32_t schema_version,
                                               std::string* why) {
  if (bytes.size() < cache_entry_header_bytes + cache_entry_trailer_bytes)
    return fail(why, "truncated header");
  if (std::memcmp(bytes.data(), cache_entry_magic, sizeof cache_entry_magic) != 0)
    return fail(why, "bad magic");
  if (get_u32(bytes.data() + 8) != schema_version) return fail(why, "other schema version");
  if (get_u32(bytes.data() + 12) != 0) return fail(why, "unknown header flags");
  const std::uint64_t payload_size = get_u64(bytes.data() + 16);
  if (payload_size != bytes.size() - cache_entry_header_bytes - cache_entry_trailer_bytes)
    return fail(why, "length mismatch (truncated or extended)");
  const auto payload =
      bytes.subspan(cache_entry_header_bytes, static_cast<std::size_t>(payload_size));
  const std::uint64_t stored_sum =
      get_u64(bytes.data() + cache_entry_header_bytes + payload.size());
  if (XXH3_64bits(payload.data(), payload.size()) != stored_sum)
    return fail(why, "checksum mismatch");

  Reader in(payload);
  std::string stored_key;
  if (!in.string(stored_key)) return fail(why, "malformed payload");
  if (stored_key != key) return fail(why, "entry belongs to another key");

  CompiledCode code;
  std::uint8_t format = 0;
  if (!in.u8(format) || format > static_cast<std::uint8_t>(CodeFormat::ltoir))
    return fail(why, "malformed payload");
  code.format = static_cast<CodeFormat>(format);
  std::span<const std::uint8_t> image;
  if (!in.view(image)) return fail(why, "malformed payload");
  code.image.assign(image.begin(), image.end());
  if (!in.string(code.ptx) || !in.string(code.log) || !in.string(code.arch))
    return fail(why, "malformed payload");
  std::uint64_t name_count = 0;
  // Each pair takes at least 16 bytes, which bounds a garbage count before
  // anything is reserved.
  if (!in.u64(name_count) || name_count > in.left() / 16) return fail(why, "malformed payload");
  code.lowered_names.resize(static_cast<std::size_t>(name_count));
  for (auto& [expr, lowered] : code.lowered_names)
    if (!in.string(expr) || !in.string(lowered)) return fail(why, "malformed payload");
  if (in.left() != 0) return fail(why, "malformed payload (trailing bytes)");
  return code;
}

}  // namespace cudakit::detail
