#include "array/random_philox.hpp"

namespace cudakit::detail {

std::string_view philox_device_source() noexcept {
  // The multiply-high is written as a 64-bit product so the same text is
  // exact on the GPU (mul.wide.u32) and in host C++; no intrinsics, so the
  // CPU backend needs nothing special to run it.
  return R"(// Philox4x32-10: four 32-bit words from a 128-bit counter and a 64-bit key.
struct ck_philox_words { unsigned int v[4]; };

__device__ __forceinline__ ck_philox_words ck_philox4x32_10(unsigned long long counter_lo,
                                                            unsigned long long counter_hi,
                                                            unsigned long long key) {
  unsigned int c0 = (unsigned int)counter_lo, c1 = (unsigned int)(counter_lo >> 32);
  unsigned int c2 = (unsigned int)counter_hi, c3 = (unsigned int)(counter_hi >> 32);
  unsigned int k0 = (unsigned int)key, k1 = (unsigned int)(key >> 32);
  for (int round = 0; round < 10; ++round) {
    unsigned long long p0 = (unsigned long long)0xD2511F53u * c0;
    unsigned long long p1 = (unsigned long long)0xCD9E8D57u * c2;
    unsigned int hi0 = (unsigned int)(p0 >> 32), lo0 = (unsigned int)p0;
    unsigned int hi1 = (unsigned int)(p1 >> 32), lo1 = (unsigned int)p1;
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  ck_philox_words out;
  out.v[0] = c0; out.v[1] = c1; out.v[2] = c2; out.v[3] = c3;
  return out;
}

// [0, 1) with 24 random bits: every value is exact in float.
__device__ __forceinline__ float ck_uniform_f32(unsigned int w) {
  return (float)(w >> 8) * 5.9604644775390625e-08f;
}
// (0, 1]: for the logarithm in Box-Muller.
__device__ __forceinline__ float ck_uniform_open_f32(unsigned int w) {
  return (float)((w >> 8) + 1u) * 5.9604644775390625e-08f;
}
// [0, 1) with 53 random bits.
__device__ __forceinline__ double ck_uniform_f64(unsigned int hi, unsigned int lo) {
  unsigned long long x = (((unsigned long long)hi << 32) | lo) >> 11;
  return (double)x * 1.1102230246251565404236316680908203125e-16;
}
__device__ __forceinline__ double ck_uniform_open_f64(unsigned int hi, unsigned int lo) {
  unsigned long long x = ((((unsigned long long)hi << 32) | lo) >> 11) + 1ull;
  return (double)x * 1.1102230246251565404236316680908203125e-16;
}
// High 64 bits of a 64x64-bit product, portable.
__device__ __forceinline__ unsigned long long ck_mulhi64(unsigned long long a,
                                                         unsigned long long b) {
  unsigned long long a_lo = a & 0xFFFFFFFFull, a_hi = a >> 32;
  unsigned long long b_lo = b & 0xFFFFFFFFull, b_hi = b >> 32;
  unsigned long long lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo;
  unsigned long long lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  unsigned long long cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFull) + lo_hi;
  return (hi_lo >> 32) + (cross >> 32) + hi_hi;
}
)";
}

}  // namespace cudakit::detail
