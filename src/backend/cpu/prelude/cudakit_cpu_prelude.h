// The CUDA device language on the host: what a kernel compiled by cudakit's
// CPU backend sees before its first line (passed with -include). Keywords
// become host C++, built-in variables read the per-thread state the runtime
// sets, and barriers / warp operations call into the runtime, which runs
// the threads of a block as fibers.
#ifndef CUDAKIT_CPU_PRELUDE_H
#define CUDAKIT_CPU_PRELUDE_H

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <utility>

#include "cudakit_cpu_abi.h"

// nvcc's implicit typedefs, as NVRTC gets them too
// (backend/cuda/standard_headers.cpp): glibc's <sys/types.h> declares uint,
// ushort and ulong; uchar is declared here.
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

// ---- keywords ---------------------------------------------------------------
// Kernels stay visible in the module (everything else is hidden) so their
// real symbols (mangled for C++ linkage) can be read back at load.
#define __global__ __attribute__((visibility("default")))
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __inline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __align__(n) alignas(n)
#define __device_builtin__
#define __builtin_align__(n) alignas(n)
#define __CUDACC_RTC__ 1
#define __CUDAKIT_CPU__ 1
#ifndef __CUDA_ARCH__
// Kernels often branch on __CUDA_ARCH__ to pick device code; the CPU backend
// runs device code, so it claims a recent arch.
#define __CUDA_ARCH__ 900
#endif

// ---- vector types -----------------------------------------------------------
#define CUDAKIT_CPU_VEC1(T, N, A) \
  struct alignas(A) N##1 {        \
    T x;                          \
  };                              \
  static inline N##1 make_##N##1(T x) { return N##1 {x}; }
#define CUDAKIT_CPU_VEC2(T, N, A) \
  struct alignas(A) N##2 {        \
    T x, y;                       \
  };                              \
  static inline N##2 make_##N##2(T x, T y) { return N##2 {x, y}; }
#define CUDAKIT_CPU_VEC3(T, N, A) \
  struct alignas(A) N##3 {        \
    T x, y, z;                    \
  };                              \
  static inline N##3 make_##N##3(T x, T y, T z) { return N##3 {x, y, z}; }
#define CUDAKIT_CPU_VEC4(T, N, A) \
  struct alignas(A) N##4 {        \
    T x, y, z, w;                 \
  };                              \
  static inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4 {x, y, z, w}; }
#define CUDAKIT_CPU_VECS(T, N, A1, A2, A4) \
  CUDAKIT_CPU_VEC1(T, N, A1)               \
  CUDAKIT_CPU_VEC2(T, N, A2)               \
  CUDAKIT_CPU_VEC3(T, N, A1)               \
  CUDAKIT_CPU_VEC4(T, N, A4)

CUDAKIT_CPU_VECS(signed char, char, 1, 2, 4)
CUDAKIT_CPU_VECS(unsigned char, uchar, 1, 2, 4)
CUDAKIT_CPU_VECS(short, short, 2, 4, 8)
CUDAKIT_CPU_VECS(unsigned short, ushort, 2, 4, 8)
CUDAKIT_CPU_VECS(int, int, 4, 8, 16)
CUDAKIT_CPU_VECS(unsigned int, uint, 4, 8, 16)
CUDAKIT_CPU_VECS(long, long, 8, 16, 16)
CUDAKIT_CPU_VECS(unsigned long, ulong, 8, 16, 16)
CUDAKIT_CPU_VECS(long long, longlong, 8, 16, 16)
CUDAKIT_CPU_VECS(unsigned long long, ulonglong, 8, 16, 16)
CUDAKIT_CPU_VECS(float, float, 4, 8, 16)
CUDAKIT_CPU_VECS(double, double, 8, 16, 16)

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ---- the thread's coordinates -------------------------------------------------
// Real variables, not macros, so a debugger can print them and use them in
// breakpoint conditions (`break k if threadIdx.x == 5`). The runtime writes
// them before it runs a block and at every fiber switch. Internal linkage:
// each module has its own, so modules stay independent and can be unloaded.
// Constant-initialised, so reading one costs a TLS access and no guard.
static thread_local uint3 threadIdx{};
static thread_local uint3 blockIdx{};
static thread_local dim3 blockDim{};
static thread_local dim3 gridDim{};

