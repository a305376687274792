"""`numba.cuda.cudadrv.devicearray`: the device array class and the
functions that make one like a host array."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..device_array import DeviceNDArray, device_array, device_array_like, to_device
from ..device_array import is_cuda_array as is_cuda_ndarray  # noqa: F401

DeviceNDArrayBase = DeviceNDArray
DeviceRecord = DeviceNDArray


def from_array_like(ary: Any, stream: Any = 0, gpu_data: Any = None) -> DeviceNDArray:
    """An uninitialized device array of `ary`'s shape, dtype and order."""
    if gpu_data is not None:
        raise NotImplementedError("from_array_like(gpu_data=...): cudakit allocates the "
                                  "device memory itself")
    return device_array_like(ary, stream=stream)


def from_record_like(rec: Any, stream: Any = 0, gpu_data: Any = None) -> DeviceNDArray:
    """A device array of one record of `rec`'s dtype."""
    if gpu_data is not None:
        raise NotImplementedError("from_record_like(gpu_data=...): cudakit allocates the "
                                  "device memory itself")
    return device_array((1,), rec.dtype, stream=stream)


def auto_device(obj: Any, stream: Any = 0, copy: bool = True) -> tuple[DeviceNDArray, bool]:
    """(device array of `obj`, whether it was copied to the device)."""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    host = np.asarray(obj)
    if host.ndim and not (host.flags.c_contiguous or host.flags.f_contiguous):
        # Numba's auto_device copies one memory region (cuda.to_device and
        # kernel launches take strided host arrays too).
        raise ValueError("Array contains non-contiguous buffer and cannot be transferred as a "
                         "single memory region. Please ensure contiguous buffer with numpy "
                         ".ascontiguousarray()")
    return to_device(obj, stream=stream, copy=copy), True


__all__ = ["DeviceNDArray", "auto_device", "from_array_like", "from_record_like"]
