// Step 5, shared-memory bands: the strip arithmetic of mean_filter_strips.hpp
// with the rows staged through shared memory by asynchronous copies
// (cp.async), so the bytes in flight live in shared memory instead of
// registers. A block owns a band of BLOCK x 16 bytes of a row (plus 16 halo
// bytes either side) and walks down ROWS output rows; input rows pass through
// a ring of STAGES rows in shared memory, STAGES - 1 of them in flight while
// a row is computed. Each thread sums its 16 bytes of a staged row (the
// horizontal halo is a shared-memory read, no shuffles), keeps the last
// three rows' horizontal sums in registers and stores 16 bytes evict-first.
// The CPU backend runs the same text with plain 16-byte copies.
#pragma once

#include <algorithm>
#include <cudakit/error.hpp>
#include <cudakit/launch_config.hpp>
#include <string>

#include "workloads/mean_filter_strips.hpp"

namespace cudakit::workloads {

struct MeanFilterBandsParams {
  int block = 128;     // threads a block (BAND_BLOCK); a band is 16 bytes a thread
  int stages = 6;      // rows in the shared-memory ring (STAGES >= 3)
  int rows = 16;       // output rows a block walks down (BAND_ROWS)
  int min_blocks = 1;  // __launch_bounds__'s blocks per multiprocessor
};

// After the strips text (row_sums, mean_of_nine, store_row and
// filter_strip_bytes with WORDS 4 and STREAM_STORES 1).
inline constexpr const char* mean_filter_bands_body = R"(
#define BAND (BAND_BLOCK * 16)  // bytes of a row a block owns
#define STAGED_ROW (BAND + 32)  // a staged row: the band and 16 halo bytes either side

// cp.async (sm_80 and later) written out, as <cuda_pipeline.h>'s
// __pipeline_memcpy_async, _commit and _wait_prior emit it: the CPU backend
// compiles a source's #include lines whatever #if they sit in, and refuses
// the asm keyword outside preprocessor lines even in a branch it never
// compiles, so the GPU-only branches below name it through a macro. The CPU
// backend and older GPUs copy synchronously (the same barriers keep that
// correct).
#if !defined(__CUDAKIT_CPU__) && __CUDA_ARCH__ >= 800
#define ASYNC_STAGING 1
#define GPU_ASM asm volatile
#else
#define ASYNC_STAGING 0
#endif

// 16 bytes global -> shared.
__device__ __forceinline__ void stage_16(unsigned char* to, const unsigned char* from) {
#if ASYNC_STAGING
  // .cg: cached in L2 only; the rows read twice (group edges) hit there.
  GPU_ASM("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
              (unsigned)__cvta_generic_to_shared(to)),
          "l"(from));
#else
  *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
#endif
}
// Closes the copies issued since the last commit into one group (a row).
__device__ __forceinline__ void stage_commit() {
#if ASYNC_STAGING
  GPU_ASM("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most STAGES - 2 of this thread's groups are pending.
__device__ __forceinline__ void stage_wait() {
#if ASYNC_STAGING
  GPU_ASM("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
#endif
}

// Input row y of the band at byte band0 into `to`; nothing for rows outside
// the image or bytes past the row's end (they only feed border bytes, which
// store_row copies from the input).
__device__ __forceinline__ void stage_row(unsigned char* to, const unsigned char* __restrict__ input,
                                          int y, int height, int row_bytes, int band0) {
  if ((unsigned)y >= (unsigned)height) return;
  const unsigned char* row = input + (size_t)y * row_bytes;
  const int b = band0 + (int)threadIdx.x * 16;
  if (b < row_bytes) stage_16(to + 16 + threadIdx.x * 16, row + b);
  if (threadIdx.x == 0 && band0 > 0) stage_16(to, row + band0 - 16);
  if (threadIdx.x == BAND_BLOCK - 1 && band0 + BAND < row_bytes)
    stage_16(to + 16 + BAND, row + band0 + BAND);
}

// Output rows y_begin .. y_end-1 of the band at band0 (rows a multiple of 16
// bytes long). Step i consumes input row y_begin-1+i from ring slot
// i % STAGES and from step 2 on writes output row y_begin+i-2. One barrier a
// row: it publishes row i and tells every thread that slot (i-1) % STAGES,
// refilled next, has been read.
__device__ void walk_band(const unsigned char* __restrict__ input,
                          unsigned char* __restrict__ output,
                          unsigned char (*ring)[STAGED_ROW], int height, int row_bytes,
                          int band0, int y_begin, int y_end) {
  const int steps = y_end - y_begin + 2;
  const int first = y_begin - 1;
  const int b0 = band0 + (int)threadIdx.x * 16;
  const bool live = b0 < row_bytes;
  const unsigned char* src = input + (size_t)y_begin * row_bytes + b0;
  unsigned char* dst = output + (size_t)y_begin * row_bytes + b0;
  __syncthreads();  // the block's previous band has been read out of the ring
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < steps) stage_row(ring[s], input, first + s, height, row_bytes, band0);
    stage_commit();
  }
  unsigned e0[4] = {}, e1[4] = {}, e2[4] = {}, o0[4] = {}, o1[4] = {}, o2[4] = {};
#pragma unroll 1
  for (int i = 0; i < steps; ++i) {
    stage_wait();
    __syncthreads();
    const int next = i + STAGES - 1;
    if (next < steps) stage_row(ring[next % STAGES], input, first + next, height, row_bytes, band0);
    stage_commit();  // also when empty: the wait counts groups
    const unsigned char* at = ring[i % STAGES] + 16 + threadIdx.x * 16;
    unsigned w[4], l, r;
    read_staged_strip(at, w, l, r);
    push_row_sums(l, w, r, e0, e1, e2, o0, o1, o2);
    if (i >= 2 && live)
      store_row(e0, e1, e2, o0, o1, o2, src + (long long)(i - 2) * row_bytes,
                dst + (long long)(i - 2) * row_bytes, y_begin + i - 2, height, b0, row_bytes);
  }
}

// Block (x, y) takes band x and row group y (and more with a smaller grid);
// rows not a multiple of 16 bytes long take the strips' byte-wise path.
__global__ void __launch_bounds__(BAND_BLOCK, BAND_MIN_BLOCKS)
mean_filter_bands(const unsigned char* __restrict__ input, unsigned char* __restrict__ output,
                  int width, int height) {
  __shared__ uint4 ring_words[STAGES][STAGED_ROW / 16];  // uint4: 16-byte aligned rows
  unsigned char(*ring)[STAGED_ROW] = reinterpret_cast<unsigned char(*)[STAGED_ROW]>(ring_words);
  const int row_bytes = width * CH;
  const int bands = (row_bytes + BAND - 1) / BAND;
  const int groups = (height + BAND_ROWS - 1) / BAND_ROWS;
  const bool aligned = row_bytes % 16 == 0;  // the same for the whole block
  for (int band = blockIdx.x; band < bands; band += gridDim.x)
    for (int group = blockIdx.y; group < groups; group += gridDim.y) {
      const int band0 = band * BAND, b0 = band0 + (int)threadIdx.x * 16;
      const int y_begin = group * BAND_ROWS, y_end = min(y_begin + BAND_ROWS, height);
      if (aligned)
        walk_band(input, output, ring, height, row_bytes, band0, y_begin, y_end);
      else if (b0 < row_bytes)
        filter_strip_bytes(input, output, height, row_bytes, b0, y_begin, y_end);
    }
}
)";

