"""One translation unit: the kernel, the device functions it calls, the
constant arrays it reads and the helpers its operators need, assembled into
one CUDA C++ source that compiles for NVRTC and for the CPU backend."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from . import types as t

# ArrayView<T, N> as include/cudakit/array_view.hpp defines it for kernels:
# the data pointer, N extents, N strides in elements (the launch passes the
# same bytes). Kept in step with cudakit::array_view_source().
ARRAY_VIEW = r"""#ifndef CUDAKIT_ARRAY_VIEW_CUH
#define CUDAKIT_ARRAY_VIEW_CUH
template <class T, int N>
struct ArrayView {
  T* data;
  long long shape[N];
  long long strides[N];  // in elements
};
template <class T>
struct ArrayView<T, 0> {  // a 0-d array: one element
  T* data;
};
#endif
"""

# Python's operator semantics where C++ differs (floor division, modulo,
# integer powers, overflow, shifts), each only when used.
HELPERS = {
    "ffi_out": r"""// The result slot of a foreign function of Numba's ABI: it converts to the
// pointer type the function's C/C++ declares (`unsigned int *out` for an
// int32 result, `void *out`), as Numba's, which links by name only.
struct ck_ffi_out {
  void* slot;
  template <class T>
  __device__ operator T*() const { return (T*)slot; }
};
""",
    "wrap_int": r"""// Integer arithmetic wraps around in two's complement, as Numba's does on the
// hardware (Numba marks signed + - * "no signed wrap", so its optimizer may
// still assume otherwise; here the wrap is defined): computed in an unsigned
// type, whose arithmetic is modulo 2^n, and converted back (modular, as C++20
// says and every CUDA and host compiler did before). A GPU runs the same
// add/sub/mul instructions as for the signed operations, which C++ leaves
// undefined on overflow.
template <class T>
__device__ __forceinline__ T ck_add(T a, T b) {
  return (T)((typename ck_uint<T>::type)a + (typename ck_uint<T>::type)b);
}
template <class T>
__device__ __forceinline__ T ck_sub(T a, T b) {
  return (T)((typename ck_uint<T>::type)a - (typename ck_uint<T>::type)b);
}
template <class T>
__device__ __forceinline__ T ck_mul(T a, T b) {
  return (T)((typename ck_uint<T>::type)a * (typename ck_uint<T>::type)b);
}
// Types narrower than int are negated in 32 bits with their value in the top
// bits, then shifted back down: the smallest value wraps in the 32-bit
// negation. (A 16-bit signed negate followed by a widening was seen to give
// 32768 for -(-32768) on an H200: the assembler folds the two as if the
// negation could not overflow.)
template <class T>
__device__ __forceinline__ T ck_neg(T a) {
  typedef typename ck_uint<T>::type U;
  if (sizeof(T) < sizeof(U)) {
    const int drop = (int)(sizeof(U) - sizeof(T)) * 8;
    const U top = 0u - ((U)a << drop);
    return ck_is_signed<T>::value ? (T)((int)top >> drop) : (T)(top >> drop);
  }
  return (T)(0u - (U)a);
}
// The translator's + - * on int64 (exact matches, and operands of another
// integer type convert to int64 rather than deducing a narrower T).
__device__ __forceinline__ long long ck_add(long long a, long long b) {
  return ck_add<long long>(a, b);
}
__device__ __forceinline__ long long ck_sub(long long a, long long b) {
  return ck_sub<long long>(a, b);
}
__device__ __forceinline__ long long ck_mul(long long a, long long b) {
  return ck_mul<long long>(a, b);
}
// abs() of a signed integer in its own type: the smallest value stays itself.
template <class T>
__device__ __forceinline__ T ck_abs(T a) {
  return a < 0 ? ck_neg(a) : a;
}
""",
    "shift": r"""// Shifts as the GPU's shl / shr instructions make them: an amount of 64 or
