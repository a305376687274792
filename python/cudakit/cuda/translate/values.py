"""A translated expression: its kernel type and its C++ text, or the Python
object it names when it is only known at compile time (a module, a
function, a constant)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import types as t

NO_VALUE = object()


@dataclass
class StaticArray:
    """cuda.shared.array / cuda.local.array before it is bound to a name."""

    space: str
    dtype: t.Scalar
    shape: tuple[int, ...]
    alignment: int | None = None  # bytes (alignment=), else the element type's


@dataclass(frozen=True)
class ArrayCtypes:
    """`a.ctypes` of an array in a kernel: its `.data` is the address."""

    array: "Val"


@dataclass
class Val:
    type: t.Type | None  # None: a compile-time Python object (see py)
    code: str = ""
    py: Any = NO_VALUE  # the Python value when known at compile time
    items: list["Val"] | None = field(default=None)  # the elements of a tuple
    # Known never to be negative (thread indices, shapes, counters of
    # ascending ranges from 0): an array index needs no wraparound.
    nonneg: bool = False

    @property
    def known(self) -> bool:
        return self.py is not NO_VALUE

    @property
    def never_negative(self) -> bool:
        """No Python wraparound needed when this indexes an array."""
        if self.nonneg or (isinstance(self.type, t.Scalar) and self.type.kind in "ub"):
            return True
        return self.known and isinstance(self.py, (int, float, np.integer, np.floating)) \
            and self.py >= 0

    def describe(self) -> str:
        if self.type is None:
            return f"the Python object {self.py!r}"
        if self.known and isinstance(self.type, t.Scalar):
            return f"{self.type} {self.py!r}"
        return str(self.type)
