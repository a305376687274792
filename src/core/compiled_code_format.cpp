#include "core/compiled_code_format.hpp"

#include <cstring>
#include <xxhash.h>

namespace cudakit::detail {
namespace {

// Fixed little-endian encoding, so that an entry means the same thing on
// every host that shares a cache directory (e.g. over NFS).
void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void put_bytes(std::vector<std::uint8_t>& out, const void* data, std::size_t size) {
  put_u64(out, size);
  const auto* p = static_cast<const std::uint8_t*>(data);
  out.insert(out.end(), p, p + size);
}

void put_string(std::vector<std::uint8_t>& out, std::string_view s) {
  put_bytes(out, s.data(), s.size());
}

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
  std::size_t payload_estimate = 8 * 8 + key.size() + code.image.size() + code.ptx.size() +
                                 code.log.size() + code.arch.size();
  for (const auto& [expr, lowered] : code.lowered_names)
    payload_estimate += 16 + expr.size() + lowered.size();

  std::vector<std::uint8_t> out;
  out.reserve(cache_entry_header_bytes + payload_estimate + cache_entry_trailer_bytes);
  out.insert(out.end(), std::begin(cache_entry_magic), std::end(cache_entry_magic));
  put_u32(out, schema_version);
  put_u32(out, 0);
  put_u64(out, 0);  // payload length, patched below
  const std::size_t payload_start = out.size();

  put_string(out, key);
  out.push_back(static_cast<std::uint8_t>(code.format));
  put_bytes(out, code.image.data(), code.image.size());
  put_string(out, code.ptx);
  put_string(out, code.log);
  put_string(out, code.arch);
  put_u64(out, code.lowered_names.size());
  for (const auto& [expr, lowered] : code.lowered_names) {
    put_string(out, expr);
    put_string(out, lowered);
  }

  const std::size_t payload_size = out.size() - payload_start;
  for (int i = 0; i < 8; ++i)
    out[16 + i] = static_cast<std::uint8_t>(std::uint64_t(payload_size) >> (8 * i));
  put_u64(out, XXH3_64bits(out.data() + payload_start, payload_size));
  return out;
}

std::optional<CompiledCode> decode_cache_entry(std::span<const std::uint8_t> bytes,
                                               std::string_view key,
                                               std::uint32_t schema_version, std::string* why) {
  if (bytes.size() < cache_entry_header_bytes + cache_entry_trailer_bytes)
    return fail(why, "truncated header");
  if (std::memcmp(bytes.data(), cache_entry_magic, sizeof cache_entry_magic) != 0)
    return fail(why, "bad magic");
  if (get_u32(bytes.data() + 8) != schema_version) return fail(why, "other schema version");
  if (get_u32(bytes.data() + 12) != 0) return fail(why, "unknown header flags");
  const std::uint64_t payload_size = get_u64(bytes.data() + 16);
  if (payload_size != bytes.size() - cache_entry_header_bytes - cache_entry_trailer_bytes)
    return fail(why, "length mismatch (truncated or extended)");
  const auto payload = bytes.subspan(cache_entry_header_bytes, static_cast<std::size_t>(payload_size));
  const std::uint64_t stored_sum = get_u64(bytes.data() + cache_entry_header_bytes + payload.size());
  if (XXH3_64bits(payload.data(), payload.size()) != stored_sum)
    return fail(why, "checksum mismatch");

  Reader in(payload);
  std::string stored_key;
  if (!in.string(stored_key)) return fail(why, "malformed payload");
  if (stored_key != key) return fail(why, "entry belongs to another key");

  CompiledCode code;
  std::uint8_t format = 0;
  if (!in.u8(format) || format > static_cast<std::uint8_t>(CodeFormat::host_object))
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
