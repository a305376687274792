// Step 5 of the mean filter checklist (mean_filter_steps.hpp): column strips
// walked down many rows, packed-byte arithmetic, warp shuffles for the
// horizontal halo, loads issued several rows ahead. One kernel text; each
// variant is that text under a few #defines:
//   ROWS          output rows a thread walks down (input read (ROWS+2)/ROWS times)
//   AHEAD         rows whose loads are in flight while a row is computed
//   HALO_SHUFFLE  1: the 4 bytes either side of a strip come from the
//                 neighbouring lanes (__shfl_up/down_sync), only the lanes at
//                 a warp's edges load them; 0: every thread loads them
#pragma once

#include <cudakit/error.hpp>
#include <cudakit/launch_config.hpp>
#include <string>

namespace cudakit::workloads {

struct MeanFilterStripsParams {
  int rows = 16;
  int ahead = 4;
  bool halo_shuffle = true;
};

// The kernel text after the #defines. Why it is shaped this way:
// - A byte's same-channel horizontal neighbours in an interleaved RGB row
//   are 3 bytes away whatever its channel, so a row is filtered as bytes.
// - Each thread owns a 16-byte column strip (one uint4 load and store per
//   row) and keeps the horizontal 3-sums of the last three rows in
//   registers: every input row is loaded once per strip.
// - The sums are computed four bytes at a time: a word's bytes 3 to the
//   left and right are funnel shifts of it and its neighbour words, and the
//   even and odd bytes are summed in 16-bit lanes (a 9-sum is at most 2295,
//   so lanes never carry into each other).
// - floor(s / 9) for s <= 2295 is exactly (s * 1821) >> 14; on a lane at
//   bit 16 that is __umulhi(word, 4 * 1821) (the low lane adds less than
//   0.004, which never crosses an integer there; checked exhaustively).
// - Border bytes (the first and last pixel of a row, the first and last row)
//   are copied by a mask per word, without a branch around the loads.
// - Threads are numbered row-group-major over (strip, group) so no thread is
//   idle at the right edge; threads past the end still take part in the warp
//   shuffles (they load and store nothing).
inline constexpr const char* mean_filter_strips_body = R"(
#define CH 3
#define EVEN_BYTES 0x00ff00ffu
#define FULL_WARP 0xffffffffu

__device__ __forceinline__ unsigned even_bytes(unsigned x) { return x & EVEN_BYTES; }

// Horizontal 3-sums (bytes -3, 0, +3) of the 4 bytes of word c, given the
// words left (l) and right (r) of it: bytes 0 and 2 in e's 16-bit lanes,
// bytes 1 and 3 in o's.
__device__ __forceinline__ void horizontal_sums(unsigned l, unsigned c, unsigned r, unsigned& e,
                                                unsigned& o) {
  e = even_bytes(__funnelshift_r(l, c, 8)) + even_bytes(c) + even_bytes(__funnelshift_r(c, r, 24));
  o = even_bytes(__funnelshift_r(l, c, 16)) + even_bytes(c >> 8) + even_bytes(r);
}

// floor(lane / 9) of the four 16-bit lanes of e (bytes 0, 2) and o (1, 3).
__device__ __forceinline__ unsigned mean_of_nine(unsigned e, unsigned o) {
  const unsigned q0 = __umulhi(e << 16, 7284u), q2 = __umulhi(e, 7284u);
  const unsigned q1 = __umulhi(o << 16, 7284u), q3 = __umulhi(o, 7284u);
  return q0 | (q1 << 8) | (q2 << 16) | (q3 << 24);
}

// Row r's strip (w) and the words either side (l, r_word; at a warp's edges
// only when HALO_SHUFFLE), zeros outside the image. Rows that are not a
// multiple of 16 bytes long are read byte by byte.
__device__ __forceinline__ void load_strip(const unsigned char* __restrict__ input, int r,
                                           int height, int b0, int row_bytes, bool live,
                                           bool aligned, int lane, unsigned w[4], unsigned& l,
                                           unsigned& r_word) {
#pragma unroll
  for (int k = 0; k < 4; ++k) w[k] = 0;
  l = r_word = 0;
  if (!live || r < 0 || r >= height) return;
  const unsigned char* row = input + (size_t)r * row_bytes;
  if (aligned) {
    const uint4 v = *reinterpret_cast<const uint4*>(row + b0);
    w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
    const bool load_left = HALO_SHUFFLE ? lane == 0 : true;
    const bool load_right = HALO_SHUFFLE ? lane == 31 : true;
    if (load_left && b0 > 0) l = *reinterpret_cast<const unsigned*>(row + b0 - 4);
    if (load_right && b0 + 16 < row_bytes) r_word = *reinterpret_cast<const unsigned*>(row + b0 + 16);
  } else {
#pragma unroll
    for (int j = 0; j < 24; ++j) {
      const int b = b0 - 4 + j;
      const unsigned byte = (b >= 0 && b < row_bytes) ? row[b] : 0u;
      if (j < 4) l |= byte << (8 * j);
      else if (j < 20) w[(j - 4) >> 2] |= byte << (8 * (j & 3));
      else r_word |= byte << (8 * (j & 3));
    }
  }
}

// One thread's strip from row y0 down ROWS rows. Called with a literal
// `aligned` so the vector and the byte-wise paths are compiled apart.
__device__ __forceinline__ void walk_strip(const unsigned char* __restrict__ input,
                                           unsigned char* __restrict__ output, int height,
                                           int row_bytes, int b0, int y0, bool live, int lane,
                                           bool aligned) {
  unsigned border_mask[4];  // bytes of the first and last pixel of a row
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    unsigned m = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int b = b0 + 4 * k + j;
      if (b < CH || b >= row_bytes - CH) m |= 0xffu << (8 * j);
    }
    border_mask[k] = m;
  }

  // Rows y0-1 .. y0+ROWS pass through a ring of AHEAD loaded rows.
  unsigned ring[AHEAD][4], ring_l[AHEAD], ring_r[AHEAD];