namespace cudakit_cpu {

static const RuntimeTable* runtime = nullptr;

// `child<<<grid, block>>>(args)` in device code, rewritten by the backend as
// `device_launch(child, grid, block)(args)`: the child grid runs there and
// then on the launching thread, one CUDA thread after the other (a GPU may
// run a child grid at once too); the launcher's coordinates are put back.
// Children that synchronize are refused at compile time.
template <class... Params>
struct ChildGrid {
  void (*kernel)(Params...);
  dim3 grid;
  dim3 block;
  // By value: blockIdx.x as an argument keeps the launcher's value.
  template <class... Args>
  void operator()(Args... args) const {
    const uint3 saved_thread = threadIdx, saved_block = blockIdx;
    const dim3 saved_block_dim = blockDim, saved_grid_dim = gridDim;
    gridDim = grid;
    blockDim = block;
    for (unsigned bz = 0; bz < grid.z; ++bz)
      for (unsigned by = 0; by < grid.y; ++by)
        for (unsigned bx = 0; bx < grid.x; ++bx) {
          blockIdx = uint3{bx, by, bz};
          for (unsigned tz = 0; tz < block.z; ++tz)
            for (unsigned ty = 0; ty < block.y; ++ty)
              for (unsigned tx = 0; tx < block.x; ++tx) {
                threadIdx = uint3{tx, ty, tz};
                kernel(args...);
              }
        }
    threadIdx = saved_thread;
    blockIdx = saved_block;
    blockDim = saved_block_dim;
    gridDim = saved_grid_dim;
  }
};

template <class Shared, class... Stream>
static inline unsigned long long launch_shared_bytes(Shared shared, Stream...) {
  return static_cast<unsigned long long>(shared);
}

template <class... Params, class... Rest>
static inline ChildGrid<Params...> device_launch(void (*kernel)(Params...), dim3 grid, dim3 block,
                                                 Rest... rest) {
  static_assert(sizeof...(Rest) <= 2, "a launch takes <<<grid, block, shared bytes, stream>>>");
  if constexpr (sizeof...(Rest) >= 1) {
    if (launch_shared_bytes(rest...) != 0)
      runtime->trap(
          "a kernel launched from device code asked for dynamic shared memory, which the CPU "
          "backend gives only to launches from the host");
  }
  return ChildGrid<Params...>{kernel, grid, block};
}

static inline unsigned linear_thread_id() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
static inline int lane_id() { return static_cast<int>(linear_thread_id() & 31u); }

}  // namespace cudakit_cpu

