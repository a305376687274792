"""CUDA IPC for ``cudakit.cuda``, as numba.cuda's: ``DeviceNDArray.get_ipc_handle()``
gives an :class:`IpcArrayHandle` that pickles to another process, where
``with handle as array:`` (or ``handle.open()``) maps the memory as a
DeviceNDArray; ``cuda.open_ipc_array(bytes, shape, dtype)`` does the same from
the raw 64 bytes. Views export their allocation's handle and their offset in
it, so a slice arrives as the same slice.

Closing differs from Numba's in one way, for safety: ``close()`` gives up the
handle's hold on the mapping, which ends when no array opened from it is
left (Numba unmaps at once, and a kept array then faults). Numba's staged
path (``open_staged``, copies through the host between devices without peer
access) is not provided: the handle is opened with peer access enabled.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Iterator

import numpy as np

from .. import _core
from .._driver_enums import ipc_mem_flags


class _IpcMemHandleBytes:
    """The 64 bytes of a CUipcMemHandle, as Numba's binding shows them (``.reserved``)."""

    __slots__ = ("reserved",)

    def __init__(self, reserved: Any) -> None:
        self.reserved = bytes(reserved)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _IpcMemHandleBytes) and other.reserved == self.reserved

    def __hash__(self) -> int:
        return hash(self.reserved)


def _export(address: int, what: str) -> tuple[bytes, int]:
    """(the handle of the allocation `address` lies in, the offset of `address` in it)."""
    if not address:
        raise _core.ArgumentError(f"get_ipc_handle: {what} has no memory (it is empty); "
                                  "only memory of at least one element can be shared")
    start, _ = _core._mem_get_address_range(int(address))
    handle = _core._mem_get_ipc_handle(int(start))
    return bytes(handle), int(address) - int(start)


class IpcHandle:
    """numba.cuda.cudadrv.driver.IpcHandle: the handle of an allocation, and
    the shared memory in it: ``size`` bytes from ``offset``. Picklable
    (``base``, the exporter's memory kept alive, stays behind as None)."""

    def __init__(self, base: Any, handle: Any, size: int, source_info: Any = None,
                 offset: int = 0) -> None:
        self.base = base
        self.handle = handle if isinstance(handle, _IpcMemHandleBytes) else _IpcMemHandleBytes(
            handle)
        self.size = int(size)
        self.source_info = source_info
        self.offset = int(offset)
        self._mapping: Any = None

    def open(self, context: Any = None) -> Any:
        """Maps the memory in this process (on the current device); the
        DeviceMemory of the shared bytes."""
        from .device_array import DeviceMemory
        if self._mapping is not None:
            raise ValueError("IpcHandle is already opened")
        self._mapping = _core._IpcMemoryHandle(self.handle.reserved,
                                               int(ipc_mem_flags.LAZY_ENABLE_PEER_ACCESS))
        return DeviceMemory(self._mapping.address + self.offset, self.size, self._mapping)

    open_direct = open

    def open_array(self, context: Any, shape: Any, dtype: Any, strides: Any = None) -> Any:
        """Like ``open()``, viewed as a DeviceNDArray of `shape` and `dtype`."""
        dtype = np.dtype(dtype)
        shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(
            int(n) for n in shape)
        if strides is not None:
            strides = (int(strides),) if isinstance(strides, (int, np.integer)) else tuple(
                int(s) for s in strides)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > self.size:
            raise _core.ArgumentError(
                f"open_array: shape {shape} of {dtype} needs {nbytes} bytes, but the handle "
                f"shares {self.size}; pass the shape and dtype of the exported array")
        memory = self.open(context)
        return _view(memory.device_pointer, shape, dtype, strides, owner=memory.owner)

    def close(self) -> None:
        """Gives up this handle's hold on the mapping (ValueError when not
        opened); the memory is unmapped once no array opened from it is left."""
        if self._mapping is None:
            raise ValueError("IpcHandle not opened")
        self._mapping = None

    def __reduce__(self) -> Any:
        return (_rebuild_ipc_handle, (self.handle.reserved, self.size, self.source_info,
                                      self.offset))


def _rebuild_ipc_handle(handle: bytes, size: int, source_info: Any, offset: int) -> IpcHandle:
    return IpcHandle(None, handle, size, source_info, offset)


def _view(address: int, shape: tuple[int, ...], dtype: np.dtype, strides: Any,
          owner: Any) -> Any:
    from .device_array import from_cuda_array_interface
    desc: dict[str, Any] = {"shape": shape, "strides": strides, "typestr": dtype.str,
                            "data": (int(address), False), "version": 3}
    if dtype.names is not None:
        desc["descr"] = dtype.descr
    return from_cuda_array_interface(desc, owner=owner)


class IpcArrayHandle:
    """numba.cuda.cudadrv.devicearray.IpcArrayHandle: an array's IPC handle
    and its layout; ``with h as array:`` opens it, ``close()`` ends it."""

    def __init__(self, ipc_handle: IpcHandle, array_desc: dict[str, Any]) -> None:
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    def open(self) -> Any:
        desc = self._array_desc
        return self._ipc_handle.open_array(None, desc["shape"], desc["dtype"], desc["strides"])

    def close(self) -> None:
        self._ipc_handle.close()

    def __enter__(self) -> Any:
        return self.open()

    def __exit__(self, *exc: Any) -> None:
        self.close()


def array_ipc_handle(array: Any) -> IpcArrayHandle:
    """``DeviceNDArray.get_ipc_handle()``."""
    pointer = getattr(array, "device_ctypes_pointer", None)
    address = (pointer.value or 0) if pointer is not None else (
        array.__cuda_array_interface__["data"][0])
    handle, offset = _export(address, "the array")
    shape, strides = tuple(array.shape), tuple(array.strides)
    # The bytes from the first element to the end of the last.
    extent = array.dtype.itemsize + sum((n - 1) * abs(s) for n, s in zip(shape, strides))
    desc = {"shape": shape, "strides": strides, "dtype": array.dtype}
    return IpcArrayHandle(IpcHandle(array, handle, extent, offset=offset), desc)


def memory_ipc_handle(memory: Any) -> IpcHandle:
    """``current_context().get_ipc_handle(memory)`` (a DeviceMemory: ``gpu_data``)."""
    handle, offset = _export(int(memory.device_pointer), "the memory")
    return IpcHandle(memory, handle, int(memory.size), offset=offset)


@contextlib.contextmanager
def open_ipc_array(handle: Any, shape: Any, dtype: Any, strides: Any = None,
                   offset: int = 0) -> Iterator[Any]:
    """numba.cuda.open_ipc_array: the 64 handle bytes opened as a DeviceNDArray
    for the ``with`` block."""
    dtype = np.dtype(dtype)
    count = (int(shape) if isinstance(shape, (int, np.integer))
             else math.prod(int(n) for n in shape))
    ipc = IpcHandle(None, handle, count * dtype.itemsize, offset=offset)
    array = ipc.open_array(None, shape, dtype, strides)
    try:
        yield array
    finally:
        ipc.close()
