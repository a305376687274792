// Step 5 variants with Hopper bulk copies: the strip arithmetic of
// mean_filter_strips.hpp, with input rows brought into a shared-memory ring
// by one thread's bulk copies (cp.async.bulk, sm_90) instead of a load
// instruction per thread and row. A block is BULK_CONSUMERS threads that
// compute (16 bytes of a row each: a band of BULK_CONSUMERS x 16 bytes) and
// one producer warp whose first lane copies each input row of the band (the
// band and 16 halo bytes either side, one bulk copy) into the next ring slot.
// Two mbarriers a slot: "full" completes when the row's bytes have landed
// (the copy counts its bytes against the barrier), "empty" when every
// consumer warp has read the slot, so the producer runs up to STAGES rows
// ahead with no block-wide barrier and no per-thread copy instructions; the
// bytes in flight live in shared memory (STAGES x the band a block), not in
// registers. Consumers keep the last three rows' horizontal sums in
// registers and store 16 bytes a row evict-first, as the strips do.
//
// Work items are (band, group of rows), the rows split equally into as many
// groups as the grid has blocks per band: with the launch's resident grid,
// one tall item per block, one wave, no tail. Any grid is correct: a
// block's items form one stream of input rows, so the producer prefetches
// the next item's rows while the consumers finish the current one.
//
// The CPU backend and GPUs before sm_90 run the same protocol with the
// barriers emulated by shared-memory atomics and the copies done
// synchronously by the producer (so the example checks the ring's phases and
// slot reuse on the CPU backend too).
#pragma once

#include <algorithm>
#include <cudakit/kernel.hpp>
#include <cudakit/launch_config.hpp>
#include <string>

#include "workloads/mean_filter_strips.hpp"

