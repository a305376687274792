// An independent host implementation of Philox4x32-10 (Salmon et al., SC'11)
// and of cudakit's documented counter layout, to check the generated
// kernels' numbers against.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace cudakit_test {

inline std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> c,
                                                  std::array<std::uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c[0];
    const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  return c;
}

// The four words of counter `counter` of a generator with `seed`.
inline std::array<std::uint32_t, 4> words(std::uint64_t seed, std::uint64_t counter) {
  return philox4x32_10(
      {static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32), 0u, 0u},
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

inline float uniform_f32(std::uint64_t seed, std::uint64_t offset, std::uint64_t e) {
  const auto w = words(seed, offset + e / 4);
  return static_cast<float>(w[e % 4] >> 8) * 5.9604644775390625e-08f;
}

inline double uniform_f64(std::uint64_t seed, std::uint64_t offset, std::uint64_t e) {
  const auto w = words(seed, offset + e / 2);
  const std::uint64_t x = ((std::uint64_t{w[2 * (e % 2)]} << 32) | w[2 * (e % 2) + 1]) >> 11;
  return static_cast<double>(x) * 0x1p-53;
}

inline float normal_f32(std::uint64_t seed, std::uint64_t offset, std::uint64_t e) {
  const auto w = words(seed, offset + e / 4);
  const std::size_t pair = (e % 4) / 2;
  const float u1 = static_cast<float>((w[2 * pair] >> 8) + 1u) * 5.9604644775390625e-08f;
  const float u2 = static_cast<float>(w[2 * pair + 1] >> 8) * 5.9604644775390625e-08f;
  const float r = std::sqrt(-2.0f * std::log(u1));
  const float theta = 6.28318530717958647692f * u2;
  return e % 2 == 0 ? r * std::cos(theta) : r * std::sin(theta);
}

inline double normal_f64(std::uint64_t seed, std::uint64_t offset, std::uint64_t e) {
  const auto w = words(seed, offset + e / 2);
  const double u1 = static_cast<double>((((std::uint64_t{w[0]} << 32) | w[1]) >> 11) + 1) * 0x1p-53;
  const double u2 = static_cast<double>(((std::uint64_t{w[2]} << 32) | w[3]) >> 11) * 0x1p-53;
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 6.283185307179586476925286766559 * u2;
  return e % 2 == 0 ? r * std::cos(theta) : r * std::sin(theta);
}

// integers(low, high) for a range of at most 2^32: one word per value.
inline std::int64_t integer32(std::uint64_t seed, std::uint64_t offset, std::uint64_t e,
                              std::int64_t low, std::uint64_t range) {
  const auto w = words(seed, offset + e / 4);
  return low + static_cast<std::int64_t>((std::uint64_t{w[e % 4]} * range) >> 32);
}

// Wider ranges: two words per value, the high half of a 64x64-bit product.
inline std::int64_t integer64(std::uint64_t seed, std::uint64_t offset, std::uint64_t e,
                              std::int64_t low, std::uint64_t range) {
  const auto w = words(seed, offset + e / 2);
  const std::uint64_t x = (std::uint64_t{w[2 * (e % 2)]} << 32) | w[2 * (e % 2) + 1];
  // High half of the 128-bit product, from 32-bit pieces (no __int128 in ISO C++).
  const std::uint64_t x_lo = x & 0xFFFFFFFFu, x_hi = x >> 32, r_lo = range & 0xFFFFFFFFu,
                      r_hi = range >> 32;
  const std::uint64_t lo_lo = x_lo * r_lo, hi_lo = x_hi * r_lo, lo_hi = x_lo * r_hi,
                      hi_hi = x_hi * r_hi;
  const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;
  return low + static_cast<std::int64_t>((hi_lo >> 32) + (cross >> 32) + hi_hi);
}

}  // namespace cudakit_test
