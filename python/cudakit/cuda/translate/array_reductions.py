"""NumPy's whole-array reductions in kernels, as Numba has them: np.sum,
np.prod, np.min, np.max, np.mean, np.var, np.std, np.all, np.any,
np.count_nonzero and the nan* forms, of an array of any number of
dimensions (no axis argument). The calling thread loops over every element
(in the array's index order, so a sum adds in the order NumPy's does for
short arrays); the result is a number of NumPy's type for it.

An empty array gives the reduction's identity (0 for a sum, 1 for a
product); min and max of an empty array have none and give 0, where NumPy
raises.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable

import numpy as np

from . import intrinsics
from . import types as t
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator


def _sum_type(dtype: t.Scalar) -> t.Scalar:
    if dtype.kind in "b":
        return t.int64
    if dtype.kind == "i":
        return t.int64
    if dtype.kind == "u":
        return t.uint64
    return dtype


def _mean_type(dtype: t.Scalar) -> t.Scalar:
    return dtype if dtype.kind in "fc" and dtype != t.float16 else t.float64


def _loop(tr: "FunctionTranslator", array: Val, node: ast.AST,
          body: Callable[[str], list[str]]) -> None:
    """Emits a loop over every element of `array`; body(element) gives the
    statements run for each."""
    at = array.type
    assert isinstance(at, t.ArrayT)
    counters = [tr.fresh("r") for _ in range(at.ndim)]
    for d, counter in enumerate(counters):
        tr.emit("  " * d + f"for (long long {counter} = 0; {counter} < {tr.extent(array, d)}; "
                f"++{counter}) {{")
    index = [Val(t.int64, c, nonneg=True) for c in counters]
    if at.ndim == 0:  # one element (a 0-d constant is a C array of one)
        element = f"{array.code}[0]" if at.static_shape is not None else f"{array.code}.data[0]"
    else:
        element = tr.element_ref(array, tr.tuple_value(index) if len(index) != 1 else index[0],
                                 node)
    held = tr.fresh("x")
    tr.emit("  " * at.ndim + f"const {at.dtype.ctype} {held} = {element};")
    for line in body(held):
        tr.emit("  " * at.ndim + line)
    for d in reversed(range(at.ndim)):
        tr.emit("  " * d + "}")


def _is_nan(dtype: t.Scalar, x: str) -> str:
    if dtype.kind == "f":
        return f"({x} != {x})"
    if dtype.kind == "c":
        return f"(({x}).re != ({x}).re || ({x}).im != ({x}).im)"
    return "false"


def _reduction(name: str) -> intrinsics.Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        if len(args) != 1 or kw or not isinstance(args[0].type, t.ArrayT):
            raise tr.typing_error(f"numpy.{name}() in a kernel takes one array (the whole "
                                  f"array is reduced; no axis), got "
                                  f"{', '.join(a.describe() for a in args) or 'nothing'}",
                                  node)
        array = args[0]
        dtype = array.type.dtype  # type: ignore[union-attr]
        if not isinstance(dtype, t.Scalar) or dtype == t.float16:
            raise tr.unsupported(f"numpy.{name}() of an array of {dtype} in a kernel", node)
        if dtype.kind == "c" and name in ("min", "max", "nanmin", "nanmax", "amin", "amax"):
            raise tr.typing_error(f"numpy.{name}() of complex numbers (they are not ordered)",
                                  node)
        acc = tr.fresh("acc")
        nan_skip = name.startswith("nan") and dtype.kind in "fc"
        skip = f"if ({_is_nan(dtype, '@X@')}) continue;" if nan_skip else ""

        def guarded(lines: list[str]) -> Callable[[str], list[str]]:
            return lambda x: ([skip.replace("@X@", x)] if skip else []) + \
                [line.replace("@X@", x) for line in lines]

        if name in ("all", "any"):
            tr.emit(f"bool {acc} = {'true' if name == 'all' else 'false'};")
            truth = "cudakit_truth(@X@)" if dtype.kind == "c" else "(@X@ != 0)"
            op = f"if (!{truth}) {acc} = false;" if name == "all" else \
                f"if ({truth}) {acc} = true;"
            _loop(tr, array, node, guarded([op]))
            return tr.value(t.boolean, acc)
        if name == "count_nonzero":
            tr.emit(f"long long {acc} = 0;")
            truth = "cudakit_truth(@X@)" if dtype.kind == "c" else "(@X@ != 0)"
            _loop(tr, array, node, guarded([f"if ({truth}) ++{acc};"]))
            return tr.value(t.int64, acc)
        if name in ("sum", "nansum", "prod", "nanprod"):
            result = _sum_type(dtype)
            product = "prod" in name
            identity = 1 if product else 0
            tr.emit(f"{result.ctype} {acc} = "
                    f"{tr.cast(Val(t.int64, str(identity), identity), result)};")
            element = tr.cast(Val(dtype, "@X@"), result)
            _loop(tr, array, node, guarded([f"{acc} = {acc} {'*' if product else '+'} "
                                            f"{element};"]))
            return tr.value(result, acc)
        if name in ("min", "max", "amin", "amax", "nanmin", "nanmax"):
            less = "<" if name.endswith("min") else ">"
            seen = tr.fresh("seen")
            tr.emit(f"{dtype.ctype} {acc} = 0;")
            tr.emit(f"bool {seen} = false;")
            # A NaN sticks (NumPy's min/max propagate it); nan* skip NaNs and
            # give NaN only when every element is one.
            if dtype.kind == "f" and not name.startswith("nan"):
                # A NaN sticks, as NumPy's min and max propagate it.
                update = (f"if (!{seen}) {{ {acc} = @X@; {seen} = true; }} else if "
                          f"({acc} == {acc} && (@X@ != @X@ || @X@ {less} {acc})) {acc} = @X@;")
            else:  # integers, and nan* (NaNs skipped above)
                update = f"if (!{seen} || @X@ {less} {acc}) {{ {acc} = @X@; {seen} = true; }}"
            _loop(tr, array, node, guarded([update]))
            if name.startswith("nan") and dtype.kind == "f":
                nan = ("__int_as_float(0x7fc00000)" if dtype == t.float32
                       else "__longlong_as_double(0x7ff8000000000000LL)")
                tr.emit(f"if (!{seen}) {acc} = {nan};  // every element was NaN")
            return tr.value(dtype, acc)
        # mean, nanmean, var, nanvar, std, nanstd
        result = _mean_type(dtype)
        count = tr.fresh("n")
        total = tr.fresh("total")
        tr.emit(f"{result.ctype} {total} = {tr.cast(Val(t.int64, '0', 0), result)};")
        tr.emit(f"long long {count} = 0;")
        element = tr.cast(Val(dtype, "@X@"), result)
        _loop(tr, array, node, guarded([f"{total} = {total} + {element};", f"++{count};"]))
        mean = tr.fresh("mean")
        tr.emit(f"const {result.ctype} {mean} = {total} / "
                f"{tr.cast(Val(t.int64, count), result)};")
        if name in ("mean", "nanmean"):
            return tr.value(result, mean)
        real = t.float32 if result == t.complex64 else (t.float64 if result.kind == "c"
                                                         else result)
        squares = tr.fresh("squares")
        tr.emit(f"{real.ctype} {squares} = 0;")
        if result.kind == "c":
            deviation = f"cudakit_abs({element} - {mean})"
            square = f"{deviation} * {deviation}"
        else:
            square = f"({element} - {mean}) * ({element} - {mean})"
        _loop(tr, array, node, guarded([f"{squares} = {squares} + {square};"]))
        variance = f"({squares} / ({real.ctype}){count})"
        if name in ("var", "nanvar"):
            return tr.value(real, variance)
        return tr.value(real, f"sqrt{'f' if real == t.float32 else ''}({variance})")
    return emit


NAMES = ("all", "any", "count_nonzero", "sum", "nansum", "prod", "nanprod", "min", "max",
         "amin", "amax", "nanmin", "nanmax", "mean", "nanmean", "var", "nanvar", "std",
         "nanstd")


def register() -> None:
    for name in NAMES:
        function = getattr(np, name, None)
        if function is not None and not isinstance(function, np.ufunc):
            intrinsics._register_object(function, _reduction(name))