// A failed assert() stops the kernel with a KernelFault naming the kernel,
// block and thread (as a GPU reports it), not by aborting the process.
// <assert.h> and <cassert> are stubs that define this same macro.
namespace cudakit_cpu {
[[noreturn]] static inline void assert_failed(const char* expression, const char* file, int line) {
  char message[512];
  snprintf(message, sizeof message, "assertion '%s' failed at %s:%d", expression, file, line);
  runtime->trap(message);
  __builtin_unreachable();
}
}  // namespace cudakit_cpu
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : ::cudakit_cpu::assert_failed(#e, __FILE__, __LINE__))
#endif

#define warpSize 32

// ---- printf -------------------------------------------------------------------
// Output goes through the launch's printf buffer, which holds the context's
// printf_fifo_size bytes as on a GPU: what does not fit is lost, and the
// runtime says how much after the launch. <cstdio> is included above, so a
// kernel's own #include of it cannot undo the macro; `std::printf` finds
// the same function.
static inline int cudakit_cpu_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
static inline int cudakit_cpu_printf(const char* format, ...) {
  char small[256];
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int length = vsnprintf(small, sizeof small, format, args);
  va_end(args);
  int result = length;
  if (length >= 0 && static_cast<size_t>(length) < sizeof small) {
    result = ::cudakit_cpu::runtime->printf_output(small, static_cast<size_t>(length));
  } else if (length >= 0) {
    char* large = static_cast<char*>(malloc(static_cast<size_t>(length) + 1));
    if (large) {
      vsnprintf(large, static_cast<size_t>(length) + 1, format, again);
      result = ::cudakit_cpu::runtime->printf_output(large, static_cast<size_t>(length));
      free(large);
    }
  }
  va_end(again);
  return result;
}
namespace std {
using ::cudakit_cpu_printf;
}
#undef printf
#define printf cudakit_cpu_printf

// ---- barriers and warp operations --------------------------------------------
static inline void __syncthreads() { ::cudakit_cpu::runtime->syncthreads_count(0); }
static inline int __syncthreads_count(int p) {
  return ::cudakit_cpu::runtime->syncthreads_count(p != 0);
}
static inline int __syncthreads_and(int p) {
  // Every live thread passes the barrier; compare the count with that number
  // through a second count of all threads.
  int passed = ::cudakit_cpu::runtime->syncthreads_count(p != 0);
  int all = ::cudakit_cpu::runtime->syncthreads_count(1);
  return passed == all;
}
static inline int __syncthreads_or(int p) {
  return ::cudakit_cpu::runtime->syncthreads_count(p != 0) != 0;
}
static inline void __syncwarp(unsigned mask = 0xffffffffu) {
  ::cudakit_cpu::runtime->syncwarp(mask);
}
// Each use of __activemask() is a call site of its own (the static below),
// so that lanes in different branches see only their own branch's lanes.
#define __activemask()                                      \
  (::cudakit_cpu::runtime->activemask([]() -> const void* { \
    static const char cudakit_call_site = 0;                \
    return &cudakit_call_site;                              \
  }()))
static inline unsigned __ballot_sync(unsigned mask, int p) {
  return ::cudakit_cpu::runtime->warp_ballot(mask, p != 0);
}
static inline int __any_sync(unsigned mask, int p) { return __ballot_sync(mask, p) != 0; }
static inline int __all_sync(unsigned mask, int p) {
  unsigned voters = mask & ::cudakit_cpu::runtime->activemask(nullptr);
  return (__ballot_sync(mask, p) & voters) == voters;
}
static inline unsigned __lanemask_lt() { return (1u << ::cudakit_cpu::lane_id()) - 1u; }
static inline unsigned __lanemask_le() {
  return static_cast<unsigned>((2ull << ::cudakit_cpu::lane_id()) - 1ull);
}
static inline unsigned __lanemask_eq() { return 1u << ::cudakit_cpu::lane_id(); }
static inline unsigned __lanemask_gt() { return ~__lanemask_le(); }
static inline unsigned __lanemask_ge() { return ~__lanemask_lt(); }

namespace cudakit_cpu {
template <class T>
static inline T shuffle_from(unsigned mask, T var, int src_lane) {
  static_assert(sizeof(T) <= 8, "warp shuffles move at most 8 bytes");
  unsigned long long bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = runtime->warp_exchange(mask, bits, src_lane);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
}  // namespace cudakit_cpu

template <class T>
static inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {
  int lane = ::cudakit_cpu::lane_id();
  int base = lane & ~(width - 1);
  int src = base + (((src_lane % width) + width) % width);
  return ::cudakit_cpu::shuffle_from(mask, var, src);
}
template <class T>
static inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  int lane = ::cudakit_cpu::lane_id();
  int base = lane & ~(width - 1);
  int src = lane - static_cast<int>(delta);
  return ::cudakit_cpu::shuffle_from(mask, var, src < base ? lane : src);
}
template <class T>
static inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  int lane = ::cudakit_cpu::lane_id();
  int base = lane & ~(width - 1);
  int src = lane + static_cast<int>(delta);
  return ::cudakit_cpu::shuffle_from(mask, var, src >= base + width ? lane : src);
}
template <class T>
static inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  int lane = ::cudakit_cpu::lane_id();
  int base = lane & ~(width - 1);
  int src = lane ^ lane_mask;
  return ::cudakit_cpu::shuffle_from(mask, var, src >= base + width ? lane : src);
}
template <class T>
static inline T __reduce_add_sync(unsigned mask, T v) {
  T total = 0;
  for (int l = 0; l < 32; ++l) {
    T other = ::cudakit_cpu::shuffle_from(mask, v, l);
    if ((mask >> l) & 1u) total += other;
  }
  return total;
}

// ---- memory fences, loads, timing, misc ---------------------------------------
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <class T>
static inline T __ldg(const T* p) {
  return *p;
}
template <class T>
static inline T __ldcg(const T* p) {
  return *p;
}
template <class T>
static inline T __ldca(const T* p) {
  return *p;
}
template <class T>
static inline T __ldcs(const T* p) {
  return *p;
}
template <class T>
static inline T __ldlu(const T* p) {
  return *p;
}
template <class T>
static inline T __ldcv(const T* p) {
  return *p;
}
template <class T>
static inline void __stcg(T* p, T v) {
  *p = v;
}
template <class T>
static inline void __stcs(T* p, T v) {
  *p = v;
}
template <class T>
static inline void __stwb(T* p, T v) {
  *p = v;
}
template <class T>
static inline void __stwt(T* p, T v) {
  *p = v;
}
static inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
static inline unsigned long long __globaltimer() {
  return static_cast<unsigned long long>(clock64());
}
static inline void __nanosleep(unsigned) { ::cudakit_cpu::runtime->yield(); }

