// The 3x3 mean filter of mean_filter.hpp taken through the tutorial's
// optimisation checklist, one kernel per step. Every step computes exactly
// what the naive kernel computes (interior pixels: the integer mean of the
// 3x3 neighbourhood per channel; border pixels: copied), so each is checked
// byte for byte against workloads::mean_filter_rows. Step 5's variants are
// in mean_filter_strips.hpp and mean_filter_bands.hpp. Shared by
// examples/cpp/mean_filter_steps.cpp, `cudakit bench conv` and the demo; docs/guide/optimizing.md
// walks through them.
#pragma once

#include <cudakit/error.hpp>
#include <cudakit/launch_config.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/mean_filter.hpp"
#include "workloads/mean_filter_bands.hpp"
#include "workloads/mean_filter_bulk.hpp"
#include "workloads/mean_filter_strips.hpp"

namespace cudakit::workloads {

// Steps 2 and 3 share the tile: a block's (32+2) x (8+2) pixels with a
// one-pixel halo, loaded once with consecutive threads reading consecutive
// bytes (coalesced), zeros outside the image.
inline constexpr const char* mean_filter_tile_source = R"(
#define TILE_W 32
#define TILE_H 8
#define CH 3
#define TILE_ROW_BYTES ((TILE_W + 2) * CH)
__device__ __forceinline__ void load_tile(const unsigned char* __restrict__ input,
                                          unsigned char (*tile)[TILE_ROW_BYTES], int width,
                                          int height) {
  const int row_bytes = width * CH;
  const int x0 = blockIdx.x * TILE_W - 1, y0 = blockIdx.y * TILE_H - 1;
  const int tid = threadIdx.y * TILE_W + threadIdx.x;
  for (int i = tid; i < (TILE_H + 2) * TILE_ROW_BYTES; i += TILE_W * TILE_H) {
    const int ty = i / TILE_ROW_BYTES, tb = i % TILE_ROW_BYTES;
    const int gy = y0 + ty, gb = x0 * CH + tb;
    tile[ty][tb] = (gy >= 0 && gy < height && gb >= 0 && gb < row_bytes)
                       ? input[(size_t)gy * row_bytes + gb] : 0;
  }
  __syncthreads();
}
)";

// Step 2: the shared-memory tile. Every thread computes its pixel from
// shared memory instead of reading 27 bytes of global memory.
inline constexpr const char* mean_filter_tiled_kernel = R"(
__global__ void mean_filter_tiled(const unsigned char* __restrict__ input,
                                  unsigned char* __restrict__ output, int width, int height) {
  __shared__ unsigned char tile[TILE_H + 2][TILE_ROW_BYTES];
  load_tile(input, tile, width, height);
  const int x = blockIdx.x * TILE_W + threadIdx.x, y = blockIdx.y * TILE_H + threadIdx.y;
  if (x >= width || y >= height) return;
  const bool interior = x >= 1 && x < width - 1 && y >= 1 && y < height - 1;
  for (int c = 0; c < CH; ++c) {
    int value = tile[threadIdx.y + 1][(threadIdx.x + 1) * CH + c];
    if (interior) {
      int sum = 0;
      for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx) sum += tile[threadIdx.y + ky][(threadIdx.x + kx) * CH + c];
      value = sum / 9;
    }
    output[(size_t)y * width * CH + x * CH + c] = (unsigned char)value;
  }
}
)";

