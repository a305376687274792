"""`numba.cuda.typing.typeof`: the kernel type of a Python value, as a
kernel argument gets it (arrays by dtype, dimensions and layout)."""

from __future__ import annotations

import enum
from typing import Any

from ..translate import types as t


class Purpose(enum.Enum):
    """Why a value is typed (Numba's: as an argument or as a constant); the
    same type either way here."""

    argument = 1
    constant = 2


def typeof(value: Any, purpose: Purpose = Purpose.argument) -> t.Type:
    """The type of `value` in a kernel: int64 for a Python int, float64 for
    a float, NumPy scalars by dtype, array(float32, 2d, C) for arrays (NumPy,
    device arrays, anything with __cuda_array_interface__), tuples item by
    item. A ValueError names a value kernels do not take."""
    from ..device_array import DeviceNDArray
    if isinstance(value, DeviceNDArray):
        return value._type
    hint = getattr(value, "_numba_type_", None)  # cuda.In(array) and similar wrappers
    if isinstance(hint, t.Type):
        return hint
    try:
        ty = t.typeof_value(value)
    except TypeError as error:
        raise ValueError(f"cannot determine the kernel type of {type(value).__name__} "
                         f"{value!r:.60}: {error}") from None
    if ty is None:
        raise ValueError(f"cannot determine the kernel type of {type(value).__name__} "
                         f"{value!r:.60} (numbers, arrays and tuples of them have one)")
    return ty


__all__ = ["Purpose", "typeof"]