namespace cudakit::workloads {

struct MeanFilterBulkParams {
  int consumers = 128;      // threads that compute (BULK_CONSUMERS), a multiple of 32
  int stages = 12;          // rows in the shared-memory ring (STAGES >= 2)
  int min_blocks = 1;       // __launch_bounds__'s blocks per multiprocessor
  bool keep_input = false;  // bulk copies with an L2 evict-last hint (BULK_KEEP_INPUT)
  bool split_sums = false;  // the strips' SPLIT_FIRST row sums
};

// After the strips text (row_sums, store_row and filter_strip_bytes with
// WORDS 4 and STREAM_STORES 1).
inline constexpr const char* mean_filter_bulk_body = R"(
#define BAND (BULK_CONSUMERS * 16)  // bytes of a row a block owns
#define STAGED_ROW (BAND + 32)      // a staged row: the band and 16 halo bytes either side
#define BULK_THREADS (BULK_CONSUMERS + 32)
#define CONSUMER_WARPS (BULK_CONSUMERS / 32)

// The barriers and copies: PTX on sm_90 (named through a macro: the CPU
// backend refuses the asm keyword outside preprocessor lines), emulated
// elsewhere.
#if !defined(__CUDAKIT_CPU__) && __CUDA_ARCH__ >= 900
#define BULK_ASYNC 1
#define GPU_ASM asm volatile
#else
#define BULK_ASYNC 0
#endif

#if BULK_ASYNC
typedef unsigned long long ring_barrier;
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void barrier_init(ring_barrier* b, unsigned count) {
  GPU_ASM("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(b)), "r"(count)
          : "memory");
}
// Makes the initialised barriers visible to the copy engine (then a
// __syncthreads makes them visible to the block).
__device__ __forceinline__ void barriers_initialised() {
  GPU_ASM("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void barrier_arrive(ring_barrier* b) {
  GPU_ASM("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}" ::"r"(
              shared_address(b))
          : "memory");
}
// True once the phase of parity `parity` has completed.
__device__ __forceinline__ bool barrier_done(ring_barrier* b, unsigned parity) {
  unsigned done;
  GPU_ASM(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}"
      : "=r"(done)
      : "r"(shared_address(b)), "r"(parity)
      : "memory");
  return done != 0;
}
// `bytes` (a multiple of 16, both addresses 16-byte aligned) from global
// memory to shared memory; `b`'s phase completes when they have landed
// (the producer's arrival tells it how many to wait for).
__device__ __forceinline__ void copy_row(unsigned char* to, const unsigned char* from,
                                         unsigned bytes, ring_barrier* b) {
  GPU_ASM("{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}" ::
              "r"(shared_address(b)),
          "r"(bytes)
          : "memory");
#if BULK_KEEP_INPUT
  unsigned long long policy;
  GPU_ASM("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  GPU_ASM(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1], %2, [%3], %4;" ::"r"(shared_address(to)),
      "l"(from), "r"(bytes), "r"(shared_address(b)), "l"(policy)
      : "memory");
#else
  GPU_ASM("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
              "r"(shared_address(to)),
          "l"(from), "r"(bytes), "r"(shared_address(b))
          : "memory");
#endif
}
#else
// Arrivals still expected in this phase, and the phase's parity.
struct ring_barrier {
  unsigned count, arrivals, phase;
};
__device__ __forceinline__ void barrier_init(ring_barrier* b, unsigned count) {
  b->count = count;
  b->arrivals = 0;
  b->phase = 0;
}
__device__ __forceinline__ void barriers_initialised() {}
__device__ __forceinline__ void barrier_arrive(ring_barrier* b) {
  __threadfence_block();  // what this thread read or wrote comes first
  if (atomicAdd(&b->arrivals, 1u) == b->count - 1) {
    atomicExch(&b->arrivals, 0u);  // no one arrives for the next phase before it flips
    __threadfence_block();
    atomicXor(&b->phase, 1u);
  }
}
__device__ __forceinline__ bool barrier_done(ring_barrier* b, unsigned parity) {
  const bool done = atomicAdd(&b->phase, 0u) != parity;
  __threadfence_block();
  return done;
}
__device__ __forceinline__ void copy_row(unsigned char* to, const unsigned char* from,
                                         unsigned bytes, ring_barrier* b) {
  for (unsigned k = 0; k < bytes; k += 16)
    *reinterpret_cast<uint4*>(to + k) = *reinterpret_cast<const uint4*>(from + k);
  barrier_arrive(b);
}
#endif

// Waits for the phase of parity `parity`; false if it has not completed
// after about a second on a GPU (a minute on the CPU backend). A wait in
// this kernel lasts microseconds; a protocol error then ends the block with
// its output unwritten (the benchmark reports the step WRONG) rather than
// hanging the process.
#if BULK_ASYNC
#define WAIT_LIMIT (1ll << 31)  // clock64 cycles
#else
#define WAIT_LIMIT 60000000000ll  // clock64 nanoseconds on the CPU backend
#endif
__device__ __forceinline__ bool barrier_wait(ring_barrier* b, unsigned parity) {
  if (barrier_done(b, parity)) return true;
  const long long start = clock64();
  while (!barrier_done(b, parity)) {
#if !BULK_ASYNC
    __nanosleep(32);  // lets the other threads run (the CPU backend switches here)
#endif
    if (clock64() - start > WAIT_LIMIT) return false;
  }
  return true;
}

// How a block's stream of input rows maps onto its items: step g is input
// row i = g % steps of the block's item n = g / steps, the item
// blockIdx.x + n * gridDim.x, i.e. band item % bands of row group item / bands
// (consecutive blocks share rows, so halo rows read twice hit L2).
struct bulk_layout {
  int row_bytes, bands, group_rows, steps;
  long long items;
};
__device__ __forceinline__ bulk_layout bulk_layout_of(int width, int height) {
  bulk_layout t;
  t.row_bytes = width * CH;
  t.bands = (t.row_bytes + BAND - 1) / BAND;
  const int group_count = max(1, min((int)gridDim.x / t.bands, height));
  t.group_rows = (height + group_count - 1) / group_count;
  const int groups = (height + t.group_rows - 1) / t.group_rows;
  t.items = (long long)t.bands * groups;
  t.steps = t.group_rows + 2;  // input rows y_begin-1 .. y_begin+group_rows
  return t;
}

// Input row i of item `item` into ring slot `to` (nothing for rows outside the
// image: they only feed border bytes, which store_row copies); completes
// `full` either way.
__device__ __forceinline__ void fill_slot(const unsigned char* __restrict__ input,
                                          const bulk_layout& t, int height, long long item, int i,
                                          unsigned char* to, ring_barrier* full) {
  const int band0 = (int)(item % t.bands) * BAND;
  const int y = (int)(item / t.bands) * t.group_rows - 1 + i;
  if (y < 0 || y >= height) {
    barrier_arrive(full);
    return;
  }
  const int lo = max(band0 - 16, 0), hi = min(band0 + BAND + 16, t.row_bytes);
  copy_row(to + 16 + (lo - band0), input + (size_t)y * t.row_bytes + lo, (unsigned)(hi - lo), full);
}

__global__ void __launch_bounds__(BULK_THREADS, BULK_MIN_BLOCKS)
mean_filter_bulk(const unsigned char* __restrict__ input, unsigned char* __restrict__ output,
                 int width, int height) {
  __shared__ uint4 ring_words[STAGES][STAGED_ROW / 16];  // uint4: 16-byte aligned rows
  __shared__ ring_barrier full[STAGES], empty[STAGES];
  unsigned char(*ring)[STAGED_ROW] = reinterpret_cast<unsigned char(*)[STAGED_ROW]>(ring_words);
  const bulk_layout t = bulk_layout_of(width, height);
  const long long my_items =
      blockIdx.x < t.items ? (t.items - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const int tid = threadIdx.x;
  if (t.row_bytes % 16 != 0) {
    // Rows not a multiple of 16 bytes long: the strips' byte-wise path.
    if (tid >= BULK_CONSUMERS) return;
    for (long long n = 0; n < my_items; ++n) {
      const long long item = blockIdx.x + n * gridDim.x;
      const int b0 = (int)(item % t.bands) * BAND + tid * 16;
      const int y_begin = (int)(item / t.bands) * t.group_rows;
      if (b0 < t.row_bytes)
        filter_strip_bytes(input, output, height, t.row_bytes, b0, y_begin,
                           min(y_begin + t.group_rows, height));
    }
    return;
  }
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      barrier_init(&full[s], 1);                // the producer's arrival (and the bytes)
      barrier_init(&empty[s], CONSUMER_WARPS);  // one arrival a consumer warp
    }
    barriers_initialised();
  }
  __syncthreads();
  const long long total = my_items * t.steps;  // input rows this block streams
  if (tid >= BULK_CONSUMERS) {
    // The producer: slot g % STAGES holds step g; its use number u = g / STAGES
    // waits for the consumers to have released use u-1, the phase of parity
    // (u-1) & 1 (for u = 0 the barrier's "previous phase", parity 1, counts
    // as done).
    if (tid == BULK_CONSUMERS) {
      long long item = blockIdx.x;
      int i = 0, s = 0;
      unsigned parity = 1;
      for (long long g = 0; g < total; ++g) {
        if (!barrier_wait(&empty[s], parity)) return;
        fill_slot(input, t, height, item, i, ring[s], &full[s]);
        if (++s == STAGES) {
          s = 0;
          parity ^= 1u;
        }
        if (++i == t.steps) {
          i = 0;
          item += gridDim.x;
        }
      }
    }
    return;
  }
  const int lane = tid & 31;
  unsigned e0[4] = {}, e1[4] = {}, e2[4] = {}, o0[4] = {}, o1[4] = {}, o2[4] = {};
  long long item = blockIdx.x;
  int i = 0;  // the step's input row within its item
  int s = 0;  // its ring slot, g % STAGES
  unsigned parity = 0;  // (g / STAGES) & 1
  int b0 = 0, y_begin = 0, y_end = 0;  // the item's strip and output rows
  for (long long g = 0; g < total; ++g) {
    if (i == 0) {
      b0 = (int)(item % t.bands) * BAND + tid * 16;
      y_begin = (int)(item / t.bands) * t.group_rows;
      y_end = b0 < t.row_bytes ? min(y_begin + t.group_rows, height) : 0;
    }
    // A timed-out wait ends the whole warp at once (no lane is left alone
    // at the __syncwarp below).
    if (__any_sync(FULL_WARP, !barrier_wait(&full[s], parity))) return;
    const unsigned char* at = ring[s] + 16 + tid * 16;
    unsigned w[4], l, r;
    read_staged_strip(at, w, l, r);
    push_row_sums(l, w, r, e0, e1, e2, o0, o1, o2);
    // Every lane has used what it read from the slot: release it.
    __syncwarp();
    if (lane == 0) barrier_arrive(&empty[s]);
    if (++s == STAGES) {
      s = 0;
      parity ^= 1u;
    }
    const int y = y_begin + i - 2;  // the output row whose three rows are in
    if (i >= 2 && y < y_end) {
      const size_t at_row = (size_t)y * t.row_bytes + b0;
      store_row(e0, e1, e2, o0, o1, o2, input + at_row, output + at_row, y, height, b0,
                t.row_bytes);
    }
    if (++i == t.steps) {
      i = 0;
      item += gridDim.x;
    }
  }
}
)";