// ---- cooperative groups: the whole grid -----------------------------------------
// As <cooperative_groups.h> declares them, so one source compiles for both
// backends. sync() needs a cooperative launch (all blocks resident at once).
namespace cooperative_groups {
class grid_group {
 public:
  void sync() const { ::cudakit_cpu::runtime->grid_sync(); }
  unsigned long long size() const {
    return static_cast<unsigned long long>(num_blocks()) * block_threads();
  }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const {
    return block_rank() * block_threads() + ::cudakit_cpu::linear_thread_id();
  }
  unsigned long long block_rank() const {
    return blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                            (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  }
  unsigned long long num_blocks() const {
    return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
  }
  bool is_valid() const { return true; }
  dim3 group_dim() const { return gridDim; }
  dim3 dim_blocks() const { return gridDim; }
  uint3 block_index() const { return blockIdx; }

 private:
  static unsigned long long block_threads() {
    return static_cast<unsigned long long>(blockDim.x) * blockDim.y * blockDim.z;
  }
};
static inline grid_group this_grid() { return grid_group(); }
static inline void sync(const grid_group& g) { g.sync(); }
}  // namespace cooperative_groups
static inline void __trap() { ::cudakit_cpu::runtime->trap("__trap() called"); }
static inline void __brkpt() { __builtin_trap(); }
static inline unsigned __smid() { return 0; }

// ---- atomics (global and shared memory alike: both are host memory) -------------
#define CUDAKIT_CPU_ATOMIC_RMW(NAME, BUILTIN, T) \
  static inline T NAME(T* a, T v) { return BUILTIN(a, v, __ATOMIC_SEQ_CST); }
#define CUDAKIT_CPU_ATOMIC_INT(NAME, BUILTIN)         \
  CUDAKIT_CPU_ATOMIC_RMW(NAME, BUILTIN, int)          \
  CUDAKIT_CPU_ATOMIC_RMW(NAME, BUILTIN, unsigned int) \
  CUDAKIT_CPU_ATOMIC_RMW(NAME, BUILTIN, long long)    \
  CUDAKIT_CPU_ATOMIC_RMW(NAME, BUILTIN, unsigned long long)
CUDAKIT_CPU_ATOMIC_INT(atomicAdd, __atomic_fetch_add)
CUDAKIT_CPU_ATOMIC_INT(atomicSub, __atomic_fetch_sub)
CUDAKIT_CPU_ATOMIC_INT(atomicAnd, __atomic_fetch_and)
CUDAKIT_CPU_ATOMIC_INT(atomicOr, __atomic_fetch_or)
CUDAKIT_CPU_ATOMIC_INT(atomicXor, __atomic_fetch_xor)
CUDAKIT_CPU_ATOMIC_INT(atomicExch, __atomic_exchange_n)

namespace cudakit_cpu {
// Read-modify-write through compare-and-swap on the value's bits, for the
// operations the builtins do not have (float add, min/max, inc/dec).
template <class T, class F>
static inline T atomic_update(T* address, F update) {
  using Bits = std::conditional_t<sizeof(T) == 8, unsigned long long,
                                  std::conditional_t<sizeof(T) == 4, unsigned int, unsigned short>>;
  static_assert(sizeof(T) == sizeof(Bits), "atomic size");
  Bits* bits = reinterpret_cast<Bits*>(address);
  Bits expected = __atomic_load_n(bits, __ATOMIC_RELAXED);
  for (;;) {
    T old;
    std::memcpy(&old, &expected, sizeof(T));
    T next = update(old);
    Bits desired;
    std::memcpy(&desired, &next, sizeof(T));
    if (__atomic_compare_exchange_n(bits, &expected, desired, true, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED))
      return old;
  }
}
}  // namespace cudakit_cpu

static inline float atomicAdd(float* a, float v) {
  return ::cudakit_cpu::atomic_update(a, [v](float o) { return o + v; });
}
static inline double atomicAdd(double* a, double v) {
  return ::cudakit_cpu::atomic_update(a, [v](double o) { return o + v; });
}
static inline float atomicExch(float* a, float v) {
  return ::cudakit_cpu::atomic_update(a, [v](float) { return v; });
}
#define CUDAKIT_CPU_ATOMIC_MINMAX(T)                                            \
  static inline T atomicMin(T* a, T v) {                                        \
    return ::cudakit_cpu::atomic_update(a, [v](T o) { return v < o ? v : o; }); \
  }                                                                             \
  static inline T atomicMax(T* a, T v) {                                        \
    return ::cudakit_cpu::atomic_update(a, [v](T o) { return v > o ? v : o; }); \
  }
CUDAKIT_CPU_ATOMIC_MINMAX(int)
CUDAKIT_CPU_ATOMIC_MINMAX(unsigned int)
CUDAKIT_CPU_ATOMIC_MINMAX(long long)
CUDAKIT_CPU_ATOMIC_MINMAX(unsigned long long)
CUDAKIT_CPU_ATOMIC_MINMAX(float)
CUDAKIT_CPU_ATOMIC_MINMAX(double)
static inline unsigned int atomicInc(unsigned int* a, unsigned int limit) {
  return ::cudakit_cpu::atomic_update(a, [limit](unsigned o) { return o >= limit ? 0u : o + 1u; });
}
static inline unsigned int atomicDec(unsigned int* a, unsigned int limit) {
  return ::cudakit_cpu::atomic_update(
      a, [limit](unsigned o) { return (o == 0u || o > limit) ? limit : o - 1u; });
}
#define CUDAKIT_CPU_ATOMIC_CAS(T)                                                           \
  static inline T atomicCAS(T* a, T compare, T v) {                                         \
    __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return compare;                                                                         \
  }
CUDAKIT_CPU_ATOMIC_CAS(int)
CUDAKIT_CPU_ATOMIC_CAS(unsigned int)
CUDAKIT_CPU_ATOMIC_CAS(unsigned long long)
CUDAKIT_CPU_ATOMIC_CAS(unsigned short)
// Scoped variants: one host is one scope.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicExch_block atomicExch
#define atomicMin_block atomicMin
#define atomicMax_block atomicMax
#define atomicCAS_block atomicCAS
#define atomicAnd_block atomicAnd
#define atomicOr_block atomicOr
#define atomicXor_block atomicXor
#define atomicInc_block atomicInc
#define atomicDec_block atomicDec

// ---- math library -------------------------------------------------------------
template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
static inline constexpr std::common_type_t<A, B> min(A a, B b) {
  return b < a ? b : a;
}
template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
static inline constexpr std::common_type_t<A, B> max(A a, B b) {
  return a < b ? b : a;
}
// glibc declares these names itself (its vector math), so they are macros.
#define __expf(x) expf(x)
#define __exp10f(x) powf(10.0f, (x))
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
// The GPU's own approximations (cudakit_cpu_approx_math.h): the same bits.
#define __sinf(x) ::cudakit_cpu::gpu_sinf(x)
#define __cosf(x) ::cudakit_cpu::gpu_cosf(x)
#define __tanf(x) tanf(x)
#define __powf(x, y) powf((x), (y))
#define __sincosf(x, s, c) ::cudakit_cpu::gpu_sincosf((x), (s), (c))
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
static inline void sincospif(float x, float* s, float* c) {
  *s = sinf(x * 3.14159265358979323846f);
  *c = cosf(x * 3.14159265358979323846f);
}
static inline void sincospi(double x, double* s, double* c) {
  *s = sin(x * 3.14159265358979323846);
  *c = cos(x * 3.14159265358979323846);
}
static inline float sinpif(float x) { return sinf(x * 3.14159265358979323846f); }
static inline float cospif(float x) { return cosf(x * 3.14159265358979323846f); }
static inline double sinpi(double x) { return sin(x * 3.14159265358979323846); }
static inline double cospi(double x) { return cos(x * 3.14159265358979323846); }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float fdividef(float a, float b) { return a / b; }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678118654752f); }
static inline double normcdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752); }
static inline int __float2int_rn(float x) { return static_cast<int>(nearbyintf(x)); }
static inline int __float2int_rz(float x) { return static_cast<int>(x); }
static inline int __float2int_rd(float x) { return static_cast<int>(floorf(x)); }
static inline int __float2int_ru(float x) { return static_cast<int>(ceilf(x)); }
static inline unsigned __float2uint_rn(float x) { return static_cast<unsigned>(nearbyintf(x)); }
static inline unsigned __float2uint_rz(float x) { return static_cast<unsigned>(x); }
static inline float __int2float_rn(int x) { return static_cast<float>(x); }
static inline float __uint2float_rn(unsigned x) { return static_cast<float>(x); }
static inline int __double2int_rn(double x) { return static_cast<int>(nearbyint(x)); }
static inline int __double2int_rz(double x) { return static_cast<int>(x); }
static inline float __double2float_rn(double x) { return static_cast<float>(x); }
static inline long long __float2ll_rn(float x) { return static_cast<long long>(nearbyintf(x)); }
namespace cudakit_cpu {
template <class To, class From>
static inline To bit_cast(From v) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast size");
  To out;
  std::memcpy(&out, &v, sizeof(To));
  return out;
}
}  // namespace cudakit_cpu
static inline int __float_as_int(float x) { return ::cudakit_cpu::bit_cast<int>(x); }
static inline unsigned __float_as_uint(float x) { return ::cudakit_cpu::bit_cast<unsigned>(x); }
static inline float __int_as_float(int x) { return ::cudakit_cpu::bit_cast<float>(x); }
static inline float __uint_as_float(unsigned x) { return ::cudakit_cpu::bit_cast<float>(x); }
static inline long long __double_as_longlong(double x) {
  return ::cudakit_cpu::bit_cast<long long>(x);
}
static inline double __longlong_as_double(long long x) {
  return ::cudakit_cpu::bit_cast<double>(x);
}
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
static inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
static inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) |
         __brev(static_cast<unsigned>(x >> 32));
}
static inline int __mul24(int a, int b) { return a * b; }
static inline unsigned __umul24(unsigned a, unsigned b) { return a * b; }
static inline int __mulhi(int a, int b) {
  return static_cast<int>((static_cast<long long>(a) * b) >> 32);
}
static inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
static inline long long __mul64hi(long long a, long long b) {
  return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
static inline unsigned __sad(int a, int b, unsigned c) {
  return (a > b ? static_cast<unsigned>(a - b) : static_cast<unsigned>(b - a)) + c;
}
static inline unsigned __usad(unsigned a, unsigned b, unsigned c) {
  return (a > b ? a - b : b - a) + c;
}
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>((v << (shift & 31u)) >> 32);
}
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned>(v >> (shift & 31u));
}
static inline int __hadd(int a, int b) {
  return static_cast<int>((static_cast<long long>(a) + b) >> 1);
}
static inline int __rhadd(int a, int b) {
  return static_cast<int>((static_cast<long long>(a) + b + 1) >> 1);
}