#pragma unroll
  for (int i = 0; i < AHEAD; ++i)
    load_strip(input, y0 - 1 + i, height, b0, row_bytes, live, aligned, lane, ring[i], ring_l[i],
               ring_r[i]);
  unsigned sum_e[3][4] = {}, sum_o[3][4] = {};  // horizontal sums of rows y-1, y, y+1
  unsigned centre[4] = {}, above[4] = {};       // the input words of rows y and y-1
#pragma unroll
  for (int i = 0; i < ROWS + 2; ++i) {
    const int slot = i % AHEAD;
    unsigned w[4] = {ring[slot][0], ring[slot][1], ring[slot][2], ring[slot][3]};
    unsigned l = ring_l[slot], r = ring_r[slot];
    if (i + AHEAD < ROWS + 2)  // keep AHEAD rows in flight
      load_strip(input, y0 - 1 + i + AHEAD, height, b0, row_bytes, live, aligned, lane,
                 ring[slot], ring_l[slot], ring_r[slot]);
    if (HALO_SHUFFLE && aligned) {
      const unsigned from_left = __shfl_up_sync(FULL_WARP, w[3], 1);
      const unsigned from_right = __shfl_down_sync(FULL_WARP, w[0], 1);
      if (lane != 0) l = from_left;
      if (lane != 31) r = from_right;
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      sum_e[0][k] = sum_e[1][k];
      sum_o[0][k] = sum_o[1][k];
      sum_e[1][k] = sum_e[2][k];
      sum_o[1][k] = sum_o[2][k];
    }
    horizontal_sums(l, w[0], w[1], sum_e[2][0], sum_o[2][0]);
    horizontal_sums(w[0], w[1], w[2], sum_e[2][1], sum_o[2][1]);
    horizontal_sums(w[1], w[2], w[3], sum_e[2][2], sum_o[2][2]);
    horizontal_sums(w[2], w[3], r, sum_e[2][3], sum_o[2][3]);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      above[k] = centre[k];
      centre[k] = w[k];
    }
    const int y = y0 + i - 2;  // the output row whose three input rows are now summed
    if (i >= 2 && live && y < height) {
      const bool border_row = y == 0 || y == height - 1;
      unsigned out[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const unsigned mean = mean_of_nine(sum_e[0][k] + sum_e[1][k] + sum_e[2][k],
                                           sum_o[0][k] + sum_o[1][k] + sum_o[2][k]);
        const unsigned keep = border_row ? 0xffffffffu : border_mask[k];
        out[k] = (mean & ~keep) | (above[k] & keep);
      }
      unsigned char* dst = output + (size_t)y * row_bytes;
      if (aligned) {
        *reinterpret_cast<uint4*>(dst + b0) = make_uint4(out[0], out[1], out[2], out[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 16; ++j)
          if (b0 + j < row_bytes) dst[b0 + j] = (unsigned char)(out[j >> 2] >> (8 * (j & 3)));
      }
    }
  }
}

__global__ void __launch_bounds__(128)
mean_filter_strips(const unsigned char* __restrict__ input, unsigned char* __restrict__ output,
                   int width, int height) {
  const int row_bytes = width * CH;
  const unsigned strips = (row_bytes + 15) / 16;
  const unsigned groups = (height + ROWS - 1) / ROWS;
  // The launch keeps strips * groups below 2^32 (mean_filter_strips_launch).
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = id < strips * groups;
  const int b0 = live ? (int)(id % strips) * 16 : 0;
  const int y0 = live ? (int)(id / strips) * ROWS : 0;
  const int lane = threadIdx.x & 31;
  // Rows that are a multiple of 16 bytes long start 16-byte aligned.
  if ((row_bytes & 15) == 0)
    walk_strip(input, output, height, row_bytes, b0, y0, live, lane, true);
  else
    walk_strip(input, output, height, row_bytes, b0, y0, live, lane, false);
}
)";

inline std::string mean_filter_strips_source(const MeanFilterStripsParams& p) {
  return "#define ROWS " + std::to_string(p.rows) + "\n#define AHEAD " + std::to_string(p.ahead) +
         "\n#define HALO_SHUFFLE " + std::string(p.halo_shuffle ? "1" : "0") + "\n" +
         mean_filter_strips_body;
}

// One thread per (16-byte strip, group of `rows` rows), 128 threads a block.
inline LaunchConfig mean_filter_strips_launch(int rows, int width, int height,
                                              StreamRef stream = {}) {
  const long long strips = (static_cast<long long>(width) * 3 + 15) / 16;
  const long long threads = strips * ((height + rows - 1) / rows);
  if (threads >= (1ll << 32) - 128)
    throw Error(
        "mean_filter_strips",
        "image of " + std::to_string(width) + "x" + std::to_string(height) + " pixels is too large",
        "split it into bands of fewer rows");
  LaunchConfig c;
  c.stream = stream;
  c.block = Dim3(128);
  c.grid = Dim3(static_cast<unsigned>((threads + 127) / 128));
  return c;
}

}  // namespace cudakit::workloads
