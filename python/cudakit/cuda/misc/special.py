"""`numba.cuda.misc.special`: `literal_unroll(tup)`, a loop over a tuple
whose items differ in type (`for a in literal_unroll((x, y, 2.0)):`): the
kernel runs the loop body once per item, each with that item's type. On the
host it returns its argument."""

from __future__ import annotations

from typing import Any


def literal_unroll(container: Any) -> Any:
    """In a kernel's `for` loop: the tuple's items one by one, unrolled."""
    return container


__all__ = ["literal_unroll"]
