"""What `cuda.libdevice.NAME(...)` and `numpy_support.carray / farray`
become inside a kernel.

A libdevice function is the CUDA math function of the same name: the
standard ones (`sinf`, `frexp`, `jn`) by name, the intrinsics with CUDA's
`__` prefix (`__nv_dadd_rn` -> `__dadd_rn`, `__nv_brev` -> `__brev`), the
fast ones as `__nv_fast_sinf` -> `__sinf`. Arguments convert to libdevice's
types (unsigned where the function is, although Numba's table spells them
signed) and pointer arguments become extra results: `libdevice.sincos(x)` is
the tuple (sin, cos).
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from . import intrinsics
from . import types as t

if TYPE_CHECKING:
    from .codegen import FunctionTranslator, Val

# Integer intrinsics whose CUDA name has the "__" prefix.
_PREFIXED = frozenset(
    "brev brevll clz clzll ffs ffsll popc popcll byte_perm hadd rhadd uhadd urhadd mul24 "
    "umul24 mulhi umulhi mul64hi umul64hi sad usad saturatef double2hiint double2loint "
    "hiloint2double".split())
# Conversions (float2int_rn), reinterpretations (float_as_int) and the
# arithmetic with a rounding mode (dadd_rd, fmaf_rz, fsqrt_rn).
_PREFIXED_PATTERN = re.compile(r"^\w+2\w+_r[dnuz]$|_as_|_r[dnuz]$")
# Functions on unsigned integers: the C call takes and gives unsigned values.
_UNSIGNED = frozenset(
    "uhadd urhadd umul24 umulhi umul64hi usad umin umax ullmin ullmax byte_perm".split())
_UNSIGNED_ARGS_PATTERN = re.compile(r"^(uint|ull)2")
_UNSIGNED_RESULT_PATTERN = re.compile(r"2(uint|ull)_r[dnuz]$")
_MIN_MAX = {"min": "<", "max": ">", "umin": "<", "umax": ">", "llmin": "<", "llmax": ">",
            "ullmin": "<", "ullmax": ">"}
_CLASSIFY = {"isnand": "isnan", "isnanf": "isnan", "isinfd": "isinf", "isinff": "isinf",
             "isfinited": "isfinite", "finitef": "isfinite", "signbitd": "signbit",
             "signbitf": "signbit"}


def _unsigned(ty: t.Scalar) -> t.Scalar:
    return t.uint64 if ty.bits == 64 else t.uint32


def c_function(name: str) -> str:
    """The CUDA math API's name of libdevice's __nv_NAME."""
    if name.startswith("fast_"):
        return "__" + name[5:]
    if name in _PREFIXED or _PREFIXED_PATTERN.search(name):
        return "__" + name
    if name in ("powi", "powif"):
        return "pow" if name == "powi" else "powf"
    return name


def _libdevice_handler(libname: str) -> intrinsics.Handler:
    from ..libdevicefuncs import functions
    retty, lib_args = functions[libname]
    name = libname[5:]
    inputs = [a for a in lib_args if not a.is_ptr]
    outputs = [a for a in lib_args if a.is_ptr]

    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if kw or len(args) != len(inputs) or not all(tr.is_number(a) for a in args):
            wanted = ", ".join(f"{a.name}: {a.ty}" for a in inputs)
            got = ", ".join(a.describe() for a in args) + (", keywords" if kw else "")
            raise tr.typing_error(f"libdevice.{name}({wanted}) takes {len(inputs)} number"
                                  f"{'s' if len(inputs) != 1 else ''}, got ({got})", node)
        unsigned_args = name in _UNSIGNED or bool(_UNSIGNED_ARGS_PATTERN.search(name))
        codes = []
        for value, lib_arg in zip(args, inputs):
            ty = lib_arg.ty
            if unsigned_args and ty.kind == "i":
                ty = _unsigned(ty)
            if name == "sad" and len(codes) == 2:  # __sad(int, int, unsigned int)
                ty = t.uint32
            if name in ("powi", "powif"):
                ty = t.float64 if name == "powi" else t.float32
            codes.append(tr.cast(value, ty))
        if name in _MIN_MAX:
            kind = _unsigned(retty) if name[0] == "u" else retty  # type: ignore[arg-type]
            a, b = (f"(({kind.ctype})({c}))" for c in codes)
            return tr.value(retty, f"({retty.ctype})({a} {_MIN_MAX[name]} {b} ? {a} : {b})")
        if name in _CLASSIFY:
            return tr.value(retty, f"(int){_CLASSIFY[name]}({codes[0]})")
        if name == "float2half_rn":
            return tr.value(retty, f"(short)ck_half({codes[0]}).bits")
        if name == "half2float":
            temp = tr.fresh("half")
            tr.emit(f"ck_half {temp};")
            tr.emit(f"{temp}.bits = (unsigned short)({codes[0]});")
            return tr.value(retty, f"(float){temp}")
        out_names = [tr.fresh("out") for _ in outputs]
        for out_name, out in zip(out_names, outputs):
            tr.emit(f"{out.ty.ctype} {out_name};")
        call = f"{c_function(name)}({', '.join(codes + ['&' + n for n in out_names])})"
        if not outputs:
            return tr.value(retty, f"({retty.ctype})({call})")  # type: ignore[union-attr]
        results = [tr.value(out.ty, n) for out, n in zip(outputs, out_names)]
        if retty == t.none:
            tr.emit(f"{call};")
        else:
            temp = tr.fresh("ret")
            tr.emit(f"const {retty.ctype} {temp} = {call};")  # type: ignore[union-attr]
            results.insert(0, tr.value(retty, temp))
        return results[0] if len(results) == 1 else tr.tuple_value(results)
    return emit


def _pointer_array(order: str) -> intrinsics.Handler:
    function = "carray" if order == "C" else "farray"

    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if len(args) == 3 and "dtype" not in kw:
            kw = dict(kw, dtype=args.pop())
        if len(args) != 2 or set(kw) - {"dtype"} or not isinstance(args[0].type, t.PointerT):
            raise tr.typing_error(f"{function}(ptr, shape, dtype=None) in a kernel takes a "
                                  "CPointer argument and a shape", node)
        dtype = args[0].type.dtype
        if "dtype" in kw and tr.dtype_of(kw["dtype"], node) != dtype:
            raise tr.typing_error(f"{function}(): dtype {kw['dtype'].describe()} does not "
                                  f"match the pointer's {dtype}", node)
        shape = args[1].items if args[1].items is not None else [args[1]]
        if not shape or not all(isinstance(s.type, t.Scalar) and s.type.kind in "iu"
                                for s in shape):
            raise tr.typing_error(f"{function}(): the shape is an integer or a tuple of "
                                  f"integers, got {args[1].describe()}", node)
        extents = [tr.cast(s, t.int64) for s in shape]
        ndim = len(extents)
        strides = ["1LL"] * ndim
        axes = range(ndim - 2, -1, -1) if order == "C" else range(1, ndim)
        for d in axes:
            neighbour = d + 1 if order == "C" else d - 1
            strides[d] = f"{strides[neighbour]} * ({extents[neighbour]})"
        view = t.ArrayT(dtype, ndim, order)
        code = (f"{view.view_ctype}{{({dtype.ctype}*)({args[0].code}), "
                f"{{{', '.join(extents)}}}, {{{', '.join(strides)}}}}}")
        return tr.value(view, code)
    return emit


def _by_precision(single: str, double: str) -> intrinsics.Handler:
    """math.frexp / math.ldexp: libdevice's float32 function for a float32
    first argument, else its float64 one."""
    handlers = {t.float32: _libdevice_handler(single), None: _libdevice_handler(double)}

    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        first = args[0].type if args else None
        return handlers.get(first if first == t.float32 else None)(tr, node, args, kw)
    return emit


def register() -> None:
    import math
    intrinsics._register_object(math.frexp, _by_precision("__nv_frexpf", "__nv_frexp"))
    intrinsics._register_object(math.ldexp, _by_precision("__nv_ldexpf", "__nv_ldexp"))
    # (fractional part, integral part), as Python's
    intrinsics._register_object(math.modf, _by_precision("__nv_modff", "__nv_modf"))
    from .. import libdevice
    from ..libdevicefuncs import functions
    from ..np import numpy_support
    for libname in functions:
        intrinsics._register_object(getattr(libdevice, libname[5:]),
                                    _libdevice_handler(libname))
    intrinsics._register_object(numpy_support.carray, _pointer_array("C"))
    intrinsics._register_object(numpy_support.farray, _pointer_array("F"))


__all__ = ["c_function", "register"]