// Step 3: the same tile, with the filter's weights in constant memory (one
// broadcast read for all threads of a warp), as the checklist suggests for
// filter coefficients. The mean's weights are all one.
inline constexpr const char* mean_filter_constant_kernel = R"(
__constant__ int mean_weights[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
__global__ void mean_filter_constant(const unsigned char* __restrict__ input,
                                     unsigned char* __restrict__ output, int width, int height) {
  __shared__ unsigned char tile[TILE_H + 2][TILE_ROW_BYTES];
  load_tile(input, tile, width, height);
  const int x = blockIdx.x * TILE_W + threadIdx.x, y = blockIdx.y * TILE_H + threadIdx.y;
  if (x >= width || y >= height) return;
  const bool interior = x >= 1 && x < width - 1 && y >= 1 && y < height - 1;
  for (int c = 0; c < CH; ++c) {
    int value = tile[threadIdx.y + 1][(threadIdx.x + 1) * CH + c];
    if (interior) {
      int sum = 0;
#pragma unroll
      for (int ky = 0; ky < 3; ++ky)
#pragma unroll
        for (int kx = 0; kx < 3; ++kx)
          sum += mean_weights[ky * 3 + kx] * tile[threadIdx.y + ky][(threadIdx.x + kx) * CH + c];
      value = sum / 9;
    }
    output[(size_t)y * width * CH + x * CH + c] = (unsigned char)value;
  }
}
)";

// Step 4: vectorised loads and several pixels per thread. In an interleaved
// RGB row a byte's horizontal neighbours of the same channel are 3 bytes
// away whatever its channel, so a row is filtered as plain bytes: each
// thread owns a 16-byte column strip (one uint4 load and store per row, plus
// the 4-byte words either side for the halo) over ROWS rows, keeping the
// horizontal sums of the last three rows in registers so every input row is
// read once per strip. Rows whose length is not a multiple of 16 bytes take
// a byte-wise path with the same arithmetic.
inline constexpr const char* mean_filter_vectorized_source = R"(
#define CH 3
#define ROWS 8
__device__ __forceinline__ unsigned byte_at(const unsigned w[6], int j) {
  // byte j (-4..19) of the window whose word 1 starts at the strip
  return (w[(j + 4) >> 2] >> (((j + 4) & 3) * 8)) & 0xffu;
}
__device__ __forceinline__ void load_window(const unsigned char* row, int b0, int row_bytes,
                                            bool vector_ok, unsigned w[6]) {
  if (vector_ok) {
    const uint4 v = *reinterpret_cast<const uint4*>(row + b0);
    w[1] = v.x; w[2] = v.y; w[3] = v.z; w[4] = v.w;
    w[0] = b0 >= 4 ? *reinterpret_cast<const unsigned*>(row + b0 - 4) : 0u;
    w[5] = b0 + 20 <= row_bytes ? *reinterpret_cast<const unsigned*>(row + b0 + 16) : 0u;
  } else {
#pragma unroll
    for (int k = 0; k < 6; ++k) {
      unsigned word = 0;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int b = b0 - 4 + k * 4 + j;
        if (b >= 0 && b < row_bytes) word |= (unsigned)row[b] << (8 * j);
      }
      w[k] = word;
    }
  }
}
// Row r's window, or zeros outside rows 0..height-1.
__device__ __forceinline__ void load_row(const unsigned char* input, int r, int height, int b0,
                                         int row_bytes, bool vector_ok, unsigned w[6]) {
  if (r >= 0 && r < height) {
    load_window(input + (size_t)r * row_bytes, b0, row_bytes, vector_ok, w);
  } else {
#pragma unroll
    for (int k = 0; k < 6; ++k) w[k] = 0;
  }
}
__global__ void mean_filter_vectorized(const unsigned char* __restrict__ input,
                                       unsigned char* __restrict__ output, int width, int height) {
  const int row_bytes = width * CH;
  const int b0 = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
  if (b0 >= row_bytes || y0 >= height) return;
  const bool vector_ok = (row_bytes % 16) == 0;  // every row starts 16-byte aligned
  const int y_end = min(y0 + ROWS, height);
  unsigned h0[16], h1[16], h2[16];  // horizontal sums of rows y-1, y, y+1
  unsigned centre[6];
  unsigned w[6], ahead[6];  // this row's window, and the next row's (loaded early)
#pragma unroll
  for (int i = 0; i < 16; ++i) h0[i] = h1[i] = 0;
#pragma unroll
  for (int k = 0; k < 6; ++k) centre[k] = 0;
  load_row(input, y0 - 1, height, b0, row_bytes, vector_ok, w);
  // Rows y0-1 and y0 first, then one new row per output row. The next row
  // is requested before this one is used, so each thread keeps two rows of
  // loads in flight (a memory-bound kernel needs the bytes in flight).
  for (int r = y0 - 1; r <= y_end; ++r) {
    load_row(input, r + 1, r + 1 <= y_end ? height : 0, b0, row_bytes, vector_ok, ahead);
#pragma unroll
    for (int i = 0; i < 16; ++i) h2[i] = byte_at(w, i - 3) + byte_at(w, i) + byte_at(w, i + 3);
    const int y = r - 1;  // the output row whose window is now complete
    if (y >= y0 && y < y_end) {
      const bool border_row = y == 0 || y == height - 1;
      unsigned out[4] = {0, 0, 0, 0};
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        const int b = b0 + i;
        unsigned value = byte_at(centre, i);
        if (!border_row && b >= CH && b < row_bytes - CH) value = (h0[i] + h1[i] + h2[i]) / 9;
        out[i >> 2] |= value << (8 * (i & 3));
      }
      unsigned char* dst = output + (size_t)y * row_bytes;
      if (vector_ok) {
        *reinterpret_cast<uint4*>(dst + b0) = make_uint4(out[0], out[1], out[2], out[3]);
      } else {
#pragma unroll
        for (int i = 0; i < 16; ++i)  // constant indices keep out[] in registers
          if (b0 + i < row_bytes) dst[b0 + i] = (unsigned char)(out[i >> 2] >> (8 * (i & 3)));
      }
    }
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      h0[i] = h1[i];
      h1[i] = h2[i];
    }