// Math constants (math_constants.h).
#define CUDART_PI_F 3.141592654f
#define CUDART_PI 3.1415926535897931e+0
#define CUDART_INF_F __int_as_float(0x7f800000)
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#define CUDART_INF __longlong_as_double(0x7ff0000000000000LL)

// ---- half precision (the common part of cuda_fp16.h / cuda_bf16.h) --------------
struct __half {
  unsigned short x;
  __half() = default;
  __half(float f) : x(from_float(f)) {}
  __half(double f) : x(from_float(static_cast<float>(f))) {}
  __half(int i) : x(from_float(static_cast<float>(i))) {}
  operator float() const { return to_float(x); }
  static unsigned short from_float(float f) {
    _Float16 h = static_cast<_Float16>(f);
    unsigned short bits;
    std::memcpy(&bits, &h, 2);
    return bits;
  }
  static float to_float(unsigned short bits) {
    _Float16 h;
    std::memcpy(&h, &bits, 2);
    return static_cast<float>(h);
  }
};
struct __half2 {
  __half x, y;
};
typedef __half half;
typedef __half2 half2;
static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline float __half2float(__half h) { return static_cast<float>(h); }
static inline __half __hadd(__half a, __half b) { return __half(float(a) + float(b)); }
static inline __half __hsub(__half a, __half b) { return __half(float(a) - float(b)); }
static inline __half __hmul(__half a, __half b) { return __half(float(a) * float(b)); }
static inline __half __hdiv(__half a, __half b) { return __half(float(a) / float(b)); }
static inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf(a, b, c)); }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
static inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
static inline float __low2float(__half2 h) { return float(h.x); }
static inline float __high2float(__half2 h) { return float(h.y); }

