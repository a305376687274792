"""Complex and float16 numbers in kernels: the cmath module, complex(),
.conjugate(), abs(), NumPy's functions on complex values, math on float16
(computed in float, rounded back to half) and cuda.fp16's intrinsics.

Complex values are the array layer's cudakit_complex64/128 structs and use
its complex math (C99 Annex G branch cuts and special values, as NumPy and
Python's cmath have them).
"""

from __future__ import annotations

import ast
import builtins
import cmath
import math
from typing import TYPE_CHECKING

import numpy as np

from . import cmath_special, intrinsics
from . import types as t
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator

# Python / NumPy name -> the prelude's complex function.
COMPLEX_FUNCTIONS = {
    "exp": "cudakit_cexp", "log": "cudakit_clog", "sqrt": "cudakit_csqrt",
    "sin": "cudakit_csin", "cos": "cudakit_ccos", "tan": "cudakit_ctan",
    "sinh": "cudakit_csinh", "cosh": "cudakit_ccosh", "tanh": "cudakit_ctanh",
    "asin": "cudakit_carcsin", "acos": "cudakit_carccos", "atan": "cudakit_carctan",
    "asinh": "cudakit_carcsinh", "acosh": "cudakit_carccosh", "atanh": "cudakit_carctanh",
    "log10": "cudakit_clog10", "log2": "cudakit_clog2", "expm1": "cudakit_cexpm1",
    "log1p": "cudakit_clog1p", "exp2": "cudakit_cexp2",
}
_NUMPY_NAMES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
                "arccosh": "acosh", "arctanh": "atanh"}


def complex_of(ty: t.Type | None) -> t.Scalar:
    """The complex type a value becomes: complex64 for float32 and
    complex64, complex128 otherwise."""
    return t.complex64 if ty in (t.float32, t.complex64, t.float16) else t.complex128


def _real_of(ty: t.Scalar) -> t.Scalar:
    return t.float32 if ty == t.complex64 else t.float64


def _number(tr: "FunctionTranslator", node: ast.AST, args: list[Val], count: int,
            name: str) -> list[Val]:
    if len(args) != count or not all(tr.is_number(a) for a in args):
        raise tr.typing_error(f"{name}() takes {count} number{'s' if count > 1 else ''}",
                              node)
    return args


def _complex_function(name: str, function: str) -> intrinsics.Handler:
    """cmath.<name>: the array layer's function, with cmath's special values
    (cmath_special) where CPython keeps a table for them."""
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        if name == "log" and len(args) == 2:  # cmath.log(z, base)
            z, base = _number(tr, node, args, 2, "cmath.log")
            ct = t.promote(complex_of(z.type), complex_of(base.type))
            log = cmath_special.need(tr.program, "log")
            # In double: the quotient of the two logarithms loses the digits
            # their rounding to float cancels (log(z, z) is exactly 1 otherwise).
            quotient = (f"({log}({tr.cast(z, t.complex128)}) / "
                        f"{log}({tr.cast(base, t.complex128)}))")
            return tr.value(ct, quotient if ct == t.complex128 else f"cudakit_c64({quotient})")
        (z,) = _number(tr, node, args, 1, f"cmath.{name}")
        ct = complex_of(z.type)
        if name in cmath_special.TABLED or name in cmath_special.ROTATED:
            return tr.value(ct, f"{cmath_special.need(tr.program, name)}({tr.cast(z, ct)})")
        return tr.value(ct, f"{function}({tr.cast(z, ct)})")
    return emit


