// The linear filter's arithmetic on the CPU backend (appended to the prelude
// before cudakit_cpu_texture.h): where a fetch starts, the corner weights and
// how each texel format blends, as an H200 does it bit for bit (probed:
// tests/python/test_textures_cpu.py and test_textures_arrays.py hold the
// measured values, tests/gpu/texture_parity_gpu_test.cpp the two backends to
// each other).
#ifndef CUDAKIT_CPU_TEXTURE_FILTER_H
#define CUDAKIT_CPU_TEXTURE_FILTER_H

namespace cudakit_cpu {

// Where linear filtering and gather start: the GPU rounds the texel
// coordinate to 8 fractional bits, halves up (measured on an H200: x = 0.5 +
// 0.5/256 gives the weight 1/256, x = 1.5 - 0.5/256 the next texel), then
// takes the lower texel of x - 0.5 and the weight of the upper one in 1/256.
struct FilterStart {
  int base;
  int weight;  // of the upper texel, in 1/256
};
static inline FilterStart filter_start(double u) {
  const double fixed = floor(u * 256.0 + 0.5);
  if (!(fixed > -1e15 && fixed < 1e15)) return {u < 0 ? -(1 << 30) : (1 << 30), 0};  // NaN, huge
  const long long q = static_cast<long long>(fixed) - 128;
  const long long base = q >= 0 ? q / 256 : -((-q + 255) / 256);
  return {static_cast<int>(base), static_cast<int>(q - base * 256)};
}
// The weights of the 2^dims texels around a linear fetch, in 1/256 (corner k
// takes the upper texel along dimension d where bit d of k is set), as an
// H200 weighs them (measured for every corner): each z layer L (256 - c or
// c; L = 256 in 2-D) takes A = round(a * L / 256) for the upper x texels and
// L - A for the lower ones; the upper x texels split A by y into
// round(A * b / 256) and the rest, the lower x texels split L - A into
// round((L - A) * b / 256) with halves going down, and the rest (products
// rounded halves up unless said).
static inline int rounded_product(int x, int y) { return (x * y + 128) >> 8; }
static inline void corner_weights(int dims, const int weight[3], int out[8]) {
  if (dims == 1) {
    out[0] = 256 - weight[0], out[1] = weight[0];
    return;
  }
  const int a = weight[0], b = weight[1];
  for (int z = 0; z < (dims == 3 ? 2 : 1); ++z) {
    const int layer = dims == 2 ? 256 : (z ? weight[2] : 256 - weight[2]);
    const int upper_x = rounded_product(a, layer), lower_x = layer - upper_x;
    const int upper_xy = rounded_product(upper_x, b), lower_x_upper_y = (lower_x * b + 127) >> 8;
    out[4 * z + 3] = upper_xy, out[4 * z + 1] = upper_x - upper_xy;
    out[4 * z + 2] = lower_x_upper_y, out[4 * z + 0] = lower_x - lower_x_upper_y;
  }
}

// What the linear filter does with 8/16-bit integer texels read as
// normalized floats (measured bit for bit on an H200): it blends the raw
// values v with the integer corner weights into R = sum(weight * v) (v in
// 1/256) and rounds R to a 16-bit normalized value G (arithmetic shifts):
//   unsigned 8-bit   G = R + ((R + 128) >> 8)               returns G / 65535
//   signed 8-bit     G = R + ((R + 64 + 16 * (R >> 12)) >> 7)   G / 32767
//   unsigned 16-bit  G = (R + 128) >> 8                         G / 65535
//   signed 16-bit    G = (R + 128) >> 8                         G / 32767
// The signed 8-bit rule approximates R * 32767 / 32512; -128 enters the
// blend as itself and G is clamped to +-32767 (measured; a signed 16-bit G
// is clamped the same way by analogy, -32768 texels were not measured).
static inline double fixed_point_filter_result(unsigned format, long long blend) {
  switch (format) {
    case 0x01:
      return static_cast<double>(blend + ((blend + 128) >> 8)) / 65535.0;
    case 0x02:
      return static_cast<double>((blend + 128) >> 8) / 65535.0;
    case 0x08: {
      const long long steps = blend + ((blend + 64 + ((blend >> 12) << 4)) >> 7);
      return static_cast<double>(steps < -32767 ? -32767 : (steps > 32767 ? 32767 : steps)) /
             32767.0;
    }
    default: {
      const long long steps = (blend + 128) >> 8;
      return static_cast<double>(steps < -32767 ? -32767 : steps) / 32767.0;
    }
  }
}
// What the linear filter does with float and half texels (measured on an
// H200): in each z layer (the whole fetch in 1-D and 2-D) the texels of the
// corners that weigh anything are cut toward zero to 4 bits more than the
// format has (28 significant bits for float, 15 for half) below the leading
// bit of the largest of them; the layers are blended exactly with the
// integer corner weights and the sum rounded to the format, to the nearest
// with halves away from zero. Bit for bit in 1-D and 2-D; in 3-D all but
// about 2 in 100,000 fetches, where the two layers cancel (one unit in the
// last place). Non-finite texels blend as they are.
static inline double nearest_away(double x, int bits, int min_exponent, double largest) {
  if (x == 0 || !(x - x == 0)) return x;
  int e;
  std::frexp(std::fabs(x), &e);  // |x| = m * 2^e, 0.5 <= m < 1
  const double q = std::ldexp(1.0, e - bits < min_exponent ? min_exponent : e - bits);
  const double r = std::floor(std::fabs(x) / q + 0.5) * q;
  const double h = r > largest ? HUGE_VAL : r;
  return x < 0 ? -h : h;
}
// One layer's weighted sum (in 1/256), its texels cut as above.
static inline double float_layer_sum(const double* texel, const int* corner, int corners,
                                     int bits) {
  int top = 0;
  bool weighed = false;
  for (int k = 0; k < corners; ++k) {
    if (corner[k] == 0 || texel[k] == 0) continue;
    int e;
    std::frexp(texel[k], &e);
    top = weighed && top > e ? top : e;
    weighed = true;
  }
  if (!weighed) return 0.0;
  const double q = std::ldexp(1.0, top - bits - 4);
  double sum = 0;
  for (int k = 0; k < corners; ++k) sum += std::trunc(texel[k] / q) * q * corner[k];
  return sum;
}
static inline double float_filter_result(const double* texel, const int* corner, int corners,
                                         bool half) {
  double sum = 0;
  for (int k = 0; k < corners; ++k)
    if (corner[k] != 0 && !(texel[k] - texel[k] == 0)) {  // inf or NaN
      for (int j = 0; j < corners; ++j)
        if (corner[j] != 0) sum += corner[j] / 256.0 * texel[j];
      return sum;
    }
  const int bits = half ? 11 : 24, layer = corners < 4 ? corners : 4;
  for (int first = 0; first < corners; first += layer)
    sum += float_layer_sum(texel + first, corner + first, layer, bits);
  return half ? nearest_away(sum / 256.0, 11, -24, 65504.0)
              : nearest_away(sum / 256.0, 24, -149, 3.4028234663852886e38);
}
}  // namespace cudakit_cpu

#endif  // CUDAKIT_CPU_TEXTURE_FILTER_H
