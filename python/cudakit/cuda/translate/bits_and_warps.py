"""numba.cuda's bit, selection and warp-match intrinsics in kernels:
cuda.popc / brev / clz / ffs, cuda.fma / cbrt / selp, cuda.nanosleep,
cuda.eq_sync, cuda.match_any_sync and cuda.match_all_sync, with the
argument and result types numba.cuda's typing gives them (cudadecl.py).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from . import intrinsics
from . import types as t
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator

_INTEGERS = (t.int8, t.int16, t.int32, t.int64, t.uint8, t.uint16, t.uint32, t.uint64)
_INTEGER_NAMES = "int8, int16, int32, int64, uint8, uint16, uint32 or uint64"


def _one_of(tr: "FunctionTranslator", node: ast.AST, args: list[Val], name: str,
            allowed: tuple[t.Scalar, ...], allowed_text: str) -> Val:
    if len(args) != 1:
        raise tr.typing_error(f"cuda.{name}(x) takes one argument ({allowed_text}), got "
                              f"{len(args)}", node)
    (x,) = args
    if x.type not in allowed:
        raise tr.typing_error(f"cuda.{name}(x) takes {allowed_text}, got {x.describe()}",
                              node)
    return x


def _popc(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    # Numba: the result has the argument's type.
    x = _one_of(tr, node, args, "popc", _INTEGERS, _INTEGER_NAMES)
    assert isinstance(x.type, t.Scalar)
    if x.type.bits == 64:
        return tr.value(x.type, f"({x.type.ctype})__popcll((unsigned long long)({x.code}))")
    mask = (1 << x.type.bits) - 1
    return tr.value(x.type, f"({x.type.ctype})__popc((unsigned)({x.code}) & {mask}u)")


def _clz(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    # Leading zeros counted in the argument's own width, the result in its type.
    x = _one_of(tr, node, args, "clz", _INTEGERS, _INTEGER_NAMES)
    assert isinstance(x.type, t.Scalar)
    if x.type.bits == 64:
        return tr.value(x.type, f"({x.type.ctype})__clzll((long long)({x.code}))")
    mask, extra = (1 << x.type.bits) - 1, 32 - x.type.bits
    return tr.value(x.type, f"({x.type.ctype})(__clz((int)((unsigned)({x.code}) & {mask}u))"
                            f" - {extra})")


def _ffs(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    # 1 + the index of the lowest set bit, 0 for 0; uint32 whatever the argument.
    x = _one_of(tr, node, args, "ffs", _INTEGERS, _INTEGER_NAMES)
    assert isinstance(x.type, t.Scalar)
    if x.type.bits == 64:
        return tr.value(t.uint32, f"(unsigned)__ffsll((long long)({x.code}))")
    mask = (1 << x.type.bits) - 1
    return tr.value(t.uint32, f"(unsigned)__ffs((int)((unsigned)({x.code}) & {mask}u))")


def _brev(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    x = _one_of(tr, node, args, "brev", (t.uint32, t.uint64), "uint32 or uint64")
    return tr.value(x.type, f"__brevll({x.code})" if x.type == t.uint64 else  # type: ignore
                    f"__brev({x.code})")


def _float_args(tr: "FunctionTranslator", node: ast.AST, args: list[Val], name: str,
                count: int) -> t.Scalar:
    params = ", ".join("abc"[:count])
    if len(args) != count:
        raise tr.typing_error(f"cuda.{name}({params}) takes {count} argument"
                              f"{'s' if count > 1 else ''} of one float type (float32 or "
                              f"float64), got {len(args)}", node)
    kinds = {a.type for a in args}
    if len(kinds) != 1 or not kinds <= {t.float32, t.float64}:
        got = ", ".join(a.describe() for a in args)
        raise tr.typing_error(f"cuda.{name}({params}) takes {count} argument"
                              f"{'s' if count > 1 else ''} of one float type (float32 or "
                              f"float64), got {got}", node)
    return args[0].type  # type: ignore[return-value]


def _fma(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    ft = _float_args(tr, node, args, "fma", 3)
    function = "fmaf" if ft == t.float32 else "fma"
    return tr.value(ft, f"{function}({', '.join(a.code for a in args)})")


def _cbrt(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    ft = _float_args(tr, node, args, "cbrt", 1)
    return tr.value(ft, f"{'cbrtf' if ft == t.float32 else 'cbrt'}({args[0].code})")


_SELP_TYPES = (t.float64, t.float32, t.int16, t.uint16, t.int32, t.uint32, t.int64, t.uint64)


def _selp(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    if len(args) != 3:
        raise tr.typing_error(f"cuda.selp(test, a, b) takes three arguments, got {len(args)}",
                              node)
    test, a, b = args
    if a.type != b.type or a.type not in _SELP_TYPES:
        raise tr.typing_error("cuda.selp(test, a, b) takes a and b of one type (float32, "
                              "float64, int16, int32, int64, uint16, uint32 or uint64), got "
                              f"{a.describe()} and {b.describe()}", node)
    tr.program.need_helper("selp")
    return tr.value(a.type, f"ck_selp({tr.truth(test, node)}, {a.code}, {b.code})")  # type: ignore


def _nanosleep(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    if len(args) != 1 or not (isinstance(args[0].type, t.Scalar)
                              and args[0].type.kind in "iu"):
        got = ", ".join(a.describe() for a in args) or "nothing"
        raise tr.typing_error(f"cuda.nanosleep(ns) takes one integer (uint32 nanoseconds), "
                              f"got {got}", node)
    return tr.value(t.none, f"__nanosleep({tr.cast(args[0], t.uint32)})")


def _eq_sync(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
    _check_mask(tr, node, args, "eq_sync", "predicate")
    tr.program.need_helper("match_sync")
    return tr.value(t.boolean, f"ck_eq_sync({tr.cast(args[0], t.uint32)}, "
                               f"{tr.truth(args[1], node)})")


def _check_mask(tr: "FunctionTranslator", node: ast.AST, args: list[Val], name: str,
                second: str) -> None:
    if len(args) != 2:
        raise tr.typing_error(f"cuda.{name}(mask, {second}) takes two arguments, got "
                              f"{len(args)}", node)
    mask = args[0]
    if not (isinstance(mask.type, t.Scalar) and mask.type.kind in "iu"):
        raise tr.typing_error(f"cuda.{name}: the mask must be an integer, got "
                              f"{mask.describe()}", node)
    if second == "predicate" and not (isinstance(args[1].type, t.Scalar)
                                      and args[1].type.kind in "iub"):
        raise tr.typing_error(f"cuda.{name}: the predicate must be an integer or boolean, "
                              f"got {args[1].describe()}", node)


_MATCH_TYPES = (t.int32, t.int64, t.float32, t.float64)


def _match(which: str) -> intrinsics.Handler:
    name = f"match_{which}_sync"

    def emit(tr: "FunctionTranslator", node: ast.AST, args: list[Val], kw: dict) -> Val:
        _check_mask(tr, node, args, name, "value")
        value = args[1]
        if value.type not in _MATCH_TYPES:
            raise tr.typing_error(f"cuda.{name}(mask, value) takes an int32, int64, float32 "
                                  f"or float64 value, got {value.describe()}", node)
        tr.program.need_helper("match_sync")
        call = f"ck_match_{which}({tr.cast(args[0], t.uint32)}, {value.code}"
        if which == "any":
            return tr.value(t.int32, f"(int){call})")
        # (mask, pred): a temporary holds the predicate the call sets.
        predicate, matched = tr.fresh("pred"), tr.fresh("match")
        tr.emit(f"int {predicate} = 0;")
        tr.emit(f"const int {matched} = (int){call}, &{predicate});")
        return tr.tuple_value([tr.value(t.int32, matched),
                               tr.value(t.boolean, f"({predicate} != 0)")])
    return emit


def register() -> None:
    handlers = intrinsics.HANDLERS
    handlers["popc"] = _popc
    handlers["clz"] = _clz
    handlers["ffs"] = _ffs
    handlers["brev"] = _brev
    handlers["fma"] = _fma
    handlers["cbrt"] = _cbrt
    handlers["selp"] = _selp
    handlers["nanosleep"] = _nanosleep
    handlers["eq_sync"] = _eq_sync
    handlers["match_any_sync"] = _match("any")
    handlers["match_all_sync"] = _match("all")
