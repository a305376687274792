"""cuda.reduce: a binary function of two scalars made into a reduction of a
whole array (Numba's cuda.reduce / cuda.Reduce).

Each block folds a grid-stride slice with the function, then the blocks'
partials (at most 64) are folded on the host in block order, so results
are deterministic for any associative function.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import api
from .device_array import DeviceNDArray, to_device
from .translate import types as t

_THREADS = 128
_MAX_BLOCKS = 64


def _make_kernel(op: Any, dtype: Any) -> Any:
    element = dtype

    @api.jit
    def reduce_blocks(values, partials, flags):
        buffer = api.shared.array(128, dtype=element)
        present = api.shared.array(128, dtype=np.int32)
        tid = api.threadIdx.x
        i = api.grid(1)
        stride = api.gridsize(1)
        n = values.size
        have = 0
        acc = values[0]
        while i < n:
            if have == 0:
                acc = values[i]
                have = 1
            else:
                acc = op(acc, values[i])
            i += stride
        buffer[tid] = acc
        present[tid] = have
        api.syncthreads()
        step = 64
        while step > 0:
            if tid < step and present[tid + step] != 0:
                if present[tid] != 0:
                    buffer[tid] = op(buffer[tid], buffer[tid + step])
                else:
                    buffer[tid] = buffer[tid + step]
                    present[tid] = 1
            api.syncthreads()
            step //= 2
        if tid == 0:
            partials[api.blockIdx.x] = buffer[0]
            flags[api.blockIdx.x] = present[0]

    return reduce_blocks


class Reduce:
    """`Reduce(f)(array, res=None, init=0, size=None, stream=0)`."""

    def __init__(self, functor: Callable[[Any, Any], Any]) -> None:
        self._functor = functor
        self._device = functor if hasattr(functor, "_device_specialization") else api.jit(
            device=True)(functor)
        self._kernels: dict[np.dtype, Any] = {}

    def __call__(self, arr: Any, size: int | None = None, res: Any = None, init: Any = 0,
                 stream: Any = 0) -> Any:
        values = arr if isinstance(arr, DeviceNDArray) else to_device(np.asarray(arr))
        if values.ndim != 1:
            values = values.ravel()
        if size is not None:
            values = values[:size]
        dtype = values.dtype
        host_op = getattr(self._functor, "py_func", self._functor)
        if values.size == 0:
            result = dtype.type(init)
        else:
            kernel = self._kernels.get(dtype)
            if kernel is None:
                t.from_dtype(dtype)
                kernel = self._kernels[dtype] = _make_kernel(self._device, dtype.type)
            blocks = max(1, min(_MAX_BLOCKS, (values.size + _THREADS - 1) // _THREADS))
            partials = api_device_array(blocks, dtype)
            flags = api_device_array(blocks, np.int32)
            kernel[blocks, _THREADS, stream](values, partials, flags)
            result = dtype.type(init)
            for value, flag in zip(partials.copy_to_host(), flags.copy_to_host()):
                if flag:
                    result = dtype.type(host_op(result, value))
        if res is not None:
            res.copy_to_device(np.array([result], dtype))
            return None
        return result


def api_device_array(n: int, dtype: Any) -> DeviceNDArray:
    from .device_array import device_array
    return device_array(n, dtype)


def reduce(functor: Callable[[Any, Any], Any]) -> Reduce:
    """@cuda.reduce decorator."""
    return Reduce(functor)
