"""bfloat16 in kernels: numba.cuda.bf16's intrinsics (arithmetic, comparisons,
bit casts and conversions with a rounding mode) on ck_bf16 values.

Arithmetic is computed in float and rounded to bfloat16 (round to nearest
even); conversions with an explicit mode (_rn, _rz, _rd, _ru) round exactly
from the value (a double, or an integer folded to one that rounds the same),
so they agree with CUDA's __float2bfloat16_rz & co. on both backends.
Conversions to integers saturate and give 0 for NaN, as CUDA's do.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Callable

from . import intrinsics, program
from . import types as t
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator

HELPER = r"""__device__ inline ck_bf16 ck_bf16_bits(unsigned short bits) {
  ck_bf16 h;
  h.bits = bits;
  return h;
}
__device__ inline double ck_bf16_magnitude(unsigned short bits) {
  // The value of magnitude bits (past the largest finite one, 2^128: the
  // next point of the grid, which rounding to nearest overflows to).
  return bits >= 0x7f80u ? 3.4028236692093846e38 : (double)cudakit_bits_float((unsigned int)bits << 16);
}
// d rounded to bfloat16: mode 0 to nearest even, 1 toward zero, 2 down, 3 up.
// Its two neighbours are found from float(d) (no bfloat16 lies strictly
// between d and the float nearest it) and compared with d exactly.
__device__ inline ck_bf16 ck_bf16_round(double d, int mode) {
  if (d != d) return ck_bf16_bits(0x7fc0u);
  const unsigned int x = cudakit_float_bits((float)d);
  const unsigned short sign = (unsigned short)((x >> 16) & 0x8000u);
  const double mag = d < 0 ? -d : d;
  unsigned short low = (unsigned short)((x >> 16) & 0x7fffu);
  if (low >= 0x7f80u && mag - mag == 0) low = 0x7f7fu;  // float(d) overflowed: below inf
  if (low < 0x7f80u && ck_bf16_magnitude(low) > mag) low = (unsigned short)(low - 1u);
  if (low >= 0x7f80u || ck_bf16_magnitude(low) == mag) return ck_bf16_bits((unsigned short)(sign | low));
  const unsigned short high = (unsigned short)(low + 1u);
  bool up;
  if (mode == 1) {
    up = false;
  } else if (mode == 2) {
    up = sign != 0;
  } else if (mode == 3) {
    up = sign == 0;
  } else {
    const double below = mag - ck_bf16_magnitude(low), above = ck_bf16_magnitude(high) - mag;
    up = above < below || (above == below && (low & 1u));
  }
  return ck_bf16_bits((unsigned short)(sign | (up ? high : low)));
}
// An integer's magnitude as a double that rounds to the same bfloat16 in
// every mode: the bits below its 40 leading ones folded into one sticky bit.
__device__ inline double ck_bf16_integer(unsigned long long m) {
  int shift = 0;
  while ((m >> shift) >= (1ULL << 40)) ++shift;
  unsigned long long kept = m >> shift;
  if (shift > 0 && (m & ((1ULL << shift) - 1ULL)) != 0) kept |= 1ULL;
  return (double)kept * (double)(1ULL << shift);
}
__device__ inline ck_bf16 ck_bf16_from_signed(long long v, int mode) {
  const unsigned long long m = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  const double d = ck_bf16_integer(m);
  return ck_bf16_round(v < 0 ? -d : d, mode);
}
__device__ inline ck_bf16 ck_bf16_from_unsigned(unsigned long long v, int mode) {
  return ck_bf16_round(ck_bf16_integer(v), mode);
}
template <class T>
__device__ inline T ck_bf16_to_integer(ck_bf16 h, int mode, T lowest, T highest) {
  const float f = (float)h;
  if (f != f) return (T)0;
  const float r = mode == 0 ? rintf(f) : mode == 1 ? truncf(f) : mode == 2 ? floorf(f) : ceilf(f);
  if (r <= (float)lowest) return lowest;
  if (r >= (float)highest) return highest;
  return (T)r;
}
__device__ inline ck_bf16 ck_bf16_sat(float v) { return ck_bf16(v != v ? 0.0f : fminf(fmaxf(v, 0.0f), 1.0f)); }
__device__ inline ck_bf16 ck_bf16_relu(float v) { return ck_bf16(v != v ? v : fmaxf(v, 0.0f)); }
__device__ inline float ck_bf16_nan_or(float a, float b, float r) { return a != a ? a : b != b ? b : r; }
"""

_MODES = {"rn": 0, "rz": 1, "rd": 2, "ru": 3}
_INTEGERS = {"int8": ("signed char", "-128", "127"), "uint8": ("unsigned char", "0", "255"),
             "int16": ("short", "-32768", "32767"), "uint16": ("unsigned short", "0", "65535"),
             "int32": ("int", "(-2147483647 - 1)", "2147483647"),
             "uint32": ("unsigned int", "0u", "4294967295u"),
             "int64": ("long long", "(-9223372036854775807LL - 1)", "9223372036854775807LL"),
             "uint64": ("unsigned long long", "0ULL", "18446744073709551615ULL")}

# name -> (argument types, result type, C++ with {a}, {b}, {c} as the arguments)
_FLOAT_ARGS = "(float)({})"
INTRINSICS: dict[str, tuple[tuple[t.Scalar, ...], t.Scalar, str]] = {}


def _define() -> None:
    bf, b2 = t.bfloat16, (t.bfloat16, t.bfloat16)
    for name, op in (("hadd", "+"), ("hsub", "-"), ("hmul", "*"), ("hdiv", "/")):
        INTRINSICS[name] = (b2, bf, f"ck_bf16({{a}} {op} {{b}})")
        if name != "hdiv":
            INTRINSICS[name + "_rn"] = INTRINSICS[name]
            INTRINSICS[name + "_sat"] = (b2, bf, f"ck_bf16_sat({{a}} {op} {{b}})")
    INTRINSICS["hfma"] = ((bf,) * 3, bf, "ck_bf16(fmaf({a}, {b}, {c}))")
    INTRINSICS["hfma_sat"] = ((bf,) * 3, bf, "ck_bf16_sat(fmaf({a}, {b}, {c}))")
    INTRINSICS["hfma_relu"] = ((bf,) * 3, bf, "ck_bf16_relu(fmaf({a}, {b}, {c}))")
    INTRINSICS["hneg"] = ((bf,), bf, "ck_bf16(-{a})")
    INTRINSICS["habs"] = ((bf,), bf, "ck_bf16(fabsf({a}))")
    # Ordered comparisons (false with a NaN), hne too, as CUDA's __hne.
    for name, code in (("heq", "{a} == {b}"), ("hne", "({a} < {b} || {a} > {b})"),
                       ("hge", "{a} >= {b}"), ("hgt", "{a} > {b}"), ("hle", "{a} <= {b}"),
                       ("hlt", "{a} < {b}")):
        INTRINSICS[name] = (b2, t.boolean, f"({code})")
    INTRINSICS["hmax"] = (b2, bf, "ck_bf16(fmaxf({a}, {b}))")  # the number beside a NaN
    INTRINSICS["hmin"] = (b2, bf, "ck_bf16(fminf({a}, {b}))")
    INTRINSICS["hmax_nan"] = (b2, bf, "ck_bf16(ck_bf16_nan_or({a}, {b}, fmaxf({a}, {b})))")
    INTRINSICS["hmin_nan"] = (b2, bf, "ck_bf16(ck_bf16_nan_or({a}, {b}, fminf({a}, {b})))")
    INTRINSICS["hisnan"] = ((bf,), t.boolean, "({a} != {a})")
    INTRINSICS["hisinf"] = ((bf,), t.int32,
                            "({a} - {a} != 0 && {a} == {a} ? ({a} > 0 ? 1 : -1) : 0)")
    for name in ("int16", "uint16"):
        ty = t.SCALARS[name]
        INTRINSICS[f"bfloat16_as_{name}"] = ((bf,), ty, f"({ty.ctype})(({{raw}}).bits)")
        INTRINSICS[f"{name}_as_bfloat16"] = ((ty,), bf, "ck_bf16_bits((unsigned short)({raw}))")
    for name, (ctype, lowest, highest) in _INTEGERS.items():
        ty = t.SCALARS[name]
        modes = ("rz",) if ty.bits == 8 else tuple(_MODES)
        for mode in modes:
            INTRINSICS[f"bfloat16_to_{name}_{mode}"] = (
                (bf,), ty, f"ck_bf16_to_integer<{ctype}>({{raw}}, {_MODES[mode]}, "
                           f"({ctype}){lowest}, ({ctype}){highest})")
            if ty.bits > 8:
                convert = "ck_bf16_from_signed" if ty.kind == "i" else "ck_bf16_from_unsigned"
                INTRINSICS[f"{name}_to_bfloat16_{mode}"] = (
                    (ty,), bf, f"{convert}({{raw}}, {_MODES[mode]})")
    for mode, number in _MODES.items():
        INTRINSICS[f"float32_to_bfloat16_{mode}"] = (
            (t.float32,), bf, f"ck_bf16_round((double)({{raw}}), {number})")
    INTRINSICS["float32_to_bfloat16"] = ((t.float32,), bf, "ck_bf16_round((double)({raw}), 0)")
    INTRINSICS["float64_to_bfloat16"] = ((t.float64,), bf, "ck_bf16_round({raw}, 0)")
    INTRINSICS["bfloat16_to_float32"] = ((bf,), t.float32, "(float)({raw})")


_define()


def _kernel_only(name: str) -> Callable[..., Any]:
    def function(*args: Any) -> Any:
        raise RuntimeError(f"cuda.bf16.{name}() can only be called inside a @cuda.jit "
                           "function")
    function.__name__ = function.__qualname__ = name
    function.__module__ = "cudakit.cuda.bf16"
    return function


# The objects numba.cuda.bf16 exports (cudakit.cuda.bf16 re-exports them).
FUNCTIONS: dict[str, Callable[..., Any]] = {name: _kernel_only(name) for name in INTRINSICS}


def _handler(name: str) -> intrinsics.Handler:
    arg_types, result, code = INTRINSICS[name]

    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        if kw or len(args) != len(arg_types) or not all(tr.is_number(a) for a in args):
            raise tr.typing_error(f"cuda.bf16.{name}() takes {len(arg_types)} number"
                                  f"{'s' if len(arg_types) > 1 else ''} "
                                  f"({', '.join(map(str, arg_types))})", node)
        tr.program.need_helper("bfloat16")
        raws = [tr.cast(a, ty) for a, ty in zip(args, arg_types)]
        if "{raw}" in code:
            return tr.value(result, code.format(raw=raws[0]))
        floats = [_FLOAT_ARGS.format(r) if ty == t.bfloat16 else r
                  for r, ty in zip(raws, arg_types)]
        names = dict(zip("abc", floats))
        if len(floats) > 1 or any(code.count(f"{{{k}}}") > 1 for k in names):
            # Arguments read more than once are read once, into locals.
            for key, text in list(names.items()):
                local = tr.fresh("bf16_arg")
                tr.emit(f"const float {local} = {text};")
                names[key] = local
        return tr.value(result, code.format(**names))
    return emit


def register() -> None:
    program.HELPERS["bfloat16"] = HELPER
    for name, function in FUNCTIONS.items():
        intrinsics._register_object(function, _handler(name))
    intrinsics.CASTS[id(t.bfloat16)] = (t.bfloat16, t.bfloat16)
