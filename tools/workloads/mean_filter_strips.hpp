// Step 5 of the mean filter checklist (mean_filter_steps.hpp): column strips
// walked down many rows, packed-byte arithmetic, warp shuffles for the
// horizontal halo, loads issued several rows ahead. One kernel text; each
// variant is that text under a few #defines:
//   ROWS          output rows a thread walks down (input read (ROWS+2)/ROWS times)
//   AHEAD         rows whose loads are in flight while a row is computed
//   WORDS         4-byte words a strip: 4 (16 bytes, one uint4 a row) or 8
//   BLOCK         threads a block
//   MIN_BLOCKS    __launch_bounds__'s blocks per multiprocessor (caps registers)
//   PERSISTENT    1: a resident grid, rows split equally among its threads
//   STREAM_STORES 1: output stored with __stcs (evict-first)
//   HALO_SHUFFLE  1: the 4 bytes either side of a strip come from the
//                 neighbouring lanes (__shfl_up/down_sync), only the lanes at
//                 a warp's edges load them; 0: every thread loads them
//   VERTICAL      1: a block's warps are stacked: the same 32 strips, one
//                 row group below the other (the rows read twice are read
//                 by one block, so L1 can serve the second read); 0: items
//                 in row-group-major order
//   LOAD_POLICY   the strips' 16-byte loads: 0 plain, 1 L2 evict-last
//                 (createpolicy), 2 evict-first (ld.global.cs)
//   SPLIT_FIRST   1: row sums from words split into even and odd bytes once
//                 (fewer operations a byte; row_sums)
//   STAGE         1: the ring of rows in flight lives in shared memory, one
//                 slot a thread and row, filled by the thread's own cp.async
//                 copies (no barrier: a thread reads only what it staged), so
//                 the bytes in flight take no registers; WORDS 4 only
//   PAIRED        1: between rows a thread keeps the sum of the last two
//                 rows' horizontal sums and the last row's (16 registers),
//                 not the last three rows' (24)
//   BORDER_AFTER  1: the interior path stores every byte as if it were
//                 interior; a thread whose strip holds border bytes copies
//                 them from the input after its walk (patch_borders), so the
//                 unrolled walk carries no border code and its registers
//   DIV_FLOAT     1: the division by 9 on the FP32 pipes (mean_of_nine), not
//                 as integer multiply-highs on the one pipe that also does
//                 the integer multiply-adds
//   UNGUARDED     1 (with BORDER_AFTER): every step loads a row inside the
//                 image, unconditionally: a row above the first or below the
//                 last is read as the first or last row, and the words left
//                 of the first strip or right of the last as the strip's own
//                 (what they feed is border bytes, which patch_borders
//                 rewrites), so the walk has no branch around its loads
//   WARP_TIMES    defined (by `cudakit bench conv --warp-times`, which also
//                 declares `warp_times`): each warp's first lane records its
//                 multiprocessor and %globaltimer at the warp's start and end
//   SYNC_ROWS     N > 0: a block barrier (__syncthreads) after every N rows
//                 of the walk, so a block's warps move down together (the
//                 schedulers favour some warps: left alone, warps of one
//                 multiprocessor finish the same rows up to 3x apart); every
//                 thread of a block walks the same number of items
#pragma once

#include <algorithm>
#include <cudakit/error.hpp>
#include <cudakit/kernel.hpp>
#include <cudakit/launch_config.hpp>
#include <string>

