"""The values of a launch `kernel[grid, block, stream, sharedmem]`, read and
checked before the kernel is compiled or launched."""

from __future__ import annotations

from typing import Any

import numpy as np


def _dim3(value: Any, what: str) -> tuple[int, int, int]:
    if isinstance(value, (int, np.integer)):
        items = [int(value)]
    elif isinstance(value, (tuple, list)) and 1 <= len(value) <= 3:
        if not all(isinstance(v, (int, np.integer)) for v in value):
            raise TypeError(f"{what} must be a sequence of integers, got {list(value)!r} "
                            "(use // or math.ceil)")
        items = [int(v) for v in value]
    elif isinstance(value, float):
        raise TypeError(f"{what} must be an integer, got the float {value!r} "
                        f"({what} must be a sequence of integers, got [{value!r}]; use // or "
                        "math.ceil)")
    elif isinstance(value, (tuple, list)):
        raise ValueError(f"{what} must be a sequence of 1, 2 or 3 integers, got "
                         f"{list(value)!r}")
    else:
        raise ValueError(f"{what} must be an int or a tuple of 1 to 3 ints, got {value!r}")
    if any(v <= 0 for v in items):
        raise ValueError(f"{what} must be positive in every dimension, got {value!r}")
    if any(v >= 2**32 for v in items):
        raise ValueError(f"{what} {value!r} has an extent past 2**32 - 1; the device's limits "
                         "are lower still (cuda.get_current_device().MAX_GRID_DIM_X, ...)")
    items += [1] * (3 - len(items))
    return items[0], items[1], items[2]


def _stream_handle(stream: Any) -> int:
    if stream is None or (isinstance(stream, int) and stream == 0):
        return 0
    handle = getattr(stream, "handle", None)
    if handle is not None:
        return int(handle)
    if isinstance(stream, (int, np.integer)) and not isinstance(stream, bool):
        if not 0 <= int(stream) < 2**64:
            raise ValueError(f"stream handle {stream!r} is not a stream: pass a stream from "
                             "cuda.stream(), or 0 for the default stream")
        return int(stream)
    raise TypeError(f"not a stream: {stream!r} (pass a stream from cuda.stream(), or 0 for "
                    "the default stream)")


def _shared_bytes(value: Any) -> int:
    """kernel[grid, block, stream, sharedmem]'s dynamic shared memory in bytes."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"sharedmem must be an int (bytes of dynamic shared memory), got "
                        f"{type(value).__name__} {value!r}")
    if not 0 <= int(value) < 2**32:
        raise ValueError(f"sharedmem={value!r} is not a number of bytes from 0 to 2**32 - 1: "
                         "pass the bytes of dynamic shared memory the kernel uses")
    return int(value)
