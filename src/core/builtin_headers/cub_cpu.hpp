// cub's block- and warp-level primitives for cudakit's CPU backend, which
// brings this header for <cub/cub.cuh>, <cub/block/*.cuh> and
// <cub/warp/*.cuh>. The toolkit's cub is written in PTX and the GPU's
// intrinsics; here the same API (CUB 3, with the CUB 2 functors cub::Sum,
// cub::Max and cub::Min) runs on the backend's fibers through __shared__
// TempStorage, __syncthreads and warp shuffles. Results follow cub's
// definitions: block sums combine each warp's values in the shuffle tree cub
// uses and then the warps in order, as BLOCK_REDUCE_WARP_REDUCTIONS does;
// warp reductions and scans use cub's shuffle sequences; radix sorts are
// stable and order -0.0 and +0.0 as equal. Floating-point block scans may
// round differently from the GPU's raking order. Device-wide algorithms
// (cub::DeviceReduce, ...) launch kernels from the host and are refused.
#pragma once

// (The CPU backend reads the standard headers below before the prelude's
// CUDA macros: g++ 13's libstdc++ spells __attribute__((__noinline__)).)
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace cuda {
namespace std {
template <class T = void>
struct plus {
  constexpr T operator()(const T& a, const T& b) const { return a + b; }
};
template <>
struct plus<void> {
  template <class A, class B>
  constexpr auto operator()(const A& a, const B& b) const {
    return a + b;
  }
};
template <class T = void>
struct multiplies {
  constexpr T operator()(const T& a, const T& b) const { return a * b; }
};
template <>
struct multiplies<void> {
  template <class A, class B>
  constexpr auto operator()(const A& a, const B& b) const {
    return a * b;
  }
};
}  // namespace std
template <class T = void>
struct maximum {
  constexpr T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <>
struct maximum<void> {
  template <class A, class B>
  constexpr auto operator()(const A& a, const B& b) const {
    return a < b ? b : a;
  }
};
template <class T = void>
struct minimum {
  constexpr T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <>
struct minimum<void> {
  template <class A, class B>
  constexpr auto operator()(const A& a, const B& b) const {
    return b < a ? b : a;
  }
};
}  // namespace cuda

namespace cub {

// CUB 2's functors, still common in kernels written for older toolkits.
struct Sum {
  template <class T>
  T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
struct Max {
  template <class T>
  T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};
struct Min {
  template <class T>
  T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

struct NullType {};

enum BlockReduceAlgorithm {
  BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
  BLOCK_REDUCE_RAKING,
  BLOCK_REDUCE_WARP_REDUCTIONS
};
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };
enum BlockLoadAlgorithm {
  BLOCK_LOAD_DIRECT,
  BLOCK_LOAD_STRIPED,
  BLOCK_LOAD_VECTORIZE,
  BLOCK_LOAD_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED
};
enum BlockStoreAlgorithm {
  BLOCK_STORE_DIRECT,
  BLOCK_STORE_STRIPED,
  BLOCK_STORE_VECTORIZE,
  BLOCK_STORE_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
};
enum BlockHistogramMemoryPreference { GMEM, SMEM, BLEND };
enum CacheLoadModifier {
  LOAD_DEFAULT,
  LOAD_CA,
  LOAD_CG,
  LOAD_CS,
  LOAD_CV,
  LOAD_LDG,
  LOAD_VOLATILE
};

namespace cudakit_cpu_detail {

// The thread's rank in a block of the given shape, as cub counts it.
template <int X, int Y, int Z>
inline int row_major_tid() {
  return static_cast<int>(threadIdx.x) + (Y == 1 ? 0 : static_cast<int>(threadIdx.y) * X) +
         (Z == 1 ? 0 : static_cast<int>(threadIdx.z) * X * Y);
}

// Lanes 0..count-1 of `values` reduced in the order of cub's warp shuffle
// reduction (offsets 1, 2, 4, ...): the result is the tree's root, values[0].
template <class T, class Op>
inline T shuffle_tree_reduce(T* values, int count, Op op) {
  for (int offset = 1; offset < count; offset *= 2)
    for (int lane = 0; lane + offset < count; lane += 2 * offset)
      values[lane] = op(values[lane], values[lane + offset]);
  return values[0];
}

// values[0..count) reduced as BLOCK_REDUCE_WARP_REDUCTIONS does: each warp
// in its shuffle tree, then the warps' results from the first to the last.
template <class T, class Op>
inline T block_reduce(T* values, int count, Op op) {
  T total = shuffle_tree_reduce(values, std::min(count, 32), op);
  for (int warp = 32; warp < count; warp += 32)
    total = op(total, shuffle_tree_reduce(values + warp, std::min(count - warp, 32), op));
  return total;
}

template <class T, int N, class Op>
inline T thread_reduce(const T (&items)[N], Op op) {
  T total = items[0];
  for (int i = 1; i < N; ++i) total = op(total, items[i]);
  return total;
}

template <class... A>
constexpr bool always_false = false;

}  // namespace cudakit_cpu_detail

// ---- BlockReduce -----------------------------------------------------------------
template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockReduce {
  static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  struct Storage {
    T items[BLOCK_THREADS];
  };

 public:
  struct TempStorage : Storage {};

  BlockReduce() : storage_(private_storage()), tid_(tid()) {}
  explicit BlockReduce(TempStorage& temp_storage) : storage_(temp_storage), tid_(tid()) {}

  // The block's reduction, in thread 0 (as on a GPU, other threads get a
  // value of no meaning).
  template <class ReductionOp>
  T Reduce(T input, ReductionOp reduction_op) {
    return Reduce(input, reduction_op, BLOCK_THREADS);
  }
  template <int ITEMS_PER_THREAD, class ReductionOp>
  T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op) {
    return Reduce(cudakit_cpu_detail::thread_reduce(inputs, reduction_op), reduction_op);
  }
  template <class ReductionOp>
  T Reduce(T input, ReductionOp reduction_op, int num_valid) {
    storage_.items[tid_] = input;
    __syncthreads();
    if (tid_ != 0) return input;
    T values[BLOCK_THREADS];
    const int count = std::max(1, std::min(num_valid, BLOCK_THREADS));
    for (int i = 0; i < count; ++i) values[i] = storage_.items[i];
    return cudakit_cpu_detail::block_reduce(values, count, reduction_op);
  }
  T Sum(T input) { return Reduce(input, cuda::std::plus<>{}); }
  template <int ITEMS_PER_THREAD>
  T Sum(T (&inputs)[ITEMS_PER_THREAD]) {
    return Reduce(inputs, cuda::std::plus<>{});
  }
  T Sum(T input, int num_valid) { return Reduce(input, cuda::std::plus<>{}, num_valid); }

 private:
  static int tid() {
    return cudakit_cpu_detail::row_major_tid<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>();
  }
  static TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }
  Storage& storage_;
  int tid_;
};

// ---- BlockScan -------------------------------------------------------------------
template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockScan {
  static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  struct Storage {
    T partials[BLOCK_THREADS];  // each thread's reduction, then its exclusive prefix
    T aggregate;
    T block_prefix;
  };
  struct NoPrefix {};

 public:
  struct TempStorage : Storage {};

  BlockScan() : storage_(private_storage()), tid_(tid()) {}
  explicit BlockScan(TempStorage& temp_storage) : storage_(temp_storage), tid_(tid()) {}

  // ---- sums
  void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T(), cuda::std::plus<>{}); }
  void ExclusiveSum(T input, T& output, T& block_aggregate) {
    ExclusiveScan(input, output, T(), cuda::std::plus<>{}, block_aggregate);
  }
  template <class PrefixOp>
  void ExclusiveSum(T input, T& output, PrefixOp& prefix_op) {
    ExclusiveScan(input, output, cuda::std::plus<>{}, prefix_op);
  }
  template <int N>
  void ExclusiveSum(T (&input)[N], T (&output)[N]) {
    ExclusiveScan(input, output, T(), cuda::std::plus<>{});
  }
  template <int N>
  void ExclusiveSum(T (&input)[N], T (&output)[N], T& block_aggregate) {
    ExclusiveScan(input, output, T(), cuda::std::plus<>{}, block_aggregate);
  }
  template <int N, class PrefixOp>
  void ExclusiveSum(T (&input)[N], T (&output)[N], PrefixOp& prefix_op) {
    ExclusiveScan(input, output, cuda::std::plus<>{}, prefix_op);
  }
  void InclusiveSum(T input, T& output) { InclusiveScan(input, output, cuda::std::plus<>{}); }
  void InclusiveSum(T input, T& output, T& block_aggregate) {
    InclusiveScan(input, output, cuda::std::plus<>{}, block_aggregate);
  }
  template <class PrefixOp>
  void InclusiveSum(T input, T& output, PrefixOp& prefix_op) {
    InclusiveScan(input, output, cuda::std::plus<>{}, prefix_op);
  }
  template <int N>
  void InclusiveSum(T (&input)[N], T (&output)[N]) {
    InclusiveScan(input, output, cuda::std::plus<>{});
  }
  template <int N>
  void InclusiveSum(T (&input)[N], T (&output)[N], T& block_aggregate) {
    InclusiveScan(input, output, cuda::std::plus<>{}, block_aggregate);
  }
  template <int N, class PrefixOp>
  void InclusiveSum(T (&input)[N], T (&output)[N], PrefixOp& prefix_op) {
    InclusiveScan(input, output, cuda::std::plus<>{}, prefix_op);
  }

  // ---- exclusive scans: one item per thread
  template <class ScanOp>
  void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op) {
    T aggregate;
    ExclusiveScan(input, output, initial_value, scan_op, aggregate);
  }
  template <class ScanOp>
  void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op, T& block_aggregate) {
    T items[1] = {input}, out[1];
    scan<true, true>(items, out, &initial_value, scan_op, block_aggregate, nullptr_prefix());
    output = out[0];
  }
  // Without an initial value thread 0's output is left as it was (cub leaves
  // it undefined).
  template <class ScanOp>
  void ExclusiveScan(T input, T& output, ScanOp scan_op) {
    T aggregate;
    ExclusiveScan(input, output, scan_op, aggregate);
  }
  template <class ScanOp>
  void ExclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) {
    T items[1] = {input}, out[1] = {output};
    scan<true, false>(items, out, nullptr, scan_op, block_aggregate, nullptr_prefix());
    output = out[0];
  }
  template <class ScanOp, class PrefixOp>
  void ExclusiveScan(T input, T& output, ScanOp scan_op, PrefixOp& prefix_op) {
    T items[1] = {input}, out[1], aggregate;
    scan<true, false>(items, out, nullptr, scan_op, aggregate, &prefix_op);
    output = out[0];
  }
  // ---- exclusive scans: items per thread (blocked arrangement)
  template <int N, class ScanOp>
  void ExclusiveScan(T (&input)[N], T (&output)[N], T initial_value, ScanOp scan_op) {
    T aggregate;
    scan<true, true>(input, output, &initial_value, scan_op, aggregate, nullptr_prefix());
  }
  template <int N, class ScanOp>
  void ExclusiveScan(T (&input)[N], T (&output)[N], T initial_value, ScanOp scan_op,
                     T& block_aggregate) {
    scan<true, true>(input, output, &initial_value, scan_op, block_aggregate, nullptr_prefix());
  }
  template <int N, class ScanOp>
  void ExclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op) {
    T aggregate;
    scan<true, false>(input, output, nullptr, scan_op, aggregate, nullptr_prefix());
  }
  template <int N, class ScanOp>
  void ExclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op, T& block_aggregate) {
    scan<true, false>(input, output, nullptr, scan_op, block_aggregate, nullptr_prefix());
  }
  template <int N, class ScanOp, class PrefixOp>
  void ExclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op, PrefixOp& prefix_op) {
    T aggregate;
    scan<true, false>(input, output, nullptr, scan_op, aggregate, &prefix_op);
  }

  // ---- inclusive scans
  template <class ScanOp>
  void InclusiveScan(T input, T& output, ScanOp scan_op) {
    T aggregate;
    InclusiveScan(input, output, scan_op, aggregate);
  }
  template <class ScanOp>
  void InclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) {
    T items[1] = {input}, out[1];
    scan<false, false>(items, out, nullptr, scan_op, block_aggregate, nullptr_prefix());
    output = out[0];
  }
  template <class ScanOp, class PrefixOp>
  void InclusiveScan(T input, T& output, ScanOp scan_op, PrefixOp& prefix_op) {
    T items[1] = {input}, out[1], aggregate;
    scan<false, false>(items, out, nullptr, scan_op, aggregate, &prefix_op);
    output = out[0];
  }
  template <int N, class ScanOp>
  void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op) {
    T aggregate;
    scan<false, false>(input, output, nullptr, scan_op, aggregate, nullptr_prefix());
  }
  template <int N, class ScanOp>
  void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op, T& block_aggregate) {
    scan<false, false>(input, output, nullptr, scan_op, block_aggregate, nullptr_prefix());
  }
  template <int N, class ScanOp, class PrefixOp>
  void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op, PrefixOp& prefix_op) {
    T aggregate;
    scan<false, false>(input, output, nullptr, scan_op, aggregate, &prefix_op);
  }

 private:
  static NoPrefix* nullptr_prefix() { return nullptr; }
  static int tid() {
    return cudakit_cpu_detail::row_major_tid<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>();
  }
  static TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }

  // The one scan every entry point runs: each thread's items reduced, the
  // block's exclusive prefixes of those (thread 0, in order), an optional
  // prefix from the callback (called by the first warp, lane 0's value
  // used), then each thread's items scanned from its prefix.
  template <bool EXCLUSIVE, bool HAS_INITIAL, int N, class ScanOp, class PrefixOp>
  void scan(T (&input)[N], T (&output)[N], const T* initial, ScanOp op, T& block_aggregate,
            PrefixOp* prefix_op) {
    constexpr bool has_prefix_op = !std::is_same<PrefixOp, NoPrefix>::value;
    storage_.partials[tid_] = cudakit_cpu_detail::thread_reduce(input, op);
    __syncthreads();
    if (tid_ == 0) {
      T running = storage_.partials[0];
      for (int t = 1; t < BLOCK_THREADS; ++t) {
        const T partial = storage_.partials[t];
        storage_.partials[t] = running;
        running = op(running, partial);
      }
      storage_.aggregate = running;
    }
    __syncthreads();
    block_aggregate = storage_.aggregate;
    bool have_prefix = HAS_INITIAL;
    T prefix = HAS_INITIAL ? *initial : T();
    if constexpr (has_prefix_op) {
      if (tid_ < 32) {
        const T from_callback = (*prefix_op)(block_aggregate);
        if (tid_ == 0) storage_.block_prefix = from_callback;
      }
      __syncthreads();
      prefix = storage_.block_prefix;
      have_prefix = true;
    }
    // The thread's exclusive prefix: what comes before its first item.
    if (tid_ > 0) {
      prefix = have_prefix ? op(prefix, storage_.partials[tid_]) : storage_.partials[tid_];
      have_prefix = true;
    }
    if constexpr (EXCLUSIVE) {
      T running = prefix;
      for (int i = 0; i < N; ++i) {
        const T item = input[i];
        if (have_prefix) output[i] = running;
        running = have_prefix ? op(running, item) : item;
        have_prefix = true;
      }
    } else {
      T running = prefix;
      for (int i = 0; i < N; ++i) {
        running = have_prefix ? op(running, input[i]) : input[i];
        have_prefix = true;
        output[i] = running;
      }
    }
  }

  Storage& storage_;
  int tid_;
};