#pragma unroll
    for (int k = 0; k < 6; ++k) {
      centre[k] = w[k];
      w[k] = ahead[k];
    }
  }
}
)";

enum class MeanFilterShape {
  pixel_16x16,  // one thread per pixel, 16x16 blocks (the tutorial's)
  tile_32x8,    // one thread per pixel, 32x8 blocks sharing a tile
  strip_8rows,  // step 4: 16-byte strips x 8 rows, 32x4 blocks
  strips,       // step 5: 16-byte strips walked down rows (MeanFilterStripsParams)
  bands,        // step 5: rows staged through shared memory (MeanFilterBandsParams)
  bulk,         // step 5: rows brought in by bulk copies (MeanFilterBulkParams)
};

struct MeanFilterStep {
  std::string title;
  std::string kernel;
  std::string source;
  MeanFilterShape shape;
  MeanFilterStripsParams strips;  // shape strips: the variant
  MeanFilterBandsParams bands;    // shape bands: the variant
  MeanFilterBulkParams bulk;      // shape bulk: the variant
  // Marks the input's lines evict-last in L2 (they stay there after it ran).
  bool keeps_input_in_l2() const {
    return (shape == MeanFilterShape::strips && strips.load_policy == 1) ||
           (shape == MeanFilterShape::bulk && bulk.keep_input);
  }
  // Loops over its work, so any grid is correct (the example checks 1 and 7 blocks).
  bool any_grid() const {
    // (A staged strip variant is checked so too: a thread's ring slots are
    // reused from one item to the next.)
    return (shape == MeanFilterShape::strips && (strips.persistent || strips.stage)) ||
           shape == MeanFilterShape::bands || shape == MeanFilterShape::bulk;
  }
};

