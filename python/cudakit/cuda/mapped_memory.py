"""cuda.pinned_array and cuda.mapped_array: NumPy arrays in page-locked
host memory. A mapped array is also a device array (Numba's
MappedNDArray): it has __cuda_array_interface__ (the device address of the
same memory, under unified addressing), and kernels read and write it in
place, with no copy."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._host_memory import HostAllocation, _as_shape
from .device_array import _interface_stream, _strided_extent


def _allocation(array: np.ndarray) -> HostAllocation | None:
    base: Any = array
    while base is not None and not isinstance(base, HostAllocation):
        base = getattr(base, "base", None)
    return base


class MappedNDArray(np.ndarray):
    """A host array the device addresses directly (views stay mapped)."""

    _stream: Any = 0

    def __array_finalize__(self, obj: Any) -> None:
        self._stream = getattr(obj, "_stream", 0)

    def __reduce_ex__(self, protocol: int) -> Any:
        # Another process cannot map this memory: it arrives as its values, a
        # numpy array (as pinned and managed arrays do).
        return self.view(np.ndarray).__reduce_ex__(protocol)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        allocation = _allocation(self)
        if allocation is None:  # (a copy made by NumPy: ordinary host memory)
            raise AttributeError("this array is a copy in ordinary host memory, not mapped: "
                                 "use cuda.mapped_array for memory the device addresses")
        offset = self.__array_interface__["data"][0] - int(allocation)
        strides = None if self.flags.c_contiguous else self.strides
        interface: dict[str, Any] = {
            "shape": self.shape, "strides": strides, "typestr": self.dtype.str,
            "data": (allocation.get_device_pointer() + offset, False), "version": 3,
            "stream": _interface_stream(self._stream)}
        if self.dtype.names is not None:
            interface["descr"] = self.dtype.descr
        return interface


def _page_locked(shape: Any, dtype: Any, strides: Any, order: str, what: str) -> np.ndarray:
    """An empty page-locked array; `strides` (bytes per step along each axis)
    win over `order`, as NumPy's ndarray(..., strides=) and Numba take them."""
    if strides is None:
        return np.asarray(HostAllocation(shape, dtype, order))
    dt = np.dtype(dtype)
    shape = _as_shape(shape)
    strides, extent = _strided_extent(shape, strides, dt.itemsize, what)
    memory = np.asarray(HostAllocation(max(extent, 1), np.uint8))
    return np.ndarray(shape, dt, buffer=memory, strides=strides)


def pinned_array(shape: Any, dtype: Any = np.float64, strides: Any = None,
                 order: str = "C") -> np.ndarray:
    """An empty array in page-locked host memory (its copies to and from the
    device can overlap kernels)."""
    return _page_locked(shape, dtype, strides, order, "pinned_array")


def mapped_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C",
                 stream: Any = 0, portable: bool = False, wc: bool = False) -> MappedNDArray:
    """An empty array in page-locked host memory mapped into the device's
    address space: kernels take it without a copy."""
    array = _page_locked(shape, dtype, strides, order, "mapped_array").view(MappedNDArray)
    array._stream = stream
    return array
