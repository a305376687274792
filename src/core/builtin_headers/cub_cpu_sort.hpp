// cub::BlockRadixSort and the refused device-wide algorithms for cudakit's
// CPU backend; part of its portable cub (cub_cpu.hpp), which includes it.
#pragma once

// (The CPU backend reads the standard headers below before the prelude's
// CUDA macros: g++ 13's libstdc++ spells __attribute__((__noinline__)).)
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace cub {

// ---- BlockRadixSort ------------------------------------------------------------------
namespace cudakit_cpu_detail {
template <int Bytes>
struct UnsignedBits;
template <>
struct UnsignedBits<1> {
  using type = std::uint8_t;
};
template <>
struct UnsignedBits<2> {
  using type = std::uint16_t;
};
template <>
struct UnsignedBits<4> {
  using type = std::uint32_t;
};
template <>
struct UnsignedBits<8> {
  using type = std::uint64_t;
};

template <class K>
constexpr bool is_float_key = std::is_floating_point<K>::value || std::is_same<K, __half>::value ||
                              std::is_same<K, __nv_bfloat16>::value;

// A key's bits in radix order (cub's twiddle): unsigned as they are, the sign
// bit flipped for signed integers, floats ordered numerically with -0.0 taken
// as +0.0.
template <class K>
inline typename UnsignedBits<sizeof(K)>::type radix_bits(K key) {
  using U = typename UnsignedBits<sizeof(K)>::type;
  U bits;
  std::memcpy(&bits, &key, sizeof(K));
  constexpr U sign = static_cast<U>(U(1) << (8 * sizeof(K) - 1));
  if constexpr (is_float_key<K>) {
    if (bits == sign) bits = 0;
    return static_cast<U>((bits & sign) ? static_cast<U>(~bits) : static_cast<U>(bits ^ sign));
  } else if constexpr (std::is_signed<K>::value) {
    return static_cast<U>(bits ^ sign);
  } else {
    return bits;
  }
}
}  // namespace cudakit_cpu_detail

template <class KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, class ValueT = NullType,
          int RADIX_BITS = 4, bool MEMOIZE_OUTER_SCAN = true,
          BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS, int SMEM_CONFIG = 0,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockRadixSort {
  static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int TILE = BLOCK_THREADS * ITEMS_PER_THREAD;
  static constexpr bool KEYS_ONLY = std::is_same<ValueT, NullType>::value;
  struct Storage {
    KeyT keys[TILE];
    ValueT values[TILE];
  };

 public:
  struct TempStorage : Storage {};
  BlockRadixSort() : storage_(private_storage()), tid_(tid()) {}
  explicit BlockRadixSort(TempStorage& temp_storage) : storage_(temp_storage), tid_(tid()) {}

  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = 8 * sizeof(KeyT)) {
    ValueT* none = nullptr;
    sort<false, false>(keys, none, begin_bit, end_bit);
  }
  void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
            int end_bit = 8 * sizeof(KeyT)) {
    sort<false, false>(keys, values, begin_bit, end_bit);
  }
  void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0,
                      int end_bit = 8 * sizeof(KeyT)) {
    ValueT* none = nullptr;
    sort<true, false>(keys, none, begin_bit, end_bit);
  }
  void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                      int begin_bit = 0, int end_bit = 8 * sizeof(KeyT)) {
    sort<true, false>(keys, values, begin_bit, end_bit);
  }
  void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0,
                            int end_bit = 8 * sizeof(KeyT)) {
    ValueT* none = nullptr;
    sort<false, true>(keys, none, begin_bit, end_bit);
  }
  void SortBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                            int begin_bit = 0, int end_bit = 8 * sizeof(KeyT)) {
    sort<false, true>(keys, values, begin_bit, end_bit);
  }
  void SortDescendingBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0,
                                      int end_bit = 8 * sizeof(KeyT)) {
    ValueT* none = nullptr;
    sort<true, true>(keys, none, begin_bit, end_bit);
  }
  void SortDescendingBlockedToStriped(KeyT (&keys)[ITEMS_PER_THREAD],
                                      ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
                                      int end_bit = 8 * sizeof(KeyT)) {
    sort<true, true>(keys, values, begin_bit, end_bit);
  }

 private:
  static int tid() {
    return cudakit_cpu_detail::row_major_tid<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>();
  }
  static TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }

  // The tile gathered in shared memory (blocked: thread t's items at
  // t * ITEMS_PER_THREAD), sorted stably by the key's bits [begin, end) by
  // thread 0, and handed back blocked or striped.
  template <bool DESCENDING, bool TO_STRIPED, class Values>
  void sort(KeyT (&keys)[ITEMS_PER_THREAD], Values& values, int begin_bit, int end_bit) {
    constexpr bool with_values = !std::is_pointer<Values>::value;
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      storage_.keys[tid_ * ITEMS_PER_THREAD + i] = keys[i];
      if constexpr (with_values) storage_.values[tid_ * ITEMS_PER_THREAD + i] = values[i];
    }
    __syncthreads();
    if (tid_ == 0) {
      using U = typename cudakit_cpu_detail::UnsignedBits<sizeof(KeyT)>::type;
      const int width = end_bit - begin_bit;
      const U mask = width >= static_cast<int>(8 * sizeof(U))
                         ? static_cast<U>(~U(0))
                         : static_cast<U>((U(1) << (width > 0 ? width : 0)) - 1);
      std::vector<int> order(TILE);
      std::vector<U> digits(TILE);
      for (int i = 0; i < TILE; ++i) {
        order[i] = i;
        U bits = cudakit_cpu_detail::radix_bits(storage_.keys[i]);
        if (DESCENDING) bits = static_cast<U>(~bits);
        digits[i] = static_cast<U>((bits >> begin_bit) & mask);
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return digits[a] < digits[b]; });
      std::vector<KeyT> sorted_keys(TILE);
      std::vector<ValueT> sorted_values(with_values ? TILE : 0);
      for (int i = 0; i < TILE; ++i) {
        sorted_keys[i] = storage_.keys[order[i]];
        if constexpr (with_values) sorted_values[i] = storage_.values[order[i]];
      }
      for (int i = 0; i < TILE; ++i) {
        storage_.keys[i] = sorted_keys[i];
        if constexpr (with_values) storage_.values[i] = sorted_values[i];
      }
    }
    __syncthreads();
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
      const int at = TO_STRIPED ? i * BLOCK_THREADS + tid_ : tid_ * ITEMS_PER_THREAD + i;
      keys[i] = storage_.keys[at];
      if constexpr (with_values) values[i] = storage_.values[at];
    }
    __syncthreads();
  }

  Storage& storage_;
  int tid_;
};

