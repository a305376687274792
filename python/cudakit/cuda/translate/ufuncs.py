"""NumPy ufuncs in kernels, as Numba's CUDA target has them.

On numbers a ufunc is the operator or math function (np.add(x, y) is x + y
with Numba's result type). With an array among its inputs it runs over the
arrays in the calling thread: `np.add(x, y, out)`, `np.multiply(a, 2.0, out)`,
`np.sin(x, out=out)` write every element of `out` from the matching elements
of the inputs (an input's axis of extent 1 broadcasts, numbers broadcast).
Kernels cannot allocate arrays, so the out array is required.
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

Scalar = Callable[["FunctionTranslator", ast.AST, list[Val]], Val]


def _operator(op: ast.operator) -> Scalar:
    return lambda tr, node, args: tr.binary_op(op, args[0], args[1], node)


def _compare(symbol: str) -> Scalar:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val]) -> Val:
        a, b = args
        if not (isinstance(a.type, t.Scalar) and isinstance(b.type, t.Scalar)):
            raise tr.typing_error(f"cannot compare {a.describe()} and {b.describe()}", node)
        common = t.promote(a.type, b.type)
        x, y = tr.cast(a, common), tr.cast(b, common)
        if common.kind == "c" and symbol not in ("==", "!="):
            # NumPy orders complex numbers by real part, then imaginary part.
            tr.program.need_helper("numpy_min_max")
            if symbol in (">", ">="):
                x, y = y, x
            helper = "ck_clt" if symbol in ("<", ">") else "ck_cle"
            return tr.value(t.boolean, f"{helper}({x}, {y})")
        return tr.value(t.boolean, f"({x} {symbol} {y})")
    return emit


def _logical(symbol: str) -> Scalar:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val]) -> Val:
        parts = [tr.truth(a, node) for a in args]
        if symbol == "!":
            return tr.value(t.boolean, f"(!{parts[0]})")
        return tr.value(t.boolean, "(" + f" {symbol} ".join(parts) + ")")
    return emit


def _negative(tr: "FunctionTranslator", node: ast.AST, args: list[Val]) -> Val:
    (value,) = args
    if not isinstance(value.type, t.Scalar) or value.type.kind == "b":
        raise tr.typing_error(f"numpy.negative takes a number (not a boolean), got "
                              f"{value.describe()}", node)
    if value.type == t.float16:
        return tr.value(t.float16, f"ck_half(-(float)({value.code}))")
    if value.type.kind in "iu":  # in its own type, wrapping around (NumPy's loop)
        tr.program.need_helper("wrap_int")
        return tr.value(value.type, f"ck_neg<{value.type.ctype}>({value.code})")
    return tr.value(value.type, f"(-{value.code})")


def _square(tr: "FunctionTranslator", node: ast.AST, args: list[Val]) -> Val:
    return tr.binary_op(ast.Mult(), args[0], args[0], node)


def _invert(tr: "FunctionTranslator", node: ast.AST, args: list[Val]) -> Val:
    value = args[0]
    if value.type == t.boolean:
        return tr.value(t.boolean, f"(!{value.code})")
    if not (isinstance(value.type, t.Scalar) and value.type.kind in "iu"):
        raise tr.typing_error(f"numpy.invert takes integers or booleans, got "
                              f"{value.describe()}", node)
    return tr.value(value.type, f"(({value.type.ctype})~{value.code})")


# The ufuncs that are operators; the math ones are intrinsics' handlers.
_SCALAR: dict[np.ufunc, Scalar] = {
    np.add: _operator(ast.Add()), np.subtract: _operator(ast.Sub()),
    np.multiply: _operator(ast.Mult()), np.true_divide: _operator(ast.Div()),
    np.floor_divide: _operator(ast.FloorDiv()), np.remainder: _operator(ast.Mod()),
    np.power: _operator(ast.Pow()), np.bitwise_and: _operator(ast.BitAnd()),
    np.bitwise_or: _operator(ast.BitOr()), np.bitwise_xor: _operator(ast.BitXor()),
    np.left_shift: _operator(ast.LShift()), np.right_shift: _operator(ast.RShift()),
    np.greater: _compare(">"), np.greater_equal: _compare(">="), np.less: _compare("<"),
    np.less_equal: _compare("<="), np.equal: _compare("=="), np.not_equal: _compare("!="),
    np.logical_and: _logical("&&"), np.logical_or: _logical("||"),
    np.logical_not: _logical("!"), np.logical_xor: _logical("!="), np.negative: _negative,
    np.square: _square,
    np.invert: _invert,
}


def _resolved(tr: "FunctionTranslator", ufunc: np.ufunc, args: list[Val], result: Val) -> Val:
    """`result` in the type of NumPy's loop for the inputs, as Numba types a
    ufunc call (np.add of two int32 is int32, where `a + b` is int64)."""
    if not isinstance(result.type, t.Scalar) or not all(isinstance(a.type, t.Scalar)
                                                        for a in args):
        return result
    try:
        loop = ufunc.resolve_dtypes(tuple(a.type.dtype for a in args)  # type: ignore
                                    + (None,) * ufunc.nout)
        wanted = t.from_dtype(loop[ufunc.nin])
    except Exception:  # noqa: BLE001 (no loop for these types: keep the operator's type)
        return result
    if wanted == result.type or (result.type.kind == "c") != (wanted.kind == "c"):
        return result
    return tr.value(wanted, tr.cast(result, wanted))


def _scalar_of_handler(handler: intrinsics.Handler) -> Scalar:
    return lambda tr, node, args: handler(tr, node, args, {})


def _element(tr: "FunctionTranslator", val: Val, out: Val, counters: list[str],
             node: ast.AST) -> Val:
    """The element of input `val` that goes with out[counters]: numbers as
    they are, arrays aligned on their last axes, an axis of 1 broadcast."""
    at = val.type
    if not isinstance(at, t.ArrayT):
        return val
    ot = out.type
    assert isinstance(ot, t.ArrayT)
    skip = ot.ndim - at.ndim
    items = []
    for d in range(at.ndim):
        counter = counters[skip + d]
        extent = tr.extent(val, d)
        if at.static_shape is not None:
            code = counter if at.static_shape[d] != 1 else "0LL"
        else:
            code = f"({extent} == 1 ? 0LL : {counter})"
        items.append(Val(t.int64, code, nonneg=True))
    index = tr.tuple_value(items) if len(items) != 1 else items[0]
    return tr.value(at.dtype, tr.element_ref(val, index, node))


def _over_arrays(tr: "FunctionTranslator", node: ast.AST, ufunc: np.ufunc, scalar: Scalar,
                 args: list[Val], kw: dict[str, Val]) -> Val:
    name, nin = ufunc.__name__, ufunc.nin
    inputs, rest = args[:nin], args[nin:]
    out = rest[0] if rest else kw.get("out")
    if out is not None and out.items is not None and len(out.items) == 1:
        out = out.items[0]  # out=(array,)
    if len(inputs) != nin or len(rest) > 1 or set(kw) - {"out"}:
        raise tr.typing_error(f"numpy.{name} takes {nin} input{'s' if nin > 1 else ''} and an "
                              f"out array in a kernel: np.{name}(..., out)", node)
    if out is None:
        raise tr.unsupported(f"numpy.{name} on arrays in a kernel needs the out array (kernels "
                             f"cannot allocate one): np.{name}(..., out)", node)
    ot = out.type
    if not isinstance(ot, t.ArrayT) or ot.space == "const":
        raise tr.typing_error(f"numpy.{name}'s out must be a writable array, got "
                              f"{out.describe()}", node)
    for val in inputs:
        if isinstance(val.type, t.ArrayT):
            if val.type.ndim > ot.ndim:
                raise tr.typing_error(f"numpy.{name}: an input of {val.type.ndim} dimensions "
                                      f"does not fit the {ot.ndim}-d out array", node)
        elif not isinstance(val.type, t.Scalar):
            raise tr.typing_error(f"numpy.{name} takes arrays and numbers, got "
                                  f"{val.describe()}", node)
    counters = [tr.fresh("u") for _ in range(ot.ndim)]
    for d, counter in enumerate(counters):
        tr.emit("  " * d + f"for (long long {counter} = 0; {counter} < {tr.extent(out, d)}; "
                f"++{counter}) {{")
    elements = [_element(tr, v, out, counters, node) for v in inputs]
    result = _resolved(tr, ufunc, elements, scalar(tr, node, elements))
    if not isinstance(result.type, t.Scalar):
        raise tr.typing_error(f"numpy.{name} of {', '.join(v.describe() for v in inputs)}",
                              node)
    index = [Val(t.int64, c, nonneg=True) for c in counters]
    target = tr.element_ref(out, tr.tuple_value(index) if len(index) != 1 else index[0], node)
    tr.emit("  " * ot.ndim + f"{target} = {tr.cast(result, ot.dtype)};")
    for d in reversed(range(ot.ndim)):
        tr.emit("  " * d + "}")
    return Val(ot, out.code)


def _ufunc_handler(ufunc: np.ufunc, scalar: Scalar) -> intrinsics.Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val],
             kw: dict[str, Val]) -> Val:
        out = args[ufunc.nin] if len(args) > ufunc.nin else kw.get("out")
        if out is not None and out.items is not None and len(out.items) == 1:
            out = out.items[0]
        if any(isinstance(a.type, t.ArrayT) for a in args[:ufunc.nin]) or (
                out is not None and isinstance(out.type, t.ArrayT)):
            # Arrays, or numbers into an out array (broadcast to all of it).
            return _over_arrays(tr, node, ufunc, scalar, args, kw)
        if len(args) != ufunc.nin or kw:
            if "out" in kw or len(args) > ufunc.nin:
                raise tr.unsupported(f"numpy.{ufunc.__name__} with an out argument on "
                                     "numbers (out= goes with array inputs)", node)
            raise tr.typing_error(f"numpy.{ufunc.__name__} takes {ufunc.nin} "
                                  f"argument{'s' if ufunc.nin > 1 else ''}", node)
        return _resolved(tr, ufunc, args, scalar(tr, node, args))
    return emit


def register() -> None:
    """Every NumPy ufunc kernels know, on numbers and on arrays."""
    known: dict[np.ufunc, Scalar] = dict(_SCALAR)
    for obj, handler in list(intrinsics.OBJECT_HANDLERS.values()):
        if isinstance(obj, np.ufunc) and obj not in known:
            known[obj] = _scalar_of_handler(handler)
    for ufunc, scalar in known.items():
        intrinsics._register_object(ufunc, _ufunc_handler(ufunc, scalar))
