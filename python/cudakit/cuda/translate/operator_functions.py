"""The `operator` module's functions called in kernels (`op = operator.add;
op(x, y)`): each is the operator it names, translated as the expression
`x + y` would be."""

from __future__ import annotations

import ast
import operator
from typing import TYPE_CHECKING, Callable

from . import intrinsics

if TYPE_CHECKING:
    from .codegen import FunctionTranslator, Val

_BINARY: dict[str, type[ast.operator]] = {
    "add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "truediv": ast.Div,
    "floordiv": ast.FloorDiv, "mod": ast.Mod, "pow": ast.Pow, "lshift": ast.LShift,
    "rshift": ast.RShift, "and_": ast.BitAnd, "or_": ast.BitOr, "xor": ast.BitXor}
_COMPARE: dict[str, type[ast.cmpop]] = {
    "eq": ast.Eq, "ne": ast.NotEq, "lt": ast.Lt, "le": ast.LtE, "gt": ast.Gt, "ge": ast.GtE}
_UNARY: dict[str, type[ast.unaryop]] = {
    "neg": ast.USub, "pos": ast.UAdd, "invert": ast.Invert, "inv": ast.Invert, "not_": ast.Not}


def _as_expression(arity: int, build: Callable[..., ast.expr], name: str) -> intrinsics.Handler:
    def emit(tr: "FunctionTranslator", node: ast.AST, args: list["Val"], kw: dict) -> "Val":
        if kw or len(args) != arity:
            raise tr.typing_error(f"operator.{name}() takes {arity} argument"
                                  f"{'s' if arity != 1 else ''}", node)
        # The operands, already translated, are bound to names only this
        # expression uses.
        names = [f"ck_operand_{i}" for i in range(arity)]
        saved = {n: tr.aliases.get(n) for n in names}
        for n, value in zip(names, args):
            tr.aliases[n] = value
        try:
            expression = build(*[ast.Name(n, ast.Load()) for n in names])
            ast.copy_location(expression, node)
            ast.fix_missing_locations(expression)
            return tr.expr(expression)
        finally:
            for n, value in saved.items():
                if value is None:
                    tr.aliases.pop(n, None)
                else:
                    tr.aliases[n] = value
    return emit


def register() -> None:
    for name, op in _BINARY.items():
        build = (lambda a, b, op=op: ast.BinOp(a, op(), b))
        intrinsics._register_object(getattr(operator, name), _as_expression(2, build, name))
        in_place = "i" + name.rstrip("_")
        if hasattr(operator, in_place):  # on numbers, x += y is x = x + y
            intrinsics._register_object(getattr(operator, in_place),
                                        _as_expression(2, build, in_place))
    for name, cmp in _COMPARE.items():
        build = (lambda a, b, cmp=cmp: ast.Compare(a, [cmp()], [b]))
        intrinsics._register_object(getattr(operator, name), _as_expression(2, build, name))
    for name, unary in _UNARY.items():
        build = (lambda a, unary=unary: ast.UnaryOp(unary(), a))
        intrinsics._register_object(getattr(operator, name), _as_expression(1, build, name))
    intrinsics._register_object(operator.abs, intrinsics.object_handler(abs))  # type: ignore