inline std::string mean_filter_bulk_source(const MeanFilterBulkParams& p) {
  MeanFilterStripsParams strips;  // the helpers: 16-byte strips, streaming stores
  strips.stream_stores = true;
  strips.block = p.consumers + 32;
  strips.split_sums = p.split_sums;
  return "#define BULK_CONSUMERS " + std::to_string(p.consumers) + "\n#define STAGES " +
         std::to_string(p.stages) + "\n#define BULK_MIN_BLOCKS " + std::to_string(p.min_blocks) +
         "\n#define BULK_KEEP_INPUT " + std::string(p.keep_input ? "1" : "0") + "\n" +
         mean_filter_strips_source(strips) + mean_filter_bulk_body;
}

inline std::string mean_filter_bulk_title(const MeanFilterBulkParams& p) {
  std::string t = "bulk copies: " + std::to_string(16 * p.consumers) + "-byte band, " +
                  std::to_string(p.stages) + "-row mbarrier ring";
  if (p.min_blocks > 1) t += ", " + std::to_string(p.min_blocks) + " blocks/SM";
  if (p.split_sums) t += ", split-first sums";
  if (p.keep_input) t += ", L2 evict-last copies";
  return t + ", streaming stores";
}

// p.consumers + 32 threads a block; as many row groups per band as the
// resident grid holds (the kernel derives the same groups from the grid; a
// block left without an item returns at once).
inline LaunchConfig mean_filter_bulk_launch(const Kernel& kernel, const MeanFilterBulkParams& p,
                                            int width, int height, StreamRef stream = {}) {
  const int threads = p.consumers + 32;
  const long long band_bytes = 16ll * p.consumers;
  const long long bands = (static_cast<long long>(width) * 3 + band_bytes - 1) / band_bytes;
  const long long resident = std::max(1ll, kernel.max_cooperative_grid_blocks(threads));
  const long long group_count = std::clamp(resident / bands, 1ll, std::max(1ll, 0ll + height));
  LaunchConfig c;
  c.stream = stream;
  c.block = Dim3(static_cast<unsigned>(threads));
  c.grid = Dim3(static_cast<unsigned>(std::max(1ll, bands * group_count)));
  return c;
}

}  // namespace cudakit::workloads
