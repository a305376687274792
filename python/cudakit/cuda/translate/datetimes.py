"""NumPy's datetime64 and timedelta64 in kernels, as Numba types them: a
64-bit count of the unit (datetime64[D], timedelta64[s] ...), NaT the
smallest int64. Subtraction, addition, comparison and the conversion of a
value to a finer unit follow NumPy (NaT in, NaT out; NaT compares unequal);
units of calendar length (years, months) mix only with each other."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import numpy as np

from . import types as t
from .program import HELPERS
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator

def is_datetime_kind(ty: object) -> bool:
    return isinstance(ty, t.Scalar) and ty.kind in "Mm"


def _unit(ty: t.Scalar) -> tuple[str, int]:
    return np.datetime_data(ty.dtype)


def _common(tr: "FunctionTranslator", a: t.Scalar, b: t.Scalar, node: ast.AST) -> str:
    """The unit two datetime-like values are compared or combined in."""
    try:
        unit, count = np.datetime_data(np.promote_types(
            np.dtype(f"m8[{_unit(a)[0]}]"), np.dtype(f"m8[{_unit(b)[0]}]")))
    except TypeError:
        raise tr.typing_error(f"cannot combine {a} and {b}: years and months have no fixed "
                              "length in the other units", node) from None
    return unit if count == 1 else f"{count}{unit}"


def _in_unit(tr: "FunctionTranslator", val: Val, unit: str) -> str:
    kind = "M" if val.type.kind == "M" else "m"  # type: ignore[union-attr]
    return tr.cast(val, t.from_dtype(np.dtype(f"{kind}8[{unit}]")))


def convert(tr: "FunctionTranslator", val: Val, ty: t.Scalar) -> str:
    """`val` (a datetime-like value or, for a timedelta, an integer) in `ty`."""
    source = val.type
    assert isinstance(source, t.Scalar)
    if source.kind in "iu" and ty.kind == "m":
        return f"(long long)({val.code})"
    if source.kind != ty.kind:
        raise tr.typing_error(f"cannot convert {val.describe()} to {ty}", tr.current)
    (unit, count), (to_unit, to_count) = _unit(source), _unit(ty)
    ratio = 1.0
    if unit != "generic" and (unit, count) != (to_unit, to_count):
        try:
            ratio = np.timedelta64(count, unit) / np.timedelta64(to_count, to_unit)
        except TypeError:  # years or months against a fixed-length unit
            ratio = 0.0
    if ratio < 1 or ratio != int(ratio):
        raise tr.typing_error(f"cannot convert {val.describe()} to {ty}: a kernel converts "
                              "datetimes only to an equal or finer unit", tr.current)
    if ratio == 1:
        return val.code
    tr.program.need_helper("datetime")
    return f"ck_dt_scale({val.code}, {int(ratio)}LL)"


def _as_timedelta(val: Val, other: t.Scalar) -> Val:
    """An integer beside a datetime-like value: a timedelta of its unit (NumPy's rule)."""
    unit, count = _unit(other)
    ty = t.from_dtype(np.dtype(f"m8[{count if count != 1 else ''}{unit}]"))
    return Val(ty, f"(long long)({val.code})")


def binary(tr: "FunctionTranslator", op: ast.operator, a: Val, b: Val, node: ast.AST) -> Val:
    """datetime - datetime, datetime +/- timedelta, timedelta +/- timedelta
    (an integer counting as a timedelta of the other's unit)."""
    if a.type.kind in "iu":  # type: ignore[union-attr]
        a = _as_timedelta(a, b.type)  # type: ignore[arg-type]
    if b.type.kind in "iu":  # type: ignore[union-attr]
        b = _as_timedelta(b, a.type)  # type: ignore[arg-type]
    kinds = a.type.kind + b.type.kind  # type: ignore[union-attr]
    allowed = {ast.Add: ("Mm", "mM", "mm"), ast.Sub: ("MM", "Mm", "mm")}.get(type(op), ())
    if kinds not in allowed:
        raise tr.typing_error(f"unsupported operand types for {type(op).__name__}: "
                              f"{a.describe()} and {b.describe()}", node)
    unit = _common(tr, a.type, b.type, node)  # type: ignore[arg-type]
    kind = "m" if kinds in ("MM", "mm") else "M"
    result = t.from_dtype(np.dtype(f"{kind}8[{unit}]"))
    tr.program.need_helper("datetime")
    helper = "ck_dt_add" if isinstance(op, ast.Add) else "ck_dt_sub"
    return tr.value(result, f"{helper}({_in_unit(tr, a, unit)}, {_in_unit(tr, b, unit)})")


_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
            ast.GtE: ">="}


def compare(tr: "FunctionTranslator", op: ast.cmpop, a: Val, b: Val, node: ast.AST) -> str:
    """A comparison of two datetimes or two timedeltas: false with NaT
    (true for !=), as NumPy's."""
    ka, kb = a.type.kind, b.type.kind  # type: ignore[union-attr]
    if ka != kb or type(op) not in _COMPARE:
        raise tr.typing_error(f"cannot compare {a.describe()} and {b.describe()}", node)
    unit = _common(tr, a.type, b.type, node)  # type: ignore[arg-type]
    x, y = _in_unit(tr, a, unit), _in_unit(tr, b, unit)
    tr.program.need_helper("datetime")
    if isinstance(op, ast.NotEq):
        return f"(ck_dt_nat({x}) || ck_dt_nat({y}) || {x} != {y})"
    return f"(!ck_dt_nat({x}) && !ck_dt_nat({y}) && {x} {_COMPARE[type(op)]} {y})"


HELPER = r"""// datetime64 / timedelta64: NaT (the smallest int64) in, NaT out.
__device__ __forceinline__ bool ck_dt_nat(long long a) { return a == (-9223372036854775807LL - 1); }
__device__ __forceinline__ long long ck_dt_add(long long a, long long b) {
  return ck_dt_nat(a) || ck_dt_nat(b) ? (-9223372036854775807LL - 1) : a + b;
}
__device__ __forceinline__ long long ck_dt_sub(long long a, long long b) {
  return ck_dt_nat(a) || ck_dt_nat(b) ? (-9223372036854775807LL - 1) : a - b;
}
__device__ __forceinline__ long long ck_dt_scale(long long a, long long factor) {
  return ck_dt_nat(a) ? a : a * factor;
}
"""
HELPERS["datetime"] = HELPER