// ---- WarpReduce / WarpScan ---------------------------------------------------------
template <class T, int LOGICAL_WARP_THREADS = 32>
class WarpReduce {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32 &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "cub::WarpReduce on the CPU backend takes a power-of-two logical warp of 1..32");

 public:
  struct TempStorage {};
  explicit WarpReduce(TempStorage&) {}

  // The logical warp's reduction, in its lane 0, by cub's shuffle sequence.
  template <class ReductionOp>
  T Reduce(T input, ReductionOp op) {
    return Reduce(input, op, LOGICAL_WARP_THREADS);
  }
  template <class ReductionOp>
  T Reduce(T input, ReductionOp op, int valid_items) {
    const int lane = ::cudakit_cpu::lane_id() % LOGICAL_WARP_THREADS;
    T value = input;
    for (int offset = 1; offset < LOGICAL_WARP_THREADS; offset *= 2) {
      const T other = __shfl_down_sync(0xffffffffu, value, offset, LOGICAL_WARP_THREADS);
      if (lane + offset < valid_items) value = op(value, other);
    }
    return value;
  }
  T Sum(T input) { return Reduce(input, cuda::std::plus<>{}); }
  T Sum(T input, int valid_items) { return Reduce(input, cuda::std::plus<>{}, valid_items); }
};