def _phase(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    (z,) = _number(tr, node, args, 1, "cmath.phase")
    ct = complex_of(z.type)
    code = tr.cast(z, ct)
    return tr.value(_real_of(ct), f"cudakit_arctan2(({code}).im, ({code}).re)")


def _polar(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    (z,) = _number(tr, node, args, 1, "cmath.polar")
    ct = complex_of(z.type)
    temp = tr.fresh("polar")
    tr.emit(f"const {ct.ctype} {temp} = {tr.cast(z, ct)};")
    real = _real_of(ct)
    return tr.tuple_value([tr.value(real, f"cudakit_abs({temp})"),
                           tr.value(real, f"cudakit_arctan2({temp}.im, {temp}.re)")])


def _rect(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    r, phi = _number(tr, node, args, 2, "cmath.rect")
    if "c" in (r.type.kind, phi.type.kind):  # type: ignore[union-attr]
        raise tr.typing_error("cmath.rect(r, phi) takes real numbers", node)
    rect = cmath_special.need(tr.program, "rect")  # with cmath's special values
    return tr.value(t.complex128,
                    f"{rect}({tr.cast(r, t.float64)}, {tr.cast(phi, t.float64)})")


def _classify(name: str) -> intrinsics.Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        (z,) = _number(tr, node, args, 1, f"cmath.{name}")
        ct = complex_of(z.type)
        return tr.value(t.boolean, f"cudakit_{name}({tr.cast(z, ct)})")
    return emit


def _complex(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    """complex(re, im=0) and complex(z)."""
    real, imag = (args + [kw.get("real"), kw.get("imag")])[:2] if args else (
        kw.get("real"), kw.get("imag"))
    if real is None or not tr.is_number(real) or (imag is not None
                                                    and not tr.is_number(imag)):
        raise tr.typing_error("complex() takes one or two numbers in a kernel", node)
    if imag is None:
        return tr.value(t.complex128, tr.cast(real, t.complex128))
    if "c" in (real.type.kind, imag.type.kind):  # type: ignore[union-attr]
        ct = t.complex128
        return tr.value(ct, f"({tr.cast(real, ct)} + {tr.cast(imag, ct)} * "
                            "cudakit_c128(0.0, 1.0))")
    return tr.value(t.complex128, f"cudakit_c128({tr.cast(real, t.float64)}, "
                                  f"{tr.cast(imag, t.float64)})")


def _conjugate(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    (z,) = _number(tr, node, args, 1, "numpy.conjugate")
    return tr.value(z.type, f"cudakit_conj({z.code})") if z.type.kind == "c" else z  # type: ignore


def _with_complex(original: intrinsics.Handler, function: str | None,
                  name: str) -> intrinsics.Handler:
    """A math handler that also takes complex numbers (NumPy's functions)."""
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        if any(isinstance(a.type, t.Scalar) and a.type.kind == "c" for a in args):
            if function is None:
                raise tr.typing_error(f"{name}() does not take complex numbers in kernels "
                                      "(cmath has the complex functions)", node)
            (z,) = _number(tr, node, args, 1, name)
            return tr.value(z.type, f"{function}({z.code})")
        return original(tr, node, args, kw)
    return emit


def _with_half(original: intrinsics.Handler) -> intrinsics.Handler:
    """A math handler on float16: computed in float32, a float result
    rounded back to float16 (Numba's float16 math returns float16)."""
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        halves = [a.type for a in args if a.type in (t.float16, t.bfloat16)]
        if not halves or any(isinstance(a.type, t.ArrayT) for a in args):
            return original(tr, node, args, kw)
        widened = [Val(t.float32, f"(float)({a.code})") if a.type in halves else a
                   for a in args]
        result = original(tr, node, widened, kw)
        half = halves[0]  # (bfloat16 math returns bfloat16, as float16's does)
        if result.type == t.float32 and all(a.type == half or a.known for a in args):
            return tr.value(half, f"{half.ctype}({result.code})")
        return result
    return emit


def _abs(original: intrinsics.Handler) -> intrinsics.Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        if len(args) == 1 and isinstance(args[0].type, t.Scalar):
            if args[0].type.kind == "c":
                return tr.value(_real_of(args[0].type), f"cudakit_abs({args[0].code})")
            if args[0].type == t.float16:
                return tr.value(t.float16, f"ck_habs({args[0].code})")
        return original(tr, node, args, kw)
    return emit


# ---- cuda.fp16 ---------------------------------------------------------------------------

def _half_args(tr: "FunctionTranslator", node: ast.AST, args: list[Val], count: int,
               name: str) -> list[str]:
    if len(args) != count or not all(tr.is_number(a) for a in args):
        raise tr.typing_error(f"cuda.fp16.{name}() takes {count} float16 "
                              f"value{'s' if count > 1 else ''}", node)
    return [f"(float)({tr.cast(a, t.float16)})" for a in args]


def _fp16_binary(name: str, expression: str) -> intrinsics.Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        a, b = _half_args(tr, node, args, 2, name)
        return tr.value(t.float16, f"ck_half({expression.format(a=a, b=b)})")
    return emit


def _fp16_helper(name: str, count: int, result: t.Scalar) -> intrinsics.Handler:
    """cuda.fp16's functions that half_arithmetic's ck_<name> computes (with
    the GPU's f16 instruction)."""
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        _half_args(tr, node, args, count, name)
        halves = ", ".join(tr.cast(a, t.float16) for a in args)
        return tr.value(result, f"ck_{name}({halves})")
    return emit


def _fp16_unary(name: str, expression: str) -> intrinsics.Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        (a,) = _half_args(tr, node, args, 1, name)
        return tr.value(t.float16, f"ck_half({expression.format(a=a)})")
    return emit


_FP16_BINARY = {"hdiv": "{a} / {b}", "hmax": "fmaxf({a}, {b})", "hmin": "fminf({a}, {b})"}
# (arguments, result type) of those computed by half_arithmetic's helpers.
_FP16_HELPERS = {"hadd": (2, t.float16), "hsub": (2, t.float16), "hmul": (2, t.float16),
                 "hfma": (3, t.float16), "hneg": (1, t.float16), "habs": (1, t.float16),
                 **{name: (2, t.boolean) for name in ("heq", "hne", "hgt", "hge", "hlt", "hle")}}
_FP16_UNARY = {"hsin": "sinf({a})", "hcos": "cosf({a})",
               "hexp": "expf({a})", "hexp2": "exp2f({a})", "hexp10": "powf(10.0f, {a})",
               "hlog": "logf({a})", "hlog2": "log2f({a})", "hlog10": "log10f({a})",
               "hsqrt": "sqrtf({a})", "hrsqrt": "1.0f / sqrtf({a})", "hrcp": "1.0f / {a}",
               "hceil": "ceilf({a})", "hfloor": "floorf({a})", "htrunc": "truncf({a})",
               "hrint": "rintf({a})", "htanh": "tanhf({a})", "htanh_approx": "tanhf({a})"}


def register() -> None:
    for name, function in COMPLEX_FUNCTIONS.items():
        if hasattr(cmath, name):
            intrinsics._register_object(getattr(cmath, name), _complex_function(name, function))
    intrinsics._register_object(cmath.phase, _phase)
    intrinsics._register_object(cmath.polar, _polar)
    intrinsics._register_object(cmath.rect, _rect)
    for name in ("isnan", "isinf", "isfinite"):
        intrinsics._register_object(getattr(cmath, name), _classify(name))
    intrinsics._register_object(builtins.complex, _complex)
    intrinsics._register_object(np.conjugate, _conjugate)
    for obj, handler in list(intrinsics.OBJECT_HANDLERS.values()):
        if obj in (builtins.abs, np.abs):
            intrinsics._register_object(obj, _abs(handler))
            continue
        name = getattr(obj, "__name__", "")
        if isinstance(obj, np.ufunc) and name in (*COMPLEX_FUNCTIONS, *_NUMPY_NAMES):
            function = COMPLEX_FUNCTIONS[_NUMPY_NAMES.get(name, name)]
            handler = _with_complex(handler, function, f"numpy.{name}")
        elif getattr(obj, "__module__", None) == "math" or obj in vars(math).values():
            handler = _with_complex(handler, None, f"math.{name}")
        if isinstance(obj, np.ufunc) or obj in vars(math).values():
            intrinsics._register_object(obj, _with_half(handler))
    for name, expression in _FP16_BINARY.items():
        intrinsics.HANDLERS[f"fp16.{name}"] = _fp16_binary(name, expression)
    for name, (count, result) in _FP16_HELPERS.items():
        intrinsics.HANDLERS[f"fp16.{name}"] = _fp16_helper(name, count, result)
    for name, expression in _FP16_UNARY.items():
        intrinsics.HANDLERS[f"fp16.{name}"] = _fp16_unary(name, expression)
