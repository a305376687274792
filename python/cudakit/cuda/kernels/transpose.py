"""`numba.cuda.kernels.transpose`: the transpose of a 2-d array on the
device, through shared-memory tiles (NVIDIA's "efficient matrix transpose")."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..api import jit, shared, syncthreads, threadIdx, blockIdx, blockDim
from ..device_array import DeviceNDArray, device_array, to_device

_TILE = 32


@jit
def _transpose_tiled(source, target):  # type: ignore[no-untyped-def]
    # One padding column: the column reads of the tile hit distinct banks.
    tile = shared.array(shape=(32, 33), dtype=source.dtype)
    tx = threadIdx.x
    ty = threadIdx.y
    bx = blockIdx.x * blockDim.x
    by = blockIdx.y * blockDim.y
    if by + ty < source.shape[0] and bx + tx < source.shape[1]:
        tile[ty, tx] = source[by + ty, bx + tx]
    syncthreads()
    if bx + ty < target.shape[0] and by + tx < target.shape[1]:
        target[bx + ty, by + tx] = tile[tx, ty]


@jit
def _transpose_records(source, target):  # type: ignore[no-untyped-def]
    x = blockIdx.x * blockDim.x + threadIdx.x
    y = blockIdx.y * blockDim.y + threadIdx.y
    if y < target.shape[0] and x < target.shape[1]:
        target[y, x] = source[x, y]


def transpose(a: Any, b: Any = None) -> DeviceNDArray:
    """The transpose of the 2-d array `a` (a NumPy or device array), written
    into the device array `b` (of shape a.shape[::-1] and a's dtype) when
    given, else into a new one; returns it. Runs on `a`'s stream."""
    if getattr(a, "ndim", None) != 2:
        raise ValueError(f"transpose: a must be a 2-d array, got {getattr(a, 'ndim', a)!r} "
                         "dimensions")
    stream = getattr(a, "stream", 0)
    source = a if isinstance(a, DeviceNDArray) else to_device(np.asarray(a), stream=stream)
    rows, cols = source.shape
    if b is None:
        b = device_array((cols, rows), dtype=source.dtype, stream=stream)
    elif tuple(b.shape) != (cols, rows) or np.dtype(b.dtype) != source.dtype:
        raise ValueError(f"transpose: b must have shape {(cols, rows)} and dtype "
                         f"{source.dtype} (a's transposed), got {tuple(b.shape)} {b.dtype}")
    across_rows, across_cols = (rows + _TILE - 1) // _TILE, (cols + _TILE - 1) // _TILE
    if source.dtype.names is not None:  # one thread per element of b
        _transpose_records[(across_rows, across_cols), (_TILE, _TILE), stream](source, b)
    else:  # one block per tile of a
        _transpose_tiled[(across_cols, across_rows), (_TILE, _TILE), stream](source, b)
    return b


__all__ = ["transpose"]