// more, or a negative one (a huge unsigned amount), shifts every bit out,
// leaving 0, or -1 for >> of a negative number. NumPy's results for every
// amount; numba-cuda's for amounts in (-2^32 + 64, 2^32), as it hands PTX the
// amount's low 32 bits. C++ leaves such shifts undefined.
__device__ __forceinline__ long long ck_shl(long long a, long long b) {
  return (unsigned long long)b < 64 ? (long long)((unsigned long long)a << b) : 0LL;
}
__device__ __forceinline__ unsigned long long ck_shl(unsigned long long a, unsigned long long b) {
  return b < 64 ? a << b : 0ULL;
}
__device__ __forceinline__ long long ck_shr(long long a, long long b) {
  return a >> ((unsigned long long)b < 64 ? b : 63LL);
}
__device__ __forceinline__ unsigned long long ck_shr(unsigned long long a, unsigned long long b) {
  return b < 64 ? a >> b : 0ULL;
}
""",
    "range_count": r"""// How many values range(start, stop, step) takes (0 for a step of 0),
// in unsigned arithmetic, which holds every distance between two int64s: a
// range() loop near the limits of int64 runs on this count, as Numba's do.
__device__ __forceinline__ unsigned long long ck_range_count(long long start, long long stop,
                                                             long long step) {
  if (step > 0 && start < stop)
    return ((unsigned long long)stop - (unsigned long long)start - 1) / (unsigned long long)step +
           1;
  if (step < 0 && start > stop)
    return ((unsigned long long)start - (unsigned long long)stop - 1) /
               (0ULL - (unsigned long long)step) + 1;
  return 0;
}
""",
    "floordiv": r"""template <class T>