inline std::string mean_filter_bands_source(const MeanFilterBandsParams& p) {
  MeanFilterStripsParams strips;  // the helpers: 16-byte strips, streaming stores
  strips.stream_stores = true;
  strips.block = p.block;
  return "#define BAND_BLOCK " + std::to_string(p.block) + "\n#define STAGES " +
         std::to_string(p.stages) + "\n#define BAND_ROWS " + std::to_string(p.rows) +
         "\n#define BAND_MIN_BLOCKS " + std::to_string(p.min_blocks) + "\n" +
         mean_filter_strips_source(strips) + mean_filter_bands_body;
}

inline std::string mean_filter_bands_title(const MeanFilterBandsParams& p) {
  std::string t = "bands: " + std::to_string(16 * p.block) + "-byte band x " +
                  std::to_string(p.rows) + " rows, " + std::to_string(p.stages) +
                  "-row async ring in shared memory";
  if (p.min_blocks > 1) t += ", " + std::to_string(p.min_blocks) + " blocks/SM";
  return t + ", streaming stores";
}

// One block per (band, group of p.rows rows).
inline LaunchConfig mean_filter_bands_launch(const MeanFilterBandsParams& p, int width, int height,
                                             StreamRef stream = {}) {
  const long long band_bytes = 16ll * p.block;
  const long long bands = (static_cast<long long>(width) * 3 + band_bytes - 1) / band_bytes;
  const long long groups = (static_cast<long long>(height) + p.rows - 1) / p.rows;
  LaunchConfig c;
  c.stream = stream;
  c.block = Dim3(static_cast<unsigned>(p.block));
  // Larger images loop inside the kernel.
  c.grid = Dim3(static_cast<unsigned>(std::clamp(bands, 1ll, 65535ll)),
                static_cast<unsigned>(std::clamp(groups, 1ll, 65535ll)));
  return c;
}

}  // namespace cudakit::workloads