// The steps in the checklist's order, then the variants of step 5.
inline const std::vector<MeanFilterStep>& mean_filter_steps() {
  static const std::vector<MeanFilterStep> steps = [] {
    using S = MeanFilterShape;
    const std::string tile = mean_filter_tile_source;
    std::vector<MeanFilterStep> list = {
        {"1 naive (tutorial)", "convolution_3x3", mean_filter_source, S::pixel_16x16},
        {"2 shared-memory tile + halo", "mean_filter_tiled", tile + mean_filter_tiled_kernel,
         S::tile_32x8},
        {"3 + constant-memory weights", "mean_filter_constant", tile + mean_filter_constant_kernel,
         S::tile_32x8},
        {"4 + 16-byte loads, 8 rows/thread", "mean_filter_vectorized",
         mean_filter_vectorized_source, S::strip_8rows},
    };
    // The variants of step 5 that the benchmark compares (labels 5a, 5b, ...).
    const MeanFilterStripsParams variants[] = {
        // rows, ahead, halo_shuffle, min_blocks, persistent, stream_stores, block, words
        {8, 4, true, 1, false, false},        {16, 4, true, 1, false, false},
        {32, 4, true, 1, false, false},       {64, 4, true, 1, false, false},
        {16, 4, false, 1, false, false},      {16, 8, true, 1, false, false},
        {32, 8, true, 1, false, false},       {8, 4, true, 6, false, false},
        {8, 2, true, 8, false, false},        {8, 4, true, 1, true, false},
        {8, 4, false, 1, true, false},        {4, 4, true, 6, true, false},
        {16, 4, true, 1, false, true},        {8, 4, true, 1, true, true},
        {8, 4, true, 5, true, false},         {4, 4, true, 5, true, false},
        {8, 4, true, 1, true, false, 64},     {16, 4, true, 1, false, false, 64},
        {8, 2, true, 1, true, false, 128, 8}, {16, 2, true, 1, false, false, 128, 8},
        {8, 4, true, 8, true, true},   // 5n capped at 64 registers (spills)
        {8, 2, true, 8, false, true},  // 5i with streaming stores
    };
    char label = 'a';
    for (const MeanFilterStripsParams& v : variants)
      list.push_back({std::string("5") + label++ + " " + mean_filter_strips_title(v),
                      "mean_filter_strips", mean_filter_strips_source(v), S::strips, v});
    // Rows staged through shared memory by asynchronous copies: the bytes in
    // flight held in shared memory, not registers.
    const MeanFilterBandsParams band_variants[] = {
        // block, stages, rows, min_blocks
        {128, 6, 16, 1},
        {64, 8, 32, 1},
    };
    for (const MeanFilterBandsParams& v : band_variants)
      list.push_back({std::string("5") + label++ + " " + mean_filter_bands_title(v),
                      "mean_filter_bands",
                      mean_filter_bands_source(v),
                      S::bands,
                      {},
                      v});
    // Later variants, labelled explicitly (5y, 5z, 6a, ...) so the labels
    // above stay as published.
    auto add_strips = [&](const char* name, const MeanFilterStripsParams& v) {
      list.push_back({std::string(name) + " " + mean_filter_strips_title(v), "mean_filter_strips",
                      mean_filter_strips_source(v), S::strips, v});
    };
    auto add_bulk = [&](const char* name, const MeanFilterBulkParams& v) {
      list.push_back({std::string(name) + " " + mean_filter_bulk_title(v),
                      "mean_filter_bulk",
                      mean_filter_bulk_source(v),
                      S::bulk,
                      {},
                      {},
                      v});
    };
    // rows, ahead, halo_shuffle, min_blocks, persistent, stream_stores, block, words, vertical,
    // load_policy, split_sums
    add_strips("5y", {8, 2, true, 8, false, true, 128, 4, false, 0, true});  // 5v, fewer ops
    add_strips("5z", {8, 2, true, 4, false, true, 256, 4, true, 0, true});   // 5y, warps stacked
    add_strips("6a", {4, 6, true, 3, false, true, 256, 4, true});            // every row in flight
    // consumers, stages, min_blocks, keep_input, split_sums
    add_bulk("6b", {128, 12, 6});
    add_bulk("6c", {256, 8, 3});
    add_bulk("6d", {64, 16, 10});
    add_bulk("6e", {128, 12, 6, false, true});       // 6b, fewer ops
    add_strips("6f", {6, 2, true, 8, false, true});  // 5v, 6 rows: 1.9 waves, not 1.4
    // Cache policies for the input last (the benchmark resets the input's
    // lines to evict-normal after a step that marks them evict-last).
    add_strips("6g", {8, 2, true, 8, false, true, 128, 4, false, 2});  // 5v, input evict-first
    add_strips("6h", {8, 2, true, 8, false, true, 128, 4, false, 1});  // 5v, input kept in L2
    add_bulk("6i", {128, 12, 6, true});                                // 6b, input kept in L2
    // The ring of rows in flight in shared memory (STAGE), filled by each
    // thread's own cp.async copies: 5y's arithmetic with twice the rows in
    // flight and no more registers.
    add_strips("6j", {.rows = 8,
                      .ahead = 4,
                      .min_blocks = 8,
                      .stream_stores = true,
                      .split_sums = true,
                      .stage = true});
    // 12 rows a thread: at 3840x2160 the 129,600 threads fit the H200 at
    // once (1013 blocks of 128 against 1056 resident): no second, partly
    // filled wave.
    add_strips(
        "6k", {.rows = 12, .ahead = 2, .min_blocks = 8, .stream_stores = true, .split_sums = true});
    // From here on the border bytes are patched after the walk
    // (BORDER_AFTER): no border code in the unrolled walk, 72 registers
    // unconstrained against 5y's 79, so no spills at 64.
    auto patched = [](MeanFilterStripsParams v) {
      v.halo_shuffle = v.stream_stores = v.split_sums = v.border_after = true;
      return v;
    };
    add_strips("6l", patched({.rows = 8, .ahead = 2, .min_blocks = 8}));
    add_strips("6m", patched({.rows = 8, .ahead = 2, .min_blocks = 8, .paired = true}));
    add_strips("6n", patched({.rows = 8, .ahead = 2, .min_blocks = 9}));  // 56 registers
    add_strips("6o", patched({.rows = 6, .ahead = 2, .min_blocks = 8}));
    add_strips("6p", patched({.rows = 12, .ahead = 2, .min_blocks = 8}));  // one wave
    add_strips("6q", patched({.rows = 8, .ahead = 2, .min_blocks = 8, .vertical = true}));
    add_strips("6r", patched({.rows = 8, .ahead = 2, .min_blocks = 16, .block = 64}));
    // One wave (on an H200 at 3840x2160) in finer blocks, and with the
    // rows two groups share read by one block.
    add_strips("6s", patched({.rows = 12, .ahead = 2, .min_blocks = 16, .block = 64}));
    add_strips("6t", patched({.rows = 12, .ahead = 2, .min_blocks = 8, .vertical = true}));
    add_strips("6u",
               patched({.rows = 12, .ahead = 2, .min_blocks = 16, .block = 64, .vertical = true}));
    // More rows in flight for more registers (one wave: 760 blocks of 128
    // against 792 resident at 80 registers).
    add_strips("6v", patched({.rows = 16, .ahead = 3, .min_blocks = 6}));
    // 6t with plain stores: what evict-first stores are worth here.
    auto plain_stores = [](MeanFilterStripsParams v) {
      v.stream_stores = false;
      return v;
    };
    add_strips("6w",
               plain_stores(patched({.rows = 12, .ahead = 2, .min_blocks = 8, .vertical = true})));
    // UNGUARDED: loads clamped into the image and predicated stores, so
    // the walk has no branches: about 12% fewer instructions than 6p.
    auto unguarded = [](MeanFilterStripsParams v) {
      v.unguarded = true;
      return v;
    };
    add_strips("6x", unguarded(patched({.rows = 12, .ahead = 2, .min_blocks = 8})));
    add_strips("6y",
               unguarded(patched({.rows = 12, .ahead = 2, .min_blocks = 8, .vertical = true})));
    // DIV_FLOAT: the division by 9 as one FFMA a byte on the FP32 pipes,
    // off the integer multiply-add pipe (6t with it).
    auto float_division = [](MeanFilterStripsParams v) {
      v.div_float = true;
      return v;
    };
    add_strips("6z", float_division(patched(
                         {.rows = 12, .ahead = 2, .min_blocks = 8, .vertical = true})));  // 6t
    // Block barriers (SYNC_ROWS). Left alone, the warps of one
    // multiprocessor walk the same 12 rows in 5 to 11 µs on the H200 (the
    // schedulers favour some), and the last ones run with the
    // multiprocessor nearly empty. In 1024-thread blocks (one a
    // multiprocessor at 64 registers: 127 blocks at 3840x2160, one wave) a
    // barrier every few rows moves the whole multiprocessor down together.
    auto synced = [](MeanFilterStripsParams v, int every) {
      v.sync_rows = every;
      return v;
    };
    const MeanFilterStripsParams whole_sm = patched({.rows = 12, .ahead = 2, .block = 1024});
    add_strips("7a", whole_sm);
    add_strips("7b", synced(whole_sm, 2));
    add_strips("7c", synced(whole_sm, 3));
    add_strips("7d", synced(whole_sm, 4));
    add_strips("7e", synced(whole_sm, 6));
    add_strips("7f", synced(whole_sm, 12));
    add_strips("7g", synced(patched({.rows = 12, .ahead = 2, .min_blocks = 2, .block = 512}), 6));
    add_strips("7h", synced(patched({.rows = 12, .ahead = 2, .min_blocks = 4, .block = 256}), 6));
    add_strips("7i",
               synced(patched({.rows = 12, .ahead = 2, .min_blocks = 8, .vertical = true}), 2));
    add_strips("7j",
               synced(patched({.rows = 12, .ahead = 2, .min_blocks = 8, .vertical = true}), 6));
    add_strips("7k", float_division(synced(whole_sm, 6)));
    add_strips("7l", float_division(synced(whole_sm, 12)));
    add_strips("7m", synced(whole_sm, 8));
    add_strips("7n", synced(whole_sm, 10));
    add_strips("7o", synced(whole_sm, 13));
    add_strips("7p", synced(whole_sm, 14));
    add_strips("7q", synced(patched({.rows = 12, .ahead = 2, .min_blocks = 4, .block = 256}), 12));
    add_strips("7r", float_division(synced(whole_sm, 10)));
    return list;
  }();
  return steps;
}

