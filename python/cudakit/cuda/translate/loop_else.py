"""`for ... else` and `while ... else` in kernels: the else block runs when
the loop ends without a `break`.

Each loop pushes an entry on the translator's loop_break_flags while its
body is emitted: the name of a bool that its `break`s set when it has an
else block, None when it has none (a `break` of a loop nested in it belongs
to that loop). After the loop, `if (!flag)` runs the else block.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .codegen import FunctionTranslator


def loop(tr: "FunctionTranslator", node: ast.For | ast.While,
         emit_loop: Callable[[ast.For | ast.While], None]) -> None:
    """Emits the loop (emit_loop), then its else block if it has one."""
    flag = tr.fresh("broke") if node.orelse else None
    if flag is not None:
        tr.emit(f"bool {flag} = false;")
    tr.loop_break_flags.append(flag)
    try:
        emit_loop(node)
    finally:
        tr.loop_break_flags.pop()
    if flag is not None:
        tr.emit(f"if (!{flag}) {{")
        tr.block(node.orelse)
        tr.emit("}")


def emit_break(tr: "FunctionTranslator") -> None:
    flag = tr.loop_break_flags[-1] if tr.loop_break_flags else None
    tr.emit("break;" if flag is None else f"{{ {flag} = true; break; }}")