namespace cudakit::workloads {

struct MeanFilterStripsParams {
  int rows = 16;
  int ahead = 4;
  bool halo_shuffle = true;
  int min_blocks = 1;  // __launch_bounds__(BLOCK, MIN_BLOCKS): caps the registers
  // A resident grid whose threads each walk height / (threads / strips)
  // rows (ROWS is then the unrolled chunk), instead of ROWS rows a thread.
  bool persistent = false;
  // Stores marked evict-first (__stcs), so the output does not push the
  // input (and the rows read twice at group edges) out of L2.
  bool stream_stores = false;
  int block = 128;  // threads a block (BLOCK), a multiple of 32
  int words = 4;    // 4-byte words a strip (WORDS): 4 (16 bytes) or 8 (32 bytes)
  // A block's warps stacked over the same 32 strips, consecutive row groups
  // (VERTICAL).
  bool vertical = false;
  int load_policy = 0;        // LOAD_POLICY: 0 plain, 1 L2 evict-last, 2 evict-first
  bool split_sums = false;    // SPLIT_FIRST
  bool stage = false;         // STAGE: the ring in shared memory, filled by cp.async
  bool paired = false;        // PAIRED: two rows' sums kept as one
  bool border_after = false;  // BORDER_AFTER: border bytes patched after the walk
  bool unguarded = false;     // UNGUARDED: loads clamped into the image, no branches
  bool div_float = false;     // DIV_FLOAT: floor(s / 9) by one FFMA a byte
  int sync_rows = 0;          // SYNC_ROWS: a block barrier every this many rows (0: none)
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
//   are copied from the input in a branch only edge strips and border rows
//   take, so the interior path has no per-byte selects.
// - Threads are numbered row-group-major over (strip, group) so no thread is
//   idle at the right edge; threads past the end still take part in the warp
//   shuffles (they load and store nothing).
// - Rows not a multiple of 16 bytes long take a small byte-wise path.
inline constexpr const char* mean_filter_strips_body = R"(
#define CH 3
#define STRIP (4 * WORDS)  // bytes a strip
#if PERSISTENT && ROWS % AHEAD != 0
#error "a resident-grid variant needs ROWS a multiple of AHEAD: the ring slots repeat per chunk"
#endif
#if UNGUARDED && (!BORDER_AFTER || STAGE)
#error "UNGUARDED needs BORDER_AFTER and no STAGE"
#endif
#if SYNC_ROWS && PERSISTENT
#error "SYNC_ROWS needs the same walk for every thread of a block: no PERSISTENT"
#endif
#if STAGE && WORDS != 4
#error "a staged variant takes 16-byte strips: WORDS 4"
#endif
#define EVEN_BYTES 0x00ff00ffu
#define FULL_WARP 0xffffffffu

#ifdef __CUDAKIT_CPU__
    // __byte_perm as CUDA defines it: byte n of the result is byte (s >> 4n) & 7
    // of the 8 bytes y:x.
    __device__ __forceinline__ unsigned
    perm_bytes(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned out = 0;
  for (int n = 0; n < 4; ++n)
    out |= (unsigned)((v >> (8 * ((s >> (4 * n)) & 7))) & 0xffu) << (8 * n);
  return out;
}
#else
#define perm_bytes(x, y, s) __byte_perm((x), (y), (s))
#endif

// The strips' 16-byte input loads under LOAD_POLICY. The L2 policy needs
// PTX; the CPU backend refuses the asm keyword outside preprocessor lines,
// so it is named through a macro (and the CPU backend loads plainly).
#if defined(__CUDAKIT_CPU__) || LOAD_POLICY == 0
#define load_16(p) (*reinterpret_cast<const uint4*>(p))
#elif LOAD_POLICY == 2
#define load_16(p) __ldcs(reinterpret_cast<const uint4*>(p))
#else
#define PTX_PURE asm
    __device__ __forceinline__ uint4
    load_16(const unsigned char* p) {
  unsigned long long policy;
  PTX_PURE("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  uint4 v;
  PTX_PURE("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
           : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
           : "l"(p), "l"(policy));
  return v;
}
#endif

// Bytes 0 and 2 (even) or 1 and 3 (odd) of a word, in 16-bit lanes.
__device__ __forceinline__ unsigned even_bytes(unsigned x) { return x & EVEN_BYTES; }
__device__ __forceinline__ unsigned odd_bytes(unsigned x) { return perm_bytes(x, 0u, 0x4341u); }

// Horizontal 3-sums (bytes -3, 0, +3) of a strip row: words w[0..WORDS-1], with
// l the word left of the strip and r the word right of it. Bytes 0 and 2 of
// word k land in e[k]'s 16-bit lanes, bytes 1 and 3 in o[k]'s.
__device__ __forceinline__ void row_sums(unsigned l, const unsigned w[WORDS], unsigned r,
                                         unsigned e[WORDS], unsigned o[WORDS]) {
  unsigned word[WORDS + 2];
  word[0] = l;
  word[WORDS + 1] = r;
#pragma unroll
  for (int k = 0; k < WORDS; ++k) word[k + 1] = w[k];
#if SPLIT_FIRST
  // Every word split into its even and odd bytes once; then each sum is
  // whole lanes of split words plus one funnel shift:
  //   e[k] = even(k) + odd(k-1) + (odd(k).hi, odd(k+1).lo)
  //   o[k] = odd(k) + even(k+1) + (even(k-1).hi, even(k).lo)
  // (4 operations a word after the split, against 6 with the masks below).
  unsigned ev[WORDS + 2], od[WORDS + 2];
#pragma unroll
  for (int k = 0; k < WORDS + 2; ++k) {
    ev[k] = even_bytes(word[k]);
    od[k] = odd_bytes(word[k]);
  }
#pragma unroll
  for (int k = 0; k < WORDS; ++k) {
    e[k] = ev[k + 1] + od[k] + __funnelshift_r(od[k + 1], od[k + 2], 16);
    o[k] = od[k + 1] + ev[k + 2] + __funnelshift_r(ev[k], ev[k + 1], 16);
  }
#else
#pragma unroll
  for (int k = 0; k < WORDS; ++k) {
    const unsigned left = word[k], c = word[k + 1], right = word[k + 2];
    // byte 0: -3, 0, 3; byte 2: -1, 2, 5
    e[k] = odd_bytes(left) + even_bytes(c) + even_bytes(__funnelshift_r(c, right, 24));
    // byte 1: -2, 1, 4; byte 3: 0, 3, 6
    o[k] = even_bytes(__funnelshift_r(left, c, 16)) + odd_bytes(c) + even_bytes(right);
  }
#endif
}

// floor(lane / 9) of the four 16-bit lanes of e (bytes 0, 2) and o (1, 3).
#if DIV_FLOAT
// A lane s (at most 2295) becomes the float 2^23 + s by placing it in the
// mantissa of 2^23 (one byte permute); one FFMA then gives
// (2^23 + s) * fl(1/9) + 11650844 = 1.5 * 2^23 + s/9 - 0.444 + (at most
// 0.007), which rounds to 1.5 * 2^23 + floor(s / 9): the quotient is the
// low byte of the result's bits (checked for every s in 0..2295).
__device__ __forceinline__ unsigned quotient_byte(unsigned lanes, unsigned selector) {
  const float f = __uint_as_float(perm_bytes(lanes, 0x4B000000u, selector));
  return __float_as_uint(__fmaf_rn(f, 1.0f / 9.0f, 11650844.0f));
}
__device__ __forceinline__ unsigned mean_of_nine(unsigned e, unsigned o) {
  const unsigned q0 = quotient_byte(e, 0x7610u), q2 = quotient_byte(e, 0x7632u);
  const unsigned q1 = quotient_byte(o, 0x7610u), q3 = quotient_byte(o, 0x7632u);
  // bytes [q0, q1, q2, q3] from the low bytes of the four
  return perm_bytes(perm_bytes(q0, q1, 0x0040u), perm_bytes(q2, q3, 0x4000u), 0x7610u);
}
#else
__device__ __forceinline__ unsigned mean_of_nine(unsigned e, unsigned o) {
  const unsigned q0 = __umulhi(e << 16, 7284u), q2 = __umulhi(e, 7284u);
  const unsigned q1 = __umulhi(o << 16, 7284u), q3 = __umulhi(o, 7284u);
  return (q0 + (q1 << 8)) + ((q2 + (q3 << 8)) << 16);
}
#endif

// The strip's words at row_ptr into w, and the words either side into l and
// r where the lane loads them (at a warp's edges only when HALO_SHUFFLE) and
// the row has them; l and r keep their values otherwise.
__device__ __forceinline__ void load_strip_words(const unsigned char* __restrict__ row_ptr, int b0,
                                                 int row_bytes, int lane, unsigned w[WORDS],
                                                 unsigned& l, unsigned& r) {
#pragma unroll
  for (int k = 0; k < WORDS; k += 4) {
    const uint4 v = load_16(row_ptr + 4 * k);
    w[k] = v.x;
    w[k + 1] = v.y;
    w[k + 2] = v.z;
    w[k + 3] = v.w;
  }
  const bool load_left = HALO_SHUFFLE ? lane == 0 : true;
  const bool load_right = HALO_SHUFFLE ? lane == 31 : true;
  if (load_left && b0 > 0) l = *reinterpret_cast<const unsigned*>(row_ptr - 4);
  if (load_right && b0 + STRIP < row_bytes) r = *reinterpret_cast<const unsigned*>(row_ptr + STRIP);
}

// Row r_index's strip at row_ptr (w) and the words either side (l, r), zeros
// outside rows 0..load_end-1 (load_end is 0 for a thread with no strip).
__device__ __forceinline__ void load_strip(const unsigned char* __restrict__ row_ptr, int r_index,
                                           int load_end, int b0, int row_bytes, int lane,
                                           unsigned w[WORDS], unsigned& l, unsigned& r) {
#pragma unroll
  for (int k = 0; k < WORDS; ++k) w[k] = 0;
  l = r = 0;
  if ((unsigned)r_index >= (unsigned)load_end) return;
  load_strip_words(row_ptr, b0, row_bytes, lane, w, l, r);
}

#if STAGE
// STAGE: the same row as load_strip, copied into the thread's shared-memory
// slot (w: 16 bytes; l, r: the words either side) by cp.async (sm_80 and
// later), zeros outside rows 0..load_end-1 (the copy's source size is then
// 0; `safe` is an address inside the image for it). The CPU backend refuses
// the asm keyword outside preprocessor lines, so it is named through a
// macro; there and on older GPUs the copies are plain ones.
#if !defined(__CUDAKIT_CPU__) && __CUDA_ARCH__ >= 800
#define STAGE_ASYNC 1
#define STAGE_ASM asm volatile
#else
#define STAGE_ASYNC 0
#endif
__device__ __forceinline__ void stage_copy(void* to, const unsigned char* from, unsigned size,
                                           bool present) {
#if STAGE_ASYNC
  const unsigned at = (unsigned)__cvta_generic_to_shared(to);
  if (size == 16)
    STAGE_ASM("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(at), "l"(from),
              "r"(present ? 16u : 0u));
  else
    STAGE_ASM("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(at), "l"(from),
              "r"(present ? 4u : 0u));
#else
  if (size == 16)
    *(uint4*)to = present ? *reinterpret_cast<const uint4*>(from) : make_uint4(0, 0, 0, 0);
  else
    *(unsigned*)to = present ? *reinterpret_cast<const unsigned*>(from) : 0u;
#endif
}
// One group of copies a row; waiting leaves the AHEAD - 1 newest in flight.
__device__ __forceinline__ void stage_commit() {
#if STAGE_ASYNC
  STAGE_ASM("cp.async.commit_group;\n" ::);
#endif
}
__device__ __forceinline__ void stage_wait_oldest() {
#if STAGE_ASYNC
  STAGE_ASM("cp.async.wait_group %0;\n" ::"n"(AHEAD - 1));
#endif
}
__device__ __forceinline__ void stage_wait_all() {
#if STAGE_ASYNC
  STAGE_ASM("cp.async.wait_all;\n" ::);
#endif
}
__device__ __forceinline__ void stage_strip(const unsigned char* __restrict__ row_ptr, int r_index,
                                            int load_end, int b0, int row_bytes, int lane,
                                            const unsigned char* safe, uint4* w, unsigned* l,
                                            unsigned* r) {
  const bool in = (unsigned)r_index < (unsigned)load_end;
  stage_copy(w, in ? row_ptr : safe, 16, in);
  const bool load_left = HALO_SHUFFLE ? lane == 0 : true;
  const bool load_right = HALO_SHUFFLE ? lane == 31 : true;
  if (load_left) {
    const bool present = in && b0 > 0;
    stage_copy(l, present ? row_ptr - 4 : safe, 4, present);
  }
  if (load_right) {
    const bool present = in && b0 + STRIP < row_bytes;
    stage_copy(r, present ? row_ptr + STRIP : safe, 4, present);
  }
  stage_commit();
}
#endif

// A strip's output row, the means of its three rows' horizontal sums.
__device__ __forceinline__ void row_means(const unsigned* e0, const unsigned* e1,
                                          const unsigned* e2, const unsigned* o0,
                                          const unsigned* o1, const unsigned* o2,
                                          unsigned out[WORDS]) {
#pragma unroll
  for (int k = 0; k < WORDS; ++k)
    out[k] = mean_of_nine(e0[k] + e1[k] + e2[k], o0[k] + o1[k] + o2[k]);
}

// The last three rows' horizontal sums move up a row (e0/o0 <- e1/o1 <-
// e2/o2) and the new row's (its strip w, the words l and r either side)
// land in e2/o2.
__device__ __forceinline__ void push_row_sums(unsigned l, const unsigned w[WORDS], unsigned r,
                                              unsigned e0[WORDS], unsigned e1[WORDS],
                                              unsigned e2[WORDS], unsigned o0[WORDS],
                                              unsigned o1[WORDS], unsigned o2[WORDS]) {
#pragma unroll
  for (int k = 0; k < WORDS; ++k) {
    e0[k] = e1[k];
    o0[k] = o1[k];
    e1[k] = e2[k];
    o1[k] = o2[k];
  }
  row_sums(l, w, r, e2, o2);
}

// A 16-byte strip staged in shared memory at `at` (w) and the staged words
// either side of it (l, r): a row of the band kernels' rings.
__device__ __forceinline__ void read_staged_strip(const unsigned char* at, unsigned w[4],
                                                  unsigned& l, unsigned& r) {
  const uint4 v = *reinterpret_cast<const uint4*>(at);
  w[0] = v.x;
  w[1] = v.y;
  w[2] = v.z;
  w[3] = v.w;
  l = *reinterpret_cast<const unsigned*>(at - 4);
  r = *reinterpret_cast<const unsigned*>(at + 16);
}

// The output row y of a strip at dst from its three rows' horizontal sums;
// bytes of the image's border (first and last pixel of a row, first and
// last row) are copied from the input row at src instead.
__device__ __forceinline__ void store_row(const unsigned* e0, const unsigned* e1,
                                          const unsigned* e2, const unsigned* o0,
                                          const unsigned* o1, const unsigned* o2,
                                          const unsigned char* __restrict__ src,
                                          unsigned char* __restrict__ dst, int y, int height,
                                          int b0, int row_bytes) {
  unsigned out[WORDS];
  row_means(e0, e1, e2, o0, o1, o2, out);
#if !BORDER_AFTER
  const bool border_row = y == 0 || y == height - 1;
  if (border_row || b0 == 0 || b0 + STRIP >= row_bytes) {
    // Rare: the row's input again (a cache hit) for the bytes copied.
#pragma unroll
    for (int k = 0; k < WORDS; ++k) {
      const unsigned centre = *reinterpret_cast<const unsigned*>(src + 4 * k);
      unsigned keep = border_row ? 0xffffffffu : 0u;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int b = b0 + 4 * k + j;
        if (b < CH || b >= row_bytes - CH) keep |= 0xffu << (8 * j);
      }
      out[k] = (out[k] & ~keep) | (centre & keep);
    }
  }
#endif
#pragma unroll
  for (int k = 0; k < WORDS; k += 4) {
    const uint4 v = make_uint4(out[k], out[k + 1], out[k + 2], out[k + 3]);
    uint4* at = reinterpret_cast<uint4*>(dst + 4 * k);
#if STREAM_STORES
    __stcs(at, v);  // evict-first: L2 keeps the input
#else
    *at = v;
#endif
  }
}

#if UNGUARDED
// store_row without border code (BORDER_AFTER), its 16-byte store made only
// when `store` holds, as a predicated store: the sums are computed either
// way, so the walk has no branch around them (the CPU backend refuses the asm
// keyword outside preprocessor lines: named through a macro; there, an if).
#if !defined(__CUDAKIT_CPU__)
#define STORE_ASM asm volatile
#endif
__device__ __forceinline__ void store_row_when(bool store, const unsigned* e0, const unsigned* e1,
                                               const unsigned* e2, const unsigned* o0,
                                               const unsigned* o1, const unsigned* o2,
                                               unsigned char* __restrict__ dst) {
  unsigned out[WORDS];
  row_means(e0, e1, e2, o0, o1, o2, out);
#pragma unroll
  for (int k = 0; k < WORDS; k += 4) {
#ifdef STORE_ASM
#if STREAM_STORES
    STORE_ASM("{ .reg .pred p; setp.ne.b32 p, %5, 0; @p st.global.cs.v4.u32 [%0], {%1, %2, %3, %4}; }"
              :: "l"(dst + 4 * k), "r"(out[k]), "r"(out[k + 1]), "r"(out[k + 2]), "r"(out[k + 3]),
                 "r"((int)store) : "memory");
#else
    STORE_ASM("{ .reg .pred p; setp.ne.b32 p, %5, 0; @p st.global.v4.u32 [%0], {%1, %2, %3, %4}; }"
              :: "l"(dst + 4 * k), "r"(out[k]), "r"(out[k + 1]), "r"(out[k + 2]), "r"(out[k + 3]),
                 "r"((int)store) : "memory");
#endif
#else
    if (store)
      *reinterpret_cast<uint4*>(dst + 4 * k) = make_uint4(out[k], out[k + 1], out[k + 2], out[k + 3]);
#endif
  }
}
#endif

#if BORDER_AFTER
// The border bytes of a strip's output rows y_begin .. y_end-1 (the first
// and last pixel of a row, every byte of the first and last row) copied from
// the input, after the walk stored them as if they were interior. Only edge
// strips and the groups holding row 0 or the last row have any. The rows'
// input words are all loaded before any byte is stored, so an edge strip
// waits for its loads once, not once a row: byte by byte (a load, then its
// store, 3 bytes a row) the edge strips' warps finished several µs after the
// rest of an H200 launch.
__device__ __forceinline__ void copy_strip_row(const unsigned char* __restrict__ input,
                                               unsigned char* __restrict__ output, size_t at) {
#pragma unroll
  for (int k = 0; k < WORDS; k += 4)
    *reinterpret_cast<uint4*>(output + at + 4 * k) =
        *reinterpret_cast<const uint4*>(input + at + 4 * k);
}
__device__ __forceinline__ void patch_borders(const unsigned char* __restrict__ input,
                                              unsigned char* __restrict__ output, int height,
                                              int row_bytes, int b0, int y_begin, int y_end) {
  if (y_end <= y_begin) return;
  const bool left = b0 < CH, right = b0 + STRIP > row_bytes - CH;
  if (y_begin == 0) copy_strip_row(input, output, (size_t)b0);
  if (y_end == height) copy_strip_row(input, output, (size_t)(height - 1) * row_bytes + b0);
  if (!left && !right) return;
  const int inner_end = min(y_end, height - 1);  // rows 1 .. height-2 have edge pixels
#pragma unroll 1
  for (int y0 = max(y_begin, 1); y0 < inner_end; y0 += ROWS) {
    // The row's first word (left edge: bytes 0-2) and last word (right
    // edge: bytes 1-3 of it) for up to ROWS rows, then the byte stores.
    unsigned first[ROWS], last[ROWS];
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
      const unsigned char* row = input + (size_t)min(y0 + k, inner_end - 1) * row_bytes;
      first[k] = left ? *reinterpret_cast<const unsigned*>(row) : 0u;
      last[k] = right ? *reinterpret_cast<const unsigned*>(row + row_bytes - 4) : 0u;
    }
#pragma unroll
    for (int k = 0; k < ROWS; ++k) {
      if (y0 + k >= inner_end) break;
      unsigned char* row = output + (size_t)(y0 + k) * row_bytes;
      if (left) {
        row[0] = (unsigned char)first[k];
        row[1] = (unsigned char)(first[k] >> 8);
        row[2] = (unsigned char)(first[k] >> 16);
      }
      if (right) {
        row[row_bytes - 3] = (unsigned char)(last[k] >> 8);
        row[row_bytes - 2] = (unsigned char)(last[k] >> 16);
        row[row_bytes - 1] = (unsigned char)(last[k] >> 24);
      }
    }
  }
}
#endif

// One thread's strip at byte b0 for output rows y_begin .. y_end-1, on rows
// that are a multiple of 16 bytes long (so every strip is 16-byte aligned).
// Input row y_begin-1+i is step i; rows pass through a ring of AHEAD loaded
// rows; the walk runs `chunks` unrolled chunks of ROWS steps, the same
// number for every lane of a warp (the shuffles need the whole warp).
// STAGE: the ring is in shared memory at stage_w (AHEAD x BLOCK strips)
// and stage_lr (2 x AHEAD x BLOCK halo words), a slot for each thread.
__device__ __forceinline__ void walk_strip(const unsigned char* __restrict__ input,
                                           unsigned char* __restrict__ output, int height,
                                           int row_bytes, int b0, int y_begin, int y_end,
                                           int chunks, int lane, uint4* stage_w,
                                           unsigned* stage_lr) {
  // Steps with an input row (none for a lane without a strip).
  const int load_end = y_end > y_begin ? min(height, y_end + 1) - (y_begin - 1) : 0;
  const int store_end = y_end - y_begin;                                // output rows
  const unsigned char* src = input + (size_t)y_begin * row_bytes + b0;  // row y_begin
  unsigned char* dst = output + (size_t)y_begin * row_bytes + b0;
  const int first = y_begin - 1;  // the input row of step 0
#if STAGE
  const int t = threadIdx.x;
  // Input step i into ring slot `slot`.
  auto fetch = [&](int i, int slot) {
    stage_strip(src + (long long)(i - 1) * row_bytes, first + i < 0 ? -1 : i, load_end, b0,
                row_bytes, lane, src, &stage_w[slot * BLOCK + t], &stage_lr[2 * slot * BLOCK + t],
                &stage_lr[(2 * slot + 1) * BLOCK + t]);
  };
#else
  unsigned ring[AHEAD][WORDS], ring_l[AHEAD], ring_r[AHEAD];
#if UNGUARDED
  // A row outside the image is read as row y_begin (src); the halo words
  // beyond a row's ends are not read (their register keeps its last value).
#pragma unroll
  for (int k = 0; k < AHEAD; ++k) ring_l[k] = ring_r[k] = 0;
  auto fetch = [&](int i, int slot) {
    const unsigned char* row_ptr = src + (long long)(i - 1) * row_bytes;
    if ((unsigned)(first + i) >= (unsigned)height) row_ptr = src;
    load_strip_words(row_ptr, b0, row_bytes, lane, ring[slot], ring_l[slot], ring_r[slot]);
  };
#else
  auto fetch = [&](int i, int slot) {
    load_strip(src + (long long)(i - 1) * row_bytes, first + i < 0 ? -1 : i, load_end, b0,
               row_bytes, lane, ring[slot], ring_l[slot], ring_r[slot]);
  };
#endif
#endif
  // Horizontal sums of rows y-1 (e0, o0), y (e1, o1) and y+1 (e2, o2).
  unsigned e0[WORDS] = {}, e1[WORDS] = {}, e2[WORDS] = {}, o0[WORDS] = {}, o1[WORDS] = {},
           o2[WORDS] = {};

  // Step i: take row i from the ring, ask for row i+AHEAD, sum row i; from
  // step 2 on, write output row i-2.
  auto step = [&](int i, int slot) {
    unsigned w[WORDS];
#if STAGE
    // Row i's copies have landed; the slot is refilled after its words are
    // used below (the sums read the registers, so the reads are done).
    stage_wait_oldest();
    const uint4 v = stage_w[slot * BLOCK + t];
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
    unsigned l = HALO_SHUFFLE && lane != 0 ? 0u : stage_lr[2 * slot * BLOCK + t];
    unsigned r = HALO_SHUFFLE && lane != 31 ? 0u : stage_lr[(2 * slot + 1) * BLOCK + t];
#else
#pragma unroll
    for (int k = 0; k < WORDS; ++k) w[k] = ring[slot][k];
    unsigned l = ring_l[slot], r = ring_r[slot];
    fetch(i + AHEAD, slot);
#endif
    if (HALO_SHUFFLE) {
      const unsigned from_left = __shfl_up_sync(FULL_WARP, w[WORDS - 1], 1);
      const unsigned from_right = __shfl_down_sync(FULL_WARP, w[0], 1);
      if (lane != 0) l = from_left;
      if (lane != 31) r = from_right;
    }
#if PAIRED
    // e0/o0: rows i-2 and i-1 summed; e1/o1: row i-1; e2/o2: row i.
    row_sums(l, w, r, e2, o2);
#if STAGE
    fetch(i + AHEAD, slot);
#endif
    const unsigned none[WORDS] = {};
    if (i >= 2 && i - 2 < store_end)
      store_row(e0, none, e2, o0, none, o2, src + (long long)(i - 2) * row_bytes,
                dst + (long long)(i - 2) * row_bytes, y_begin + i - 2, height, b0, row_bytes);
#pragma unroll
    for (int k = 0; k < WORDS; ++k) {
      e0[k] = e1[k] + e2[k];
      o0[k] = o1[k] + o2[k];
      e1[k] = e2[k];
      o1[k] = o2[k];
    }
#else
    push_row_sums(l, w, r, e0, e1, e2, o0, o1, o2);
#if STAGE
    fetch(i + AHEAD, slot);
#endif
#if UNGUARDED
    if (i >= 2)
      store_row_when(i - 2 < store_end, e0, e1, e2, o0, o1, o2, dst + (long long)(i - 2) * row_bytes);
#else
    if (i >= 2 && i - 2 < store_end)
      store_row(e0, e1, e2, o0, o1, o2, src + (long long)(i - 2) * row_bytes,
                dst + (long long)(i - 2) * row_bytes, y_begin + i - 2, height, b0, row_bytes);
#endif
#endif
#if SYNC_ROWS
    if (i % SYNC_ROWS == SYNC_ROWS - 1) __syncthreads();
#endif
  };

#pragma unroll
  for (int i = 0; i < AHEAD; ++i) fetch(i, i);
  step(0, 0);
  step(1, 1 % AHEAD);
  for (int c = 0; c < chunks; ++c) {
#pragma unroll
    for (int j = 0; j < ROWS; ++j)
      step(2 + c * ROWS + j, (2 + j) % AHEAD);  // c is 0 unless PERSISTENT
  }
#if STAGE
  stage_wait_all();  // the slots are free for the thread's next item
#endif
#if BORDER_AFTER
  patch_borders(input, output, height, row_bytes, b0, y_begin, y_end);
#endif
}

// The same strip, byte by byte from global memory, for rows whose length is
// not a multiple of 16 bytes (unaligned strips); kept small so it does not
// raise the kernel's register count.
__device__ void filter_strip_bytes(const unsigned char* __restrict__ input,
                                   unsigned char* __restrict__ output, int height, int row_bytes,
                                   int b0, int y_begin, int y_end) {
  const int b_end = min(b0 + STRIP, row_bytes);
#pragma unroll 1
  for (int y = y_begin; y < y_end; ++y) {
#pragma unroll 1
    for (int b = b0; b < b_end; ++b) {
      const size_t at = (size_t)y * row_bytes + b;
      unsigned value = input[at];
      if (y > 0 && y < height - 1 && b >= CH && b < row_bytes - CH) {
        unsigned sum = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -CH; dx <= CH; dx += CH) sum += input[at + (long long)dy * row_bytes + dx];
        value = sum / 9;
      }
      output[at] = (unsigned char)value;
    }
  }
}