struct __nv_bfloat16 {
  unsigned short x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : x(from_float(f)) {}
  __nv_bfloat16(double f) : x(from_float(static_cast<float>(f))) {}
  operator float() const { return to_float(x); }
  static unsigned short from_float(float f) {
    unsigned bits = ::cudakit_cpu::bit_cast<unsigned>(f);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN
    bits += 0x7fffu + ((bits >> 16) & 1u);                  // round to nearest even
    return static_cast<unsigned short>(bits >> 16);
  }
  static float to_float(unsigned short b) {
    return ::cudakit_cpu::bit_cast<float>(static_cast<unsigned>(b) << 16);
  }
};
typedef __nv_bfloat16 nv_bfloat16;
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline float __bfloat162float(__nv_bfloat16 h) { return static_cast<float>(h); }

// ---- generated entry points ------------------------------------------------------
namespace cudakit_cpu {

template <class T>
constexpr int scalar_kind() {
  using U = std::remove_cv_t<T>;
  if (std::is_same<U, bool>::value) return 1;
  if (std::is_same<U, __half>::value) return 10;
  if (std::is_same<U, __nv_bfloat16>::value) return 11;
  if (std::is_same<U, float>::value) return 12;
  if (std::is_same<U, double>::value) return 13;
  if (std::is_integral<U>::value || std::is_enum<U>::value) {
    constexpr bool is_signed = std::is_signed<U>::value;
    switch (sizeof(U)) {
      case 1:
        return is_signed ? 2 : 3;
      case 2:
        return is_signed ? 4 : 5;
      case 4:
        return is_signed ? 6 : 7;
      case 8:
        return is_signed ? 8 : 9;
      default:
        return 0;
    }
  }
  return 0;
}

template <class T>
constexpr ParamInfo param_info() {
  return ParamInfo{sizeof(T), alignof(T), std::is_pointer<T>::value ? 1 : 0, scalar_kind<T>()};
}

// Deduces a kernel's parameter types from its address and unpacks the
// launch's `void** args` into a direct call.
template <auto Kernel>
struct KernelTraits;

template <class... P, void (*Kernel)(P...)>
struct KernelTraits<Kernel> {
  static constexpr unsigned count = sizeof...(P);
  static constexpr ParamInfo params[sizeof...(P) + 1] = {param_info<P>()..., ParamInfo{0, 0, 0, 0}};