// The step `cudakit demo` runs and `cudakit bench conv` reports against P8,
// named by its label (the first word of its title). Switching the shipped
// filter is this one line.
inline constexpr std::string_view mean_filter_shipped_label = "7l";

// The index in mean_filter_steps() of the step labelled `label`; -1 if none.
inline int mean_filter_step_index(std::string_view label) {
  const auto& steps = mean_filter_steps();
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (std::string_view(steps[i].title).substr(0, steps[i].title.find(' ')) == label)
      return static_cast<int>(i);
  return -1;
}

inline int mean_filter_shipped_step() {
  static const int index = mean_filter_step_index(mean_filter_shipped_label);
  if (index < 0)
    throw Error("mean filter steps",
                "the shipped step '" + std::string(mean_filter_shipped_label) + "' is not a step");
  return index;
}

// The launch shape of step `step` (an index into mean_filter_steps()) for a
// width x height image; `kernel` is the step's compiled kernel (a resident
// grid is sized from its occupancy).
inline LaunchConfig mean_filter_step_launch(int step, const Kernel& kernel, int width, int height,
                                            StreamRef stream = {}) {
  const MeanFilterStep& s = mean_filter_steps().at(static_cast<std::size_t>(step));
  if (s.shape == MeanFilterShape::strips)
    return mean_filter_strips_launch(kernel, s.strips, width, height, stream);
  if (s.shape == MeanFilterShape::bands)
    return mean_filter_bands_launch(s.bands, width, height, stream);
  if (s.shape == MeanFilterShape::bulk)
    return mean_filter_bulk_launch(kernel, s.bulk, width, height, stream);
  auto up = [](long long a, long long b) { return static_cast<unsigned>((a + b - 1) / b); };
  LaunchConfig c;
  c.stream = stream;
  if (s.shape == MeanFilterShape::pixel_16x16) {
    c.block = Dim3(16, 16);
    c.grid = Dim3(up(width, 16), up(height, 16));
  } else if (s.shape == MeanFilterShape::tile_32x8) {
    c.block = Dim3(32, 8);
    c.grid = Dim3(up(width, 32), up(height, 8));
  } else {
    const long long strips = (static_cast<long long>(width) * 3 + 15) / 16;
    c.block = Dim3(32, 4);
    c.grid = Dim3(up(strips, 32), up(up(height, 8), 4));
  }
  return c;
}

}  // namespace cudakit::workloads