// ---- device-wide algorithms: refused ---------------------------------------------------
// They launch kernels from the host; the CPU backend runs a kernel's device
// code only. Named here so a kernel that calls one gets this message.
#define CUDAKIT_CPU_CUB_REFUSED_CALL(Name, Call)                                        \
  template <class... A>                                                                 \
  static int Call(A&&...) {                                                             \
    static_assert(cudakit_cpu_detail::always_false<A...>,                               \
                  "cub::" #Name                                                         \
                  " is not supported on the CPU backend: cub's device-wide algorithms " \
                  "launch kernels from the host, and the CPU backend runs device code " \
                  "only; run it on a GPU, or use cub's block-level primitives "         \
                  "(BlockReduce, BlockScan, BlockRadixSort) in a kernel");              \
    return 0;                                                                           \
  }
#define CUDAKIT_CPU_CUB_REFUSED(Name)                       \
  struct Name {                                             \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, Sum)                 \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, Max)                 \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, Min)                 \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, Reduce)              \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, ArgMax)              \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, ArgMin)              \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, TransformReduce)     \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, ReduceByKey)         \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, ExclusiveSum)        \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, InclusiveSum)        \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, ExclusiveScan)       \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, InclusiveScan)       \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, ExclusiveSumByKey)   \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, InclusiveSumByKey)   \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, ExclusiveScanByKey)  \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, InclusiveScanByKey)  \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, SortKeys)            \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, SortPairs)           \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, SortKeysDescending)  \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, SortPairsDescending) \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, StableSortKeys)      \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, StableSortPairs)     \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, If)                  \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, Flagged)             \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, Unique)              \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, UniqueByKey)         \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, HistogramEven)       \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, HistogramRange)      \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, MultiHistogramEven)  \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, MultiHistogramRange) \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, Encode)              \
    CUDAKIT_CPU_CUB_REFUSED_CALL(Name, NonTrivialRuns)      \
  };
CUDAKIT_CPU_CUB_REFUSED(DeviceReduce)
CUDAKIT_CPU_CUB_REFUSED(DeviceScan)
CUDAKIT_CPU_CUB_REFUSED(DeviceRadixSort)
CUDAKIT_CPU_CUB_REFUSED(DeviceSegmentedReduce)
CUDAKIT_CPU_CUB_REFUSED(DeviceSegmentedRadixSort)
CUDAKIT_CPU_CUB_REFUSED(DeviceSelect)
CUDAKIT_CPU_CUB_REFUSED(DevicePartition)
CUDAKIT_CPU_CUB_REFUSED(DeviceHistogram)
CUDAKIT_CPU_CUB_REFUSED(DeviceRunLengthEncode)
CUDAKIT_CPU_CUB_REFUSED(DeviceMergeSort)
#undef CUDAKIT_CPU_CUB_REFUSED
#undef CUDAKIT_CPU_CUB_REFUSED_CALL

}  // namespace cub
