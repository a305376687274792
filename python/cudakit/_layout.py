"""The memory order of an array (numpy's or a GPUArray / device array)."""

from __future__ import annotations

from typing import Any


def memory_order(array: Any) -> str:
    """"F" for an array laid out in Fortran order only, else "C" (a C-ordered,
    a 1-d or a non-contiguous one, or an object without NumPy's flags)."""
    flags = getattr(array, "flags", None)
    return "F" if flags is not None and flags.f_contiguous and not flags.c_contiguous else "C"