template <class T, int LOGICAL_WARP_THREADS = 32>
class WarpScan {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32 &&
                    (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                "cub::WarpScan on the CPU backend takes a power-of-two logical warp of 1..32");

 public:
  struct TempStorage {};
  explicit WarpScan(TempStorage&) {}

  template <class ScanOp>
  void InclusiveScan(T input, T& output, ScanOp op) {
    const int lane = lane_in_warp();
    output = input;
    for (int offset = 1; offset < LOGICAL_WARP_THREADS; offset *= 2) {
      const T other = __shfl_up_sync(0xffffffffu, output, offset, LOGICAL_WARP_THREADS);
      if (lane >= offset) output = op(other, output);
    }
  }
  template <class ScanOp>
  void InclusiveScan(T input, T& output, ScanOp op, T& warp_aggregate) {
    InclusiveScan(input, output, op);
    warp_aggregate = Broadcast(output, LOGICAL_WARP_THREADS - 1);
  }
  void InclusiveSum(T input, T& output) { InclusiveScan(input, output, cuda::std::plus<>{}); }
  void InclusiveSum(T input, T& output, T& warp_aggregate) {
    InclusiveScan(input, output, cuda::std::plus<>{}, warp_aggregate);
  }
  template <class ScanOp>
  void ExclusiveScan(T input, T& output, T initial_value, ScanOp op) {
    T aggregate;
    ExclusiveScan(input, output, initial_value, op, aggregate);
  }
  template <class ScanOp>
  void ExclusiveScan(T input, T& output, T initial_value, ScanOp op, T& warp_aggregate) {
    T inclusive;
    InclusiveScan(input, inclusive, op, warp_aggregate);
    const T before = __shfl_up_sync(0xffffffffu, inclusive, 1, LOGICAL_WARP_THREADS);
    output = lane_in_warp() == 0 ? initial_value : op(initial_value, before);
  }
  // Without an initial value lane 0's output is left as it was.
  template <class ScanOp>
  void ExclusiveScan(T input, T& output, ScanOp op) {
    T aggregate;
    ExclusiveScan(input, output, op, aggregate);
  }
  template <class ScanOp>
  void ExclusiveScan(T input, T& output, ScanOp op, T& warp_aggregate) {
    T inclusive;
    InclusiveScan(input, inclusive, op, warp_aggregate);
    const T before = __shfl_up_sync(0xffffffffu, inclusive, 1, LOGICAL_WARP_THREADS);
    if (lane_in_warp() != 0) output = before;
  }
  void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T(), cuda::std::plus<>{}); }
  void ExclusiveSum(T input, T& output, T& warp_aggregate) {
    ExclusiveScan(input, output, T(), cuda::std::plus<>{}, warp_aggregate);
  }
  T Broadcast(T input, unsigned src_lane) {
    return __shfl_sync(0xffffffffu, input, static_cast<int>(src_lane), LOGICAL_WARP_THREADS);
  }

 private:
  static int lane_in_warp() { return ::cudakit_cpu::lane_id() % LOGICAL_WARP_THREADS; }
};

