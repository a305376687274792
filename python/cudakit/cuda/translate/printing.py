"""print() in kernels: printf with Python's spelling of numbers, booleans,
strings and tuples (cuda.threadIdx & co. as (x, y, z))."""

from __future__ import annotations

import ast
import warnings
from typing import TYPE_CHECKING

from . import intrinsics
from . import types as t
from .values import Val

if TYPE_CHECKING:
    from .codegen import FunctionTranslator

_PRINTF_MOST_ITEMS = 32  # printf's arguments a CUDA kernel may pass
_PRINTF = {"b": "%s", "i": "%lld", "u": "%llu", "f": "%f", "c": "%f"}


class PrintMixin:
    def print_piece(self: "FunctionTranslator", val: Val, args: list[str], node: ast.AST,
                    top: bool = False) -> str:
        """printf's format of one printed value (its arguments appended to
        `args`): numbers, strings, tuples of them as Python writes them
        ("(1, 2)", "(1,)"), and cuda.threadIdx & co. as (x, y, z)."""
        if isinstance(val.type, t.StringT) or (val.known and isinstance(val.py, str)):
            text = str(val.py).replace("%", "%%")
            return text if top else "'" + text + "'"
        if isinstance(val.type, t.Scalar):
            kind = val.type.kind
            if kind == "c":  # Python's (re+imj)
                args.extend([f"(double)({val.code}).re", f"(double)({val.code}).im"])
                return "(%f%+fj)"
            if kind == "b":
                args.append(f'({val.code} ? "True" : "False")')
            elif kind == "f":
                args.append(self.cast(val, t.float64))
            else:
                args.append(self.cast(val, t.int64 if kind == "i" else t.uint64))
            return _PRINTF[kind]
        items = val.items
        if items is None and isinstance(val.py, intrinsics.Intrinsic) and \
                val.py.intrinsic_name in ("threadIdx", "blockIdx", "blockDim", "gridDim"):
            items = [self.value(t.int64, f"(long long){val.py.intrinsic_name}.{axis}")
                     for axis in "xyz"]
        if items is not None:
            parts = [self.print_piece(item, args, node) for item in items]
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        raise self.unsupported(f"printing {val.describe()} (print numbers, strings and "
                               "tuples of them)", node)

    def print_call(self: "FunctionTranslator", node: ast.Call) -> Val:
        fmt: list[str] = []
        args: list[str] = []
        sep = " "
        for k in node.keywords:
            if k.arg == "sep" and isinstance(k.value, ast.Constant):
                sep = str(k.value.value)
            elif k.arg == "end" and isinstance(k.value, ast.Constant):
                pass
            else:
                raise self.unsupported(f"print(..., {k.arg}=...) in kernels", node)
        for a_node in node.args:
            fmt.append(self.print_piece(self.expr(a_node), args, a_node, top=True))
        end = "\n"
        for k in node.keywords:
            if k.arg == "end":
                end = str(k.value.value)  # type: ignore[attr-defined]
        text = sep.join(fmt) + end
        if len(args) > _PRINTF_MOST_ITEMS:
            # CUDA's printf formats 32 items at most: the format string as it
            # is (on every backend, as Numba's), and a warning.
            from ..disk_cache import NumbaWarning
            warnings.warn(NumbaWarning(
                f"CUDA print() cannot print more than {_PRINTF_MOST_ITEMS} items. The raw format "
                f"string will be emitted by the kernel instead. (This print has {len(args)}: "
                "split it into several prints.)"), stacklevel=2)
            text, args = text.replace("%%", "%"), []
            text = text.replace("%", "%%")
        literal = (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
                   .replace("\t", "\\t"))
        self.program.uses_print = True
        return self.value(t.none, f'printf("{literal}"{"".join(", " + a for a in args)})')