  template <std::size_t... I>
  static inline __attribute__((always_inline)) void call(void** args, std::index_sequence<I...>) {
    Kernel(*static_cast<std::remove_cv_t<P>*>(args[I])...);
  }
  static void run_thread(void** args) { call(args, std::index_sequence_for<P...>{}); }
  // The fast path: no barrier or warp operation, so the threads of a block
  // run one after the other in a plain loop (the kernel inlines into it).
  static void run_block(void** args) {
    uint3& thread = threadIdx;
    const dim3 dim = blockDim;
    for (unsigned z = 0; z < dim.z; ++z)
      for (unsigned y = 0; y < dim.y; ++y)
        for (unsigned x = 0; x < dim.x; ++x) {
          thread = uint3{x, y, z};
          call(args, std::index_sequence_for<P...>{});
        }
  }
  static KernelEntry entry(const char* name, int uses_barrier) {
    return KernelEntry{name,
                       &run_thread,
                       &run_block,
                       count,
                       params,
                       uses_barrier,
                       reinterpret_cast<const void*>(Kernel)};
  }
};

// `extern __shared__ T name[];` at namespace scope becomes one of these: the
// buffer belongs to the block being run, so it is looked up at each use.
template <class T>
struct DynamicShared {
  T* get() const { return static_cast<T*>(runtime->dynamic_shared()); }
  operator T*() const { return get(); }
  template <class U>
  explicit operator U*() const {
    return reinterpret_cast<U*>(get());
  }
  T& operator[](std::size_t i) const { return get()[i]; }
};

static inline void module_init(const RuntimeTable* table) { runtime = table; }
static_assert(sizeof(uint3) == 3 * sizeof(unsigned) && sizeof(dim3) == 3 * sizeof(unsigned),
              "the runtime writes the coordinates as three unsigned");
static inline ThreadStateLayout module_thread_state() {
  return ThreadStateLayout{&threadIdx, &blockIdx, &blockDim, &gridDim};
}

}  // namespace cudakit_cpu

#endif  // CUDAKIT_CPU_PRELUDE_H