// ---- direct loads and stores -------------------------------------------------------
template <class T, int N, class InputIt>
inline void LoadDirectBlocked(int linear_tid, InputIt in, T (&items)[N]) {
  for (int i = 0; i < N; ++i) items[i] = in[linear_tid * N + i];
}
template <class T, int N, class InputIt>
inline void LoadDirectBlocked(int linear_tid, InputIt in, T (&items)[N], int valid_items) {
  for (int i = 0; i < N; ++i)
    if (linear_tid * N + i < valid_items) items[i] = in[linear_tid * N + i];
}
template <class T, class Default, int N, class InputIt>
inline void LoadDirectBlocked(int linear_tid, InputIt in, T (&items)[N], int valid_items,
                              Default oob_default) {
  for (int i = 0; i < N; ++i) items[i] = static_cast<T>(oob_default);
  LoadDirectBlocked(linear_tid, in, items, valid_items);
}
template <int BLOCK_THREADS, class T, int N, class InputIt>
inline void LoadDirectStriped(int linear_tid, InputIt in, T (&items)[N]) {
  for (int i = 0; i < N; ++i) items[i] = in[i * BLOCK_THREADS + linear_tid];
}
template <int BLOCK_THREADS, class T, int N, class InputIt>
inline void LoadDirectStriped(int linear_tid, InputIt in, T (&items)[N], int valid_items) {
  for (int i = 0; i < N; ++i)
    if (i * BLOCK_THREADS + linear_tid < valid_items) items[i] = in[i * BLOCK_THREADS + linear_tid];
}
template <int BLOCK_THREADS, class T, class Default, int N, class InputIt>
inline void LoadDirectStriped(int linear_tid, InputIt in, T (&items)[N], int valid_items,
                              Default oob_default) {
  for (int i = 0; i < N; ++i) items[i] = static_cast<T>(oob_default);
  LoadDirectStriped<BLOCK_THREADS>(linear_tid, in, items, valid_items);
}
template <class T, int N, class OutputIt>
inline void StoreDirectBlocked(int linear_tid, OutputIt out, T (&items)[N]) {
  for (int i = 0; i < N; ++i) out[linear_tid * N + i] = items[i];
}
template <class T, int N, class OutputIt>
inline void StoreDirectBlocked(int linear_tid, OutputIt out, T (&items)[N], int valid_items) {
  for (int i = 0; i < N; ++i)
    if (linear_tid * N + i < valid_items) out[linear_tid * N + i] = items[i];
}
template <int BLOCK_THREADS, class T, int N, class OutputIt>
inline void StoreDirectStriped(int linear_tid, OutputIt out, T (&items)[N]) {
  for (int i = 0; i < N; ++i) out[i * BLOCK_THREADS + linear_tid] = items[i];
}
template <int BLOCK_THREADS, class T, int N, class OutputIt>
inline void StoreDirectStriped(int linear_tid, OutputIt out, T (&items)[N], int valid_items) {
  for (int i = 0; i < N; ++i)
    if (i * BLOCK_THREADS + linear_tid < valid_items)
      out[i * BLOCK_THREADS + linear_tid] = items[i];
}

