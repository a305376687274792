"""float16 arithmetic and comparisons in generated code: helpers named as
CUDA's __hadd ... __hgt, which use the GPU's f16 instructions from sm_53 (as
numba-cuda's kernels do) and compute through float elsewhere (the CPU
backend, older GPUs)."""

from __future__ import annotations

import ast

# Both ways round each result once to half: float holds the exact sum,
# difference or product of two halves. On the GPU, ptxas may contract a
# mul.f16 that feeds an add.f16 into one fma, as it does with CUDA's own
# __hmul / __hadd (and numba-cuda's kernels).
HALF_ARITHMETIC = r"""#if defined(__CUDA_ARCH__) && !defined(__CUDAKIT_CPU__) && __CUDA_ARCH__ >= 530
#define CK_HALF_BINARY(name, instruction, expression)                                     \
  __device__ inline ck_half ck_##name(ck_half a, ck_half b) {                             \
    ck_half r;                                                                            \
    asm(instruction " %0, %1, %2;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits));            \
    return r;                                                                             \
  }
#define CK_HALF_UNARY(name, instruction, expression)                                      \
  __device__ inline ck_half ck_##name(ck_half a) {                                        \
    ck_half r;                                                                            \
    asm(instruction " %0, %1;" : "=h"(r.bits) : "h"(a.bits));                             \
    return r;                                                                             \
  }
#define CK_HALF_COMPARE(name, test, expression)                                           \
  __device__ inline bool ck_##name(ck_half a, ck_half b) {                                \
    unsigned short r;                                                                     \
    asm("{ .reg .pred p; setp." test ".f16 p, %1, %2; selp.u16 %0, 1, 0, p; }"            \
        : "=h"(r) : "h"(a.bits), "h"(b.bits));                                            \
    return r != 0;                                                                        \
  }
__device__ inline ck_half ck_hfma(ck_half a, ck_half b, ck_half c) {
  ck_half r;
  asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits), "h"(c.bits));
  return r;
}
#else
#define CK_HALF_BINARY(name, instruction, expression)                                     \
  __device__ inline ck_half ck_##name(ck_half a, ck_half b) {                             \
    float x = a, y = b;                                                                   \
    return ck_half(expression);                                                           \
  }
#define CK_HALF_UNARY(name, instruction, expression)                                      \
  __device__ inline ck_half ck_##name(ck_half a) {                                        \
    float x = a;                                                                          \
    return ck_half(expression);                                                           \
  }
#define CK_HALF_COMPARE(name, test, expression)                                           \
  __device__ inline bool ck_##name(ck_half a, ck_half b) {                                \
    float x = a, y = b;                                                                   \
    return expression;                                                                    \
  }
__device__ inline ck_half ck_hfma(ck_half a, ck_half b, ck_half c) {
  return ck_half(fmaf((float)a, (float)b, (float)c));
}
#endif
CK_HALF_BINARY(hadd, "add.f16", x + y)
CK_HALF_BINARY(hsub, "sub.f16", x - y)
CK_HALF_BINARY(hmul, "mul.f16", x * y)
CK_HALF_UNARY(hneg, "neg.f16", -x)
CK_HALF_UNARY(habs, "abs.f16", fabsf(x))
CK_HALF_COMPARE(heq, "eq", x == y)
CK_HALF_COMPARE(hne, "ne", x < y || x > y)  // ordered, as CUDA's __hne
CK_HALF_COMPARE(hneu, "neu", !(x == y))     // Python's !=: true with a NaN
CK_HALF_COMPARE(hlt, "lt", x < y)
CK_HALF_COMPARE(hle, "le", x <= y)
CK_HALF_COMPARE(hgt, "gt", x > y)
CK_HALF_COMPARE(hge, "ge", x >= y)
#undef CK_HALF_BINARY
#undef CK_HALF_UNARY
#undef CK_HALF_COMPARE
"""

# Python's operators on two float16 values, by the helper computing them.
BINARY = {ast.Add: "ck_hadd", ast.Sub: "ck_hsub", ast.Mult: "ck_hmul"}
COMPARE = {ast.Eq: "ck_heq", ast.NotEq: "ck_hneu", ast.Lt: "ck_hlt", ast.LtE: "ck_hle",
           ast.Gt: "ck_hgt", ast.GtE: "ck_hge"}