__device__ __forceinline__ T ck_floordiv(T a, T b) {
  // Python's //: rounds toward minus infinity; 0 for a zero divisor (Numba's
  // CUDA error model, which raises nothing on the device), and 0 for the
  // smallest integer // -1, whose quotient does not fit (Numba's result; the
  // division would trap on the host).
  if (b == 0) return 0;
  if (ck_is_signed<T>::value && b == (T)-1) return a == ck_lowest<T>() ? (T)0 : ck_neg(a);
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
""",
    "mod": r"""template <class T>
__device__ __forceinline__ T ck_mod(T a, T b) {
  // Python's %: the result has the divisor's sign; 0 for a zero divisor, and
  // for -1 (whose remainder is always 0: the smallest integer % -1 would
  // trap on the host).
  if (b == 0) return 0;
  if (ck_is_signed<T>::value && b == (T)-1) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
__device__ __forceinline__ float ck_fmod(float a, float b) {
  float r = fmodf(a, b);
  if (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) r += b;
  return r;
}
__device__ __forceinline__ double ck_fmod(double a, double b) {
  double r = fmod(a, b);
  if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b;
  return r;
}
""",
    "ipow": r"""template <class T>
__device__ __forceinline__ T ck_ipow(T base, long long exponent) {
  // Integer ** non-negative integer by squaring, wrapping around as Numba's
  // multiplications do (a negative exponent gives 0, Python would give a
  // float; Numba's integer power does the same).
  if (exponent < 0) return 0;
  T result = 1;
  while (exponent > 0) {
    if (exponent & 1) result = ck_mul(result, base);
    base = ck_mul(base, base);
    exponent >>= 1;
  }
  return result;
}
template <class T>
__device__ __forceinline__ T ck_fpowi(T base, long long exponent) {
  // float ** integer: repeated squaring, as Numba does for integer exponents.
  bool invert = exponent < 0;
  unsigned long long n = invert ? 0ULL - (unsigned long long)exponent : exponent;
  T result = 1;
  while (n > 0) {
    if (n & 1) result *= base;
    base *= base;
    n >>= 1;
  }
  return invert ? T(1) / result : result;
}
""",
    "fault_text": r"""#ifndef __CUDAKIT_CPU__
// debug=True on a GPU: the first thread that stops the kernel writes its
// text (and where it ran) into pinned host memory and every failing thread
// ends itself, as Numba's do: the launch, which waits for a debug kernel,
// raises the text and the context stays usable. cudakit points
// ck_fault_text at that memory after loading a debug module; null (no
// debug=True): a failing check prints its text and traps, as CUDA C's
// assert does.
extern "C" {
__device__ char* ck_fault_text;
__device__ unsigned ck_fault_claimed;
}
#define CK_FAULT_TEXT_BYTES 1024
struct ck_fault_writer {
  char* at;
  char* end;
  __device__ void text(const char* s) {
    while (*s && at < end) *at++ = *s++;
  }
  __device__ void number(long long value) {
    char digits[24];
    int count = 0;
    unsigned long long u = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
    do {
      digits[count++] = (char)('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (value < 0 && at < end) *at++ = '-';
    while (count > 0 && at < end) *at++ = digits[--count];
  }
  __device__ void triple(unsigned x, unsigned y, unsigned z) {
    text("(");
    number(x);
    text(",");
    number(y);
    text(",");
    number(z);
    text(")");
  }
  // " in block (x,y,z), thread (x,y,z)": where it failed, as the CPU backend says.
  __device__ void finish() {
    text(" in block ");
    triple(blockIdx.x, blockIdx.y, blockIdx.z);
    text(", thread ");
    triple(threadIdx.x, threadIdx.y, threadIdx.z);
    *at = '\0';
    __threadfence_system();
  }
};
// A debug kernel's failing thread ends here (the others run on).
__device__ __forceinline__ void ck_fault_exit() { asm volatile("exit;"); }
// The writer of the first thread to fail, or one that writes nothing.
// The host counts the texts it has taken in the word after the text: a
// claim of an earlier count is stale, so nothing resets the claim between
// launches (no copy at a launch, none inside a graph capture).
__device__ __noinline__ ck_fault_writer ck_fault_claim() {
  char* buffer = ck_fault_text;
  if (buffer == nullptr) return {nullptr, nullptr};
  const unsigned mine = *(volatile unsigned*)(buffer + CK_FAULT_TEXT_BYTES) + 1u;
  unsigned seen = *(volatile unsigned*)&ck_fault_claimed;
  while (seen != mine) {
    const unsigned was = atomicCAS(&ck_fault_claimed, seen, mine);
    if (was == seen) return {buffer, buffer + CK_FAULT_TEXT_BYTES - 1};
    seen = was;
  }
  return {nullptr, nullptr};
}
#endif
""",
    "fail": r"""// Stops the kernel with `message`: the CPU backend raises it as the launch's
// error; a GPU running a debug kernel leaves it for the launch to raise and
// ends the thread; otherwise a GPU prints it and traps (the launch fails
// with an illegal instruction, as CUDA C's assert).
__device__ __noinline__ void ck_fail(const char* message) {
#ifdef __CUDAKIT_CPU__
  ::cudakit_cpu::runtime->trap(message);
#else
  if (ck_fault_text != nullptr) {
    ck_fault_writer out = ck_fault_claim();
    if (out.at != nullptr) {
      out.text(message);
      out.finish();
    }
    ck_fault_exit();
  }
  printf("%s\n", message);
  __trap();
#endif
}
""",
    "bounds_check": r"""__device__ __noinline__ long long ck_check_index(long long index, long long extent, int axis,
                                                  const char* where, const char* file,
                                                  int line) {
  // debug=True: Python's wraparound for a negative index, then an index
  // outside [0, extent) stops the kernel and says where.
  const long long given = index;
  if (index < 0) index += extent;
  if (index < 0 || index >= extent) {
    index = given;
#ifdef __CUDAKIT_CPU__
    static thread_local char text[768];
    snprintf(text, sizeof text,
             "IndexError: index %lld is out of bounds for axis %d with size %lld in '%s' "
             "(File \"%s\", line %d)", index, axis, extent, where, file, line);
    ::cudakit_cpu::runtime->trap(text);
#else
    if (ck_fault_text != nullptr) {
      ck_fault_writer out = ck_fault_claim();
      if (out.at != nullptr) {
        out.text("IndexError: index ");
        out.number(index);
        out.text(" is out of bounds for axis ");
        out.number(axis);
        out.text(" with size ");
        out.number(extent);
        out.text(" in '");
        out.text(where);
        out.text("' (File \"");
        out.text(file);
        out.text("\", line ");
        out.number(line);
        out.text(")");
        out.finish();
      }
      ck_fault_exit();
    }
    printf("IndexError: index %lld is out of bounds for axis %d with size %lld in '%s' "
           "(File \"%s\", line %d)\n", index, axis, extent, where, file, line);
    __trap();
#endif
  }
  return index;
}
""",
    "wrap": r"""// Python's negative indices count from the end (a select, no branch).
__device__ __forceinline__ long long ck_wrap(long long index, long long extent) {
  return index < 0 ? index + extent : index;
}
""",
    "dynamic_shared": r"""// The launch's dynamic shared memory (cuda.shared.array(0, dtype)) and its
// size in bytes, which the kernel's last parameter gives (for device
// functions too: every thread of the block stores the same value).
extern __shared__ __align__(16) unsigned char ck_dynamic_shared[];
__shared__ unsigned long long ck_dynamic_shared_size;
""",
    "slice": r"""struct ck_slice_range {
  long long start;
  long long length;
};
// Python's slice rules (negative bounds count from the end, clamping) for
// an axis of n elements and a non-zero step.
__device__ __forceinline__ ck_slice_range ck_slice(long long n, long long start, long long stop,
                                                   long long step, bool has_start,
                                                   bool has_stop) {
  if (step == 0) return {0, 0};  // (a run-time step of zero: an empty view)
  if (step > 0) {
    start = has_start ? (start < 0 ? ck_slice_max(start + n, 0LL) : ck_slice_min(start, n)) : 0;
    stop = has_stop ? (stop < 0 ? ck_slice_max(stop + n, 0LL) : ck_slice_min(stop, n)) : n;
    return {start, stop > start ? (stop - start - 1) / step + 1 : 0};
  }
  start = has_start ? (start < 0 ? ck_slice_max(start + n, -1LL) : ck_slice_min(start, n - 1))
                    : n - 1;
  stop = has_stop ? (stop < 0 ? ck_slice_max(stop + n, -1LL) : ck_slice_min(stop, n - 1)) : -1;
  // (-step as unsigned: the smallest step has no positive int64)
  return {start, start > stop ? (long long)((unsigned long long)(start - stop - 1) /
                                            (0ULL - (unsigned long long)step)) + 1
                              : 0};
}
""",
    "numpy_min_max": r"""// NumPy's maximum / minimum: a NaN wins (either side); fmax / fmin: the
// other operand wins over a NaN. Complex numbers are ordered as NumPy
// orders them: by real part, then imaginary part.
template <class T>
__device__ __forceinline__ T ck_np_max(T a, T b) { return (a >= b || a != a) ? a : b; }
template <class T>
__device__ __forceinline__ T ck_np_min(T a, T b) { return (a <= b || a != a) ? a : b; }
template <class C>
__device__ __forceinline__ bool ck_cnan(C a) { return a.re != a.re || a.im != a.im; }
template <class C>
__device__ __forceinline__ bool ck_clt(C a, C b) {
  return a.re < b.re || (a.re == b.re && a.im < b.im);
}
template <class C>
__device__ __forceinline__ bool ck_cle(C a, C b) {
  return a.re < b.re || (a.re == b.re && a.im <= b.im);
}
template <class C>
__device__ __forceinline__ C ck_cmax(C a, C b, bool nan_wins) {
  return (ck_cle(b, a) || (nan_wins ? ck_cnan(a) : ck_cnan(b))) ? a : b;
}
template <class C>
__device__ __forceinline__ C ck_cmin(C a, C b, bool nan_wins) {
  return (ck_cle(a, b) || (nan_wins ? ck_cnan(a) : ck_cnan(b))) ? a : b;
}
""",
    "selp": r"""// cuda.selp: both operands evaluated (a call's arguments), then one chosen.
template <class T>
__device__ __forceinline__ T ck_selp(bool test, T a, T b) { return test ? a : b; }
""",
    "min_max": r"""template <class T>
__device__ __forceinline__ T ck_min(T a, T b) { return b < a ? b : a; }
template <class T>
__device__ __forceinline__ T ck_max(T a, T b) { return a < b ? b : a; }
""",
    "round_ndigits": r"""// round(x, ndigits) with ndigits known at run time (CPython's fallback
// algorithm, as Numba's): x scaled by 10**ndigits, rounded half to even, scaled back.
__device__ __noinline__ double ck_round_ndigits(double x, long long ndigits) {
  if (isinf(x) || isnan(x)) return x;
  double pow1, pow2 = 1.0, y;
  if (ndigits >= 0) {
    if (ndigits > 22) {
      pow1 = pow(10.0, (double)(ndigits - 22));
      pow2 = 1e22;
    } else {
      pow1 = pow(10.0, (double)ndigits);
    }
    y = (x * pow1) * pow2;
    if (isinf(y)) return x;
  } else {
    pow1 = pow(10.0, (double)-ndigits);
    y = x / pow1;
  }
  double z = rint(y);
  if (fabs(y - z) == 0.5) z = 2.0 * rint(y / 2.0);
  return ndigits >= 0 ? (z / pow2) / pow1 : z * pow1;
}
""",
    "match_sync": r"""// cuda.match_any_sync / match_all_sync / eq_sync: values compared by their bits.
__device__ __forceinline__ unsigned long long ck_match_bits(int v) { return (unsigned)v; }
__device__ __forceinline__ unsigned long long ck_match_bits(long long v) { return v; }
__device__ __forceinline__ unsigned long long ck_match_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned long long ck_match_bits(double v) {
  return (unsigned long long)__double_as_longlong(v);
}
template <class T>
__device__ __forceinline__ unsigned ck_match_any(unsigned mask, T value) {
#ifdef __CUDAKIT_CPU__
  // Every lane of the mask that runs shares its value in turn.
  const unsigned lanes = mask & __activemask();
  const unsigned long long mine = ck_match_bits(value);
  unsigned same = 0;
  for (int lane = 0; lane < 32; ++lane) {
    if (((lanes >> lane) & 1u) && __shfl_sync(lanes, mine, lane) == mine) same |= 1u << lane;
  }
  return same;
#else
  return __match_any_sync(mask, value);
#endif
}
template <class T>
__device__ __forceinline__ unsigned ck_match_all(unsigned mask, T value, int* predicate) {
#ifdef __CUDAKIT_CPU__
  const unsigned lanes = mask & __activemask();
  *predicate = ck_match_any(mask, value) == lanes;
  return *predicate ? mask : 0u;
#else
  return __match_all_sync(mask, value, predicate);
#endif
}
__device__ __forceinline__ bool ck_eq_sync(unsigned mask, bool predicate) {
  const unsigned voters = mask & __activemask();
  const unsigned ballot = __ballot_sync(mask, predicate);
  return ballot == 0u || ballot == voters;
}
""",
    "atomic_update": r"""// Atomic operations CUDA has no instruction for: compare-and-swap on the bits.
template <class T, class F>
__device__ __forceinline__ T ck_atomic_update(T* address, F update) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "32- or 64-bit elements");
  typedef typename ck_bits<sizeof(T)>::type Bits;
  union Word {
    T value;
    Bits bits;
  };
  Bits* bits = (Bits*)address;
  Word seen;
  seen.bits = *(volatile Bits*)bits;
  for (;;) {
    Word next;
    next.value = update(seen.value);
    Word before;
    before.bits = atomicCAS(bits, seen.bits, next.bits);
    if (before.bits == seen.bits) return seen.value;
    seen.bits = before.bits;
  }
}
template <class T> __device__ T ck_atomic_add(T* a, T v) { return ck_atomic_update(a, [v](T o) { return (T)(o + v); }); }
template <class T> __device__ T ck_atomic_sub(T* a, T v) { return ck_atomic_update(a, [v](T o) { return (T)(o - v); }); }
// max/min keep the element when it or the value is NaN (Python's max(a, b) is a then);
// nanmax/nanmin ignore a NaN on either side.
template <class T> __device__ T ck_atomic_max(T* a, T v) { return ck_atomic_update(a, [v](T o) { return o < v ? v : o; }); }
template <class T> __device__ T ck_atomic_min(T* a, T v) { return ck_atomic_update(a, [v](T o) { return v < o ? v : o; }); }
template <class T> __device__ T ck_atomic_nanmax(T* a, T v) { return ck_atomic_update(a, [v](T o) { return o < v || o != o ? v : o; }); }
template <class T> __device__ T ck_atomic_nanmin(T* a, T v) { return ck_atomic_update(a, [v](T o) { return v < o || o != o ? v : o; }); }
template <class T> __device__ T ck_atomic_exch(T* a, T v) { return ck_atomic_update(a, [v](T) { return v; }); }
template <class T> __device__ T ck_atomic_and(T* a, T v) { return ck_atomic_update(a, [v](T o) { return (T)(o & v); }); }
template <class T> __device__ T ck_atomic_or(T* a, T v) { return ck_atomic_update(a, [v](T o) { return (T)(o | v); }); }
template <class T> __device__ T ck_atomic_xor(T* a, T v) { return ck_atomic_update(a, [v](T o) { return (T)(o ^ v); }); }
template <class T> __device__ T ck_atomic_inc(T* a, T v) { return ck_atomic_update(a, [v](T o) { return (T)(o >= v ? 0 : o + 1); }); }
template <class T> __device__ T ck_atomic_dec(T* a, T v) { return ck_atomic_update(a, [v](T o) { return (o == 0 || o > v) ? v : ck_sub(o, (T)1); }); }
""",
}
# What a helper needs declared before it (shared by several helpers).
_INT_TRAITS = r"""// The unsigned type integer arithmetic on T is done in (8- to 32-bit types
// in 32 bits, as C++ promotes them), whether T is signed, and its smallest value.
template <class T> struct ck_uint { typedef unsigned int type; };
template <> struct ck_uint<long long> { typedef unsigned long long type; };
template <> struct ck_uint<unsigned long long> { typedef unsigned long long type; };
template <class T> struct ck_is_signed { static const bool value = (T)-1 < (T)0; };
template <class T>
__device__ __forceinline__ T ck_lowest() {
  return ck_is_signed<T>::value ? (T)((typename ck_uint<T>::type)1 << (sizeof(T) * 8 - 1)) : (T)0;
}
"""
HELPER_PRELUDE = {
    "wrap_int": _INT_TRAITS,
    "slice": r"""__device__ __forceinline__ long long ck_slice_min(long long a, long long b) { return a < b ? a : b; }
__device__ __forceinline__ long long ck_slice_max(long long a, long long b) { return a < b ? b : a; }
""",
    "atomic_update": r"""template <int Bytes> struct ck_bits;
template <> struct ck_bits<4> { typedef unsigned int type; };
template <> struct ck_bits<8> { typedef unsigned long long type; };
""",
}


# The helpers each helper calls (emitted before it).
_HELPER_NEEDS = {"fail": ("fault_text",), "bounds_check": ("fail",), "floordiv": ("wrap_int",), "mod": ("wrap_int",),
                 "ipow": ("wrap_int",), "atomic_update": ("wrap_int",)}


# float16 in kernels: the bits, converted through float (round to nearest
# even, the same on both backends: the GPU's cvt instructions there, the
# array prelude's conversions on the CPU backend). Arithmetic converts to
# float; the translator rounds every float16 result back.
HALF = r"""struct ck_half {
  unsigned short bits;
  ck_half() = default;
#if defined(__CUDA_ARCH__) && !defined(__CUDAKIT_CPU__)
  __device__ ck_half(float value) { asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value)); }
  __device__ operator float() const {
    float value;
    asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
    return value;
  }
#else
  __device__ ck_half(float value) : bits(cudakit_f2h(value).bits) {}
  __device__ operator float() const {
    cudakit_half h;
    h.bits = bits;
    return cudakit_h2f(h);
  }
#endif
};
// bfloat16 (cuda.bf16): the bits, converted through float by the array
// prelude's round-to-nearest-even on both backends.
struct ck_bf16 {
  unsigned short bits;
  ck_bf16() = default;
  __device__ ck_bf16(float value) : bits(cudakit_f2bf(value).bits) {}
  __device__ operator float() const {
    cudakit_bfloat16 h;
    h.bits = bits;
    return cudakit_bf2f(h);
  }
};
"""
_USES_NUMBERS = re.compile(r"\bck_half\b|\bck_bf16|\bcudakit_\w+")



# Functions the C library and CUDA's math headers declare at global scope in
# every kernel's translation unit: a generated function of the same name
# would conflict with (or overload) them.
C_LIBRARY_NAMES = frozenset(
    "abort abs acos acosf acosh asin asinf asinh assert atan atan2 atanf atanh atoi atof cbrt "
    "cbrtf ceil ceilf copysign cos cosf cosh coshf div erf erfc erfcf erff exit exp exp10 exp2 "
    "expf expm1 fabs fabsf fdim floor floorf fma fmaf fmax fmaxf fmin fminf fmod fmodf free "
    "frexp hypot hypotf ilogb isfinite isinf isnan labs ldexp ldiv lgamma llabs lldiv llrint "
    "llround log log10 log1p log2 logb logf lrint lround malloc memcmp memcpy memmove memset "
    "modf nan nanf nearbyint nextafter norm pow powf printf qsort rand rcbrt remainder remquo "
    "rint round roundf rsqrt rsqrtf scalbn signbit sin sincos sincosf sinf sinh sinhf sinpi "
    "sqrt sqrtf strcmp strlen tan tanf tanh tanhf tgamma trunc truncf y0 y1 yn j0 j1 jn "
    "clock clock64 atomicAdd atomicSub atomicExch atomicMin atomicMax atomicCAS".split())


def constant_float(value: float, dtype: t.Type) -> str:
    """A floating value as a constant initializer C++ accepts in __constant__
    memory on both backends: NVRTC has no INFINITY / NAN there, and
    __int_as_float is not a constant expression; a bit cast is (and keeps a
    NaN's payload)."""
    if np.isfinite(value):
        return repr(float(value))
    if dtype == t.float32:
        bits = int(np.array(value, np.float32).view(np.uint32))
        return f"__builtin_bit_cast(float, {bits:#010x}u)"
    bits = int(np.array(value, np.float64).view(np.uint64))
    return f"__builtin_bit_cast(double, {bits:#018x}ULL)"

class Program:
    """Collects the pieces of one translation unit."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.helpers: list[str] = []
        self.device_functions: dict[tuple[Any, tuple[t.Type, ...]], tuple[str, t.Type]] = {}
        self.device_sources: list[str] = []
        # The device functions being translated (their FunctionTranslator), by key.
        self.in_progress: dict[tuple[Any, tuple[t.Type, ...]], Any] = {}
        self.constants: list[str] = []
        self.constant_names: dict[int, tuple[np.ndarray, str]] = {}
        self.constant_bytes = 0  # of the __constant__ arrays above
        self.local_array_bytes = 0  # of the functions' cuda.local.array arrays, per thread
        self.names: set[str] = set()
        self.uses_barrier = False
        self.uses_grid_sync = False  # this_grid() (or its sync()): the kernel needs a cooperative launch
        # cuda.shared.array(0, ...): the kernel takes the launch's dynamic
        # shared bytes as a last, hidden parameter (DYNAMIC_SHARED_PARAM).
        self.uses_dynamic_shared = False
        self.uses_print = False
        self.records: dict[str, str] = {}  # record structs: C name -> declaration
        self.user_exceptions: dict[str, type] = {}  # raised classes not builtins: name -> class
        self.tuple_structs: dict[t.TupleT, str] = {}
        self.tuple_sources: list[str] = []
        # Foreign device functions: their declarations, and the .cu files
        # (declare_device(link=...), @cuda.jit(link=...)) that define them.
        self.foreign_declarations: dict[str, str] = {}
        self.linked_files: list[str] = list(options.get("link") or ())

    def need_helper(self, name: str) -> None:
        for needed in _HELPER_NEEDS.get(name, ()):
            self.need_helper(needed)
        if name not in self.helpers:
            self.helpers.append(name)

    def unique_name(self, base: str) -> str:
        # A C++ identifier from a Python name ("<lambda>" -> "lambda_fn").
        base = re.sub(r"\W", "", base) or "function"
        if base == "lambda":
            base = "lambda_fn"
        if base[0].isdigit():
            base = "f" + base
        from .codegen import CPP_RESERVED
        # A kernel named `double`, or a function named as one of the C
        # library's or CUDA's (`div`, `fma`): C++ would take it for that one.
        if base in CPP_RESERVED or base in C_LIBRARY_NAMES:
            base += "_fn"
        name, n = base, 1
        while name in self.names:
            n += 1
            name = f"{base}_{n}"
        self.names.add(name)
        return name

    def need_record(self, ty: t.Type) -> None:
        """Declares the struct of a record type (or of an array's records)."""
        record = ty.dtype if isinstance(ty, t.ArrayT) else ty
        if isinstance(record, t.RecordT) and record.ctype not in self.records:
            self.records[record.ctype] = record.declaration()

    def tuple_struct(self, ty: t.TupleT) -> str:
        """The struct a device function returns a tuple of numbers in."""
        name = self.tuple_structs.get(ty)
        if name is None:
            name = self.unique_name("ck_tuple")
            fields = " ".join(f"{item.ctype} f{i};" for i, item in  # type: ignore[union-attr]
                              enumerate(ty.items))
            self.tuple_sources.append(f"struct {name} {{ {fields} }};  // {ty}")
            self.tuple_structs[ty] = name
        return name

    def constant_array(self, array: np.ndarray) -> str:
        """A NumPy array frozen as __constant__ memory, once per array object."""
        entry = self.constant_names.get(id(array))
        if entry is not None and entry[0] is array:
            return entry[1]
        dtype = t.from_dtype(array.dtype)
        name = self.unique_name("ck_const")
        flat = np.ascontiguousarray(array).ravel()
        self.constant_bytes += max(flat.size, 1) * flat.itemsize
        if isinstance(dtype, t.RecordT):
            # The records' bytes as NumPy lays them out (the struct has
            # NumPy's offsets), read through the struct's type (not const:
            # a record local points into its array; stores are refused).
            raw = flat.tobytes() or b"\0"
            self.constants.append(
                f"__constant__ __align__(16) unsigned char {name}_bytes[{len(raw)}] = "
                f"{{{', '.join(str(b) for b in raw)}}};\n"
                f"#define {name} (({dtype.ctype}*){name}_bytes)")
            self.constant_names[id(array)] = (array, name)
            return name
        if dtype.kind == "c":
            part = t.float32 if dtype == t.complex64 else t.float64
            values = ", ".join(f"{{{constant_float(v.real, part)}, {constant_float(v.imag, part)}}}"
                               for v in flat)
        elif dtype.kind == "f":
            values = ", ".join(constant_float(v, dtype) for v in flat)
        elif dtype.kind == "b":
            values = ", ".join("true" if v else "false" for v in flat)
        else:
            values = ", ".join(f"{int(v)}{'ULL' if dtype.kind == 'u' else 'LL'}" for v in flat)
        self.constants.append(
            f"__constant__ {dtype.ctype} {name}[{max(flat.size, 1)}] = {{{values or '0'}}};")
        self.constant_names[id(array)] = (array, name)
        return name

    def declare_foreign(self, name: str, declaration: str, link: tuple[str, ...]) -> None:
        if self.foreign_declarations.setdefault(name, declaration) != declaration:
            raise ValueError(f"the foreign device function {name} is declared with two "
                             "different signatures")
        for path in link:
            if path not in self.linked_files:
                self.linked_files.append(path)

    def source(self, kernel_source: str) -> str:
        linked = []
        # (compile_all(link=...) compiles the linked files apart: link_separately)
        if self.linked_files and not self.options.get("link_separately"):
            from ..foreign import linked_source
            from ..linked_code import compiled_kind
            # (compiled code is linked with the compiled kernel: linked_code.py)
            linked = [linked_source(path) for path in self.linked_files
                      if not compiled_kind(path)]
        # The linked C/C++ comes first: a foreign function it defines needs no
        # declaration of ours, which would conflict with its own where the
        # types differ in C++ but not in the ABI (`unsigned int *out` for an
        # int32 result, `void *out`).
        declarations = [text for name, text in self.foreign_declarations.items()
                        if not any(re.search(rf"\b{name}\s*\(", code) for code in linked)]
        parts = ["// Generated by cudakit.cuda from Python source; #line directives point at it.",
                 *(["#include <cooperative_groups.h>"] if self.uses_grid_sync else []),
                 *linked, *(['#line 1 "kernel.cu"'] if linked else []),
                 *declarations, 'extern "C++" {', ARRAY_VIEW]
        body = "\n".join([*self.records.values(), *self.tuple_sources, *self.constants,
                          *self.device_sources, kernel_source])
        if _USES_NUMBERS.search(body):
            # Complex or float16 values: the array layer's complex structs and
            # math, and the half conversions.
            from ... import _core
            from .half_arithmetic import HALF_ARITHMETIC
            parts.extend([_core.jit_array_prelude(), HALF, HALF_ARITHMETIC])
        for name in self.helpers:
            if name in HELPER_PRELUDE:
                parts.append(HELPER_PRELUDE[name])
            parts.append(HELPERS[name])
        parts.extend(self.records.values())
        parts.extend(self.tuple_sources)
        parts.extend(self.constants)
        parts.extend(self.device_sources)
        parts.append("}  // extern \"C++\"")
        parts.append(kernel_source)
        return "\n".join(parts) + "\n"