// ---- BlockLoad / BlockStore ----------------------------------------------------------
// Every algorithm but the striped one gives (takes) the blocked arrangement,
// as cub's do after their transposes; the result is the same.
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD,
          BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockLoad {
  static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {};
  BlockLoad() : tid_(tid()) {}
  explicit BlockLoad(TempStorage&) : tid_(tid()) {}

  template <class InputIt>
  void Load(InputIt in, T (&items)[ITEMS_PER_THREAD]) {
    if constexpr (ALGORITHM == BLOCK_LOAD_STRIPED)
      LoadDirectStriped<BLOCK_THREADS>(tid_, in, items);
    else
      LoadDirectBlocked(tid_, in, items);
  }
  template <class InputIt>
  void Load(InputIt in, T (&items)[ITEMS_PER_THREAD], int valid_items) {
    if constexpr (ALGORITHM == BLOCK_LOAD_STRIPED)
      LoadDirectStriped<BLOCK_THREADS>(tid_, in, items, valid_items);
    else
      LoadDirectBlocked(tid_, in, items, valid_items);
  }
  template <class InputIt, class Default>
  void Load(InputIt in, T (&items)[ITEMS_PER_THREAD], int valid_items, Default oob_default) {
    if constexpr (ALGORITHM == BLOCK_LOAD_STRIPED)
      LoadDirectStriped<BLOCK_THREADS>(tid_, in, items, valid_items, oob_default);
    else
      LoadDirectBlocked(tid_, in, items, valid_items, oob_default);
  }

 private:
  static int tid() {
    return cudakit_cpu_detail::row_major_tid<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>();
  }
  int tid_;
};

template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD,
          BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockStore {
  static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {};
  BlockStore() : tid_(tid()) {}
  explicit BlockStore(TempStorage&) : tid_(tid()) {}

  template <class OutputIt>
  void Store(OutputIt out, T (&items)[ITEMS_PER_THREAD]) {
    if constexpr (ALGORITHM == BLOCK_STORE_STRIPED)
      StoreDirectStriped<BLOCK_THREADS>(tid_, out, items);
    else
      StoreDirectBlocked(tid_, out, items);
  }
  template <class OutputIt>
  void Store(OutputIt out, T (&items)[ITEMS_PER_THREAD], int valid_items) {
    if constexpr (ALGORITHM == BLOCK_STORE_STRIPED)
      StoreDirectStriped<BLOCK_THREADS>(tid_, out, items, valid_items);
    else
      StoreDirectBlocked(tid_, out, items, valid_items);
  }

 private:
  static int tid() {
    return cudakit_cpu_detail::row_major_tid<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>();
  }
  int tid_;
};

}  // namespace cub

#include <cub/cudakit_cpu_cub_sort.cuh>