#ifdef WARP_TIMES
// The clock and multiprocessor of a warp's record (the CPU backend has both
// as functions, and refuses the asm keyword outside preprocessor lines).
#ifdef __CUDAKIT_CPU__
#define warp_clock() __globaltimer()
#define warp_sm() __smid()
#else
#define WARP_TIMES_PTX asm volatile
__device__ __forceinline__ unsigned long long warp_clock() {
  unsigned long long t;
  WARP_TIMES_PTX("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned warp_sm() {
  unsigned s;
  WARP_TIMES_PTX("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
#endif
#endif

// Work items are (strip, group of rows), numbered group-major so no thread
// idles at the right edge. PERSISTENT 0: a group is ROWS rows and the grid
// covers every item. PERSISTENT 1: the grid is what the GPU holds at once
// (mean_filter_strips_launch) and the rows are split into as many groups as
// its threads cover, so every thread walks one equal group (no second wave,
// no tail). Either way any grid is correct: threads loop over items.
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    mean_filter_strips(const unsigned char* __restrict__ input, unsigned char* __restrict__ output,
                       int width, int height) {
  const int row_bytes = width * CH;
  const unsigned strips = (row_bytes + STRIP - 1) / STRIP;
  const unsigned threads = gridDim.x * blockDim.x;  // a multiple of 32
#if PERSISTENT
  const unsigned group_count = max(1u, min(threads / strips, (unsigned)height));
  const int group_rows = (height + group_count - 1) / group_count;
#else
  const int group_rows = ROWS;
#endif
  const unsigned groups = (height + group_rows - 1) / group_rows;
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
#ifdef WARP_TIMES
  const unsigned long long warp_start = warp_clock();
#endif
  const bool aligned = row_bytes % STRIP == 0;  // every strip 16-byte aligned; the same for all
#if STAGE
  __shared__ uint4 stage_w[AHEAD * BLOCK];
  __shared__ unsigned stage_lr[2 * AHEAD * BLOCK];
#else
  uint4* stage_w = nullptr;
  unsigned* stage_lr = nullptr;
#endif
#if VERTICAL
  // Units of 32 strips x one row group, a warp each; a block's warps take
  // the same 32 strips and consecutive groups (the loop keeps them so: the
  // grid's warps are a multiple of a block's).
  const unsigned tiles = (strips + 31) / 32, warps = BLOCK / 32;
  const unsigned units = tiles * ((groups + warps - 1) / warps) * warps;
  for (unsigned unit = id / 32; unit < units; unit += threads / 32) {
    const unsigned stack = unit / warps;
    const unsigned strip = (stack % tiles) * 32 + lane;
    const unsigned group = (stack / tiles) * warps + unit % warps;
    const bool live = strip < strips && group < groups;
    const int b0 = live ? (int)strip * STRIP : 0;
    const int y_begin = live ? (int)group * group_rows : 0;
#else
  const unsigned items = strips * groups;  // the launch keeps this below 2^32
  // The warp's lanes take consecutive items, so they loop together.
#if SYNC_ROWS
  // Every thread of the block loops as often (the walk has barriers).
  const unsigned rounds = (items + threads - 1) / threads;
  unsigned warp_item = id - lane;
  for (unsigned round = 0; round < rounds; ++round, warp_item += threads) {
#else
  for (unsigned warp_item = id - lane; warp_item < items; warp_item += threads) {
#endif
    const unsigned item = warp_item + lane;
    const bool live = item < items;
    const int b0 = live ? (int)(item % strips) * STRIP : 0;
    const int y_begin = live ? (int)(item / strips) * group_rows : 0;
#endif
    const int y_end = live ? min(y_begin + group_rows, height) : 0;
    if (aligned)
      walk_strip(input, output, height, row_bytes, b0, y_begin, y_end,
                 (group_rows + ROWS - 1) / ROWS, lane, stage_w, stage_lr);
    else if (live)
      filter_strip_bytes(input, output, height, row_bytes, b0, y_begin, y_end);
  }
#ifdef WARP_TIMES
  __syncwarp();
  if (lane == 0) {
    unsigned long long* record = warp_times + 3 * (size_t)(id / 32);
    record[0] = warp_sm();
    record[1] = warp_start;
    record[2] = warp_clock();
  }
#endif
}
)";

inline std::string mean_filter_strips_source(const MeanFilterStripsParams& p) {
  return "#define ROWS " + std::to_string(p.rows) + "\n#define AHEAD " + std::to_string(p.ahead) +
         "\n#define HALO_SHUFFLE " + std::string(p.halo_shuffle ? "1" : "0") +
         "\n#define MIN_BLOCKS " + std::to_string(p.min_blocks) + "\n#define PERSISTENT " +
         std::string(p.persistent ? "1" : "0") + "\n#define STREAM_STORES " +
         std::string(p.stream_stores ? "1" : "0") + "\n#define BLOCK " + std::to_string(p.block) +
         "\n#define WORDS " + std::to_string(p.words) + "\n#define VERTICAL " +
         std::string(p.vertical ? "1" : "0") + "\n#define LOAD_POLICY " +
         std::to_string(p.load_policy) + "\n#define SPLIT_FIRST " +
         std::string(p.split_sums ? "1" : "0") + "\n#define STAGE " +
         std::string(p.stage ? "1" : "0") + "\n#define PAIRED " +
         std::string(p.paired ? "1" : "0") + "\n#define BORDER_AFTER " +
         std::string(p.border_after ? "1" : "0") + "\n#define DIV_FLOAT " +
         std::string(p.div_float ? "1" : "0") + "\n#define UNGUARDED " +
         std::string(p.unguarded ? "1" : "0") + "\n#define SYNC_ROWS " +
         std::to_string(p.sync_rows) + "\n" + mean_filter_strips_body;
}

// What a variant is, for tables: "strips: 16 rows/thread, shuffle halo, 4 ahead".
inline std::string mean_filter_strips_title(const MeanFilterStripsParams& p) {
  std::string t = p.persistent ? "strips: resident grid, " + std::to_string(p.rows) + "-row chunks"
                               : "strips: " + std::to_string(p.rows) + " rows/thread";
  t += p.halo_shuffle ? ", shuffle halo" : ", loaded halo";
  t += ", " + std::to_string(p.ahead) + " ahead";
  if (p.min_blocks > 1)
    t += ", <=" + std::to_string(65536 / (p.block * p.min_blocks) / 8 * 8) + " regs";
  if (p.block != 128 && !p.vertical) t += ", " + std::to_string(p.block) + "-thread blocks";
  if (p.stream_stores) t += ", streaming stores";
  if (p.words != 4) t += ", " + std::to_string(4 * p.words) + "-byte strips";
  if (p.vertical) t += ", " + std::to_string(p.block / 32) + " warps stacked";
  if (p.load_policy == 1) t += ", L2 evict-last loads";
  if (p.load_policy == 2) t += ", evict-first loads";
  if (p.split_sums) t += ", split-first sums";
  if (p.stage) t += ", rows staged in shared memory (cp.async)";
  if (p.paired) t += ", paired row sums";
  if (p.border_after) t += ", borders patched after";
  if (p.unguarded) t += ", unguarded loads";
  if (p.div_float) t += ", float division";
  if (p.sync_rows > 0) t += ", block barrier every " + std::to_string(p.sync_rows) + " rows";
  return t;
}

// p.block threads a block; one thread per (16-byte strip, group of p.rows
// rows), or for a persistent variant as many blocks as `kernel` can keep
// resident on the device at once (no more than that).
inline LaunchConfig mean_filter_strips_launch(const Kernel& kernel, const MeanFilterStripsParams& p,
                                              int width, int height, StreamRef stream = {}) {
  const long long strips = (static_cast<long long>(width) * 3 + 4 * p.words - 1) / (4 * p.words);
  const long long groups = (height + p.rows - 1) / p.rows;
  long long threads = strips * groups;
  if (p.vertical) {  // whole 32-strip x (block / 32)-group stacks
    const long long warps = p.block / 32;
    threads = (strips + 31) / 32 * ((groups + warps - 1) / warps) * p.block;
  }
  if (threads >= (1ll << 32) - 1024)
    throw Error(
        "mean_filter_strips",
        "image of " + std::to_string(width) + "x" + std::to_string(height) + " pixels is too large",
        "split it into bands of fewer rows");
  long long blocks = (threads + p.block - 1) / p.block;
  if (p.persistent)
    blocks = std::min(blocks, std::max(1ll, kernel.max_cooperative_grid_blocks(p.block)));
  LaunchConfig c;
  c.stream = stream;
  c.block = Dim3(static_cast<unsigned>(p.block));
  c.grid = Dim3(static_cast<unsigned>(std::max(1ll, blocks)));
  return c;
}

}  // namespace cudakit::workloads
