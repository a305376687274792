"""Host memory for ``cudakit.driver``: page-locked allocations, registered
(page-locked in place) numpy arrays, and page-aligned arrays.

As in PyCUDA, the numpy arrays these functions return keep their owner in
``.base``: a :class:`HostAllocation` for ``pagelocked_*`` arrays, a
:class:`RegisteredHostMemory` for ``register_host_memory``. Async copies from
and to such memory overlap with kernels on a GPU; from pageable memory the
driver stages them and they serialise.
"""

from __future__ import annotations

import enum
import math
import operator
from typing import Any, Iterable

import numpy as np

from . import _core
from ._layout import memory_order
from ._pickling import refuse_pickle
from ._core import ArgumentError, NotSupported


class host_alloc_flags(enum.IntFlag):
    PORTABLE = 1
    DEVICEMAP = 2
    WRITECOMBINED = 4


class mem_host_register_flags(enum.IntFlag):
    PORTABLE = 1
    DEVICEMAP = 2
    IOMEMORY = 4
    READ_ONLY = 8


def _as_shape(shape: int | Iterable[int]) -> tuple[int, ...]:
    """A shape as numpy reads one: an integer or a sequence of integers (not
    1.5, which int() would truncate), none negative."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        extents = tuple(operator.index(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be an integer or a sequence of integers, got {shape!r}"
                        ) from None
    if any(n < 0 for n in extents):
        raise ValueError(f"negative dimensions are not allowed: shape {extents}")
    return extents


def _strides(shape: tuple[int, ...], itemsize: int, order: str) -> tuple[int, ...]:
    if order not in ("C", "F"):
        raise ArgumentError(f"pagelocked_empty: order must be 'C' or 'F', got {order!r}")
    strides = [0] * len(shape)
    step = itemsize
    axes = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for axis in axes:
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


def _interface(address: int, shape: tuple[int, ...], dtype: np.dtype,
               strides: tuple[int, ...] | None, readonly: bool = False) -> dict[str, Any]:
    interface: dict[str, Any] = {"shape": shape, "typestr": dtype.str,
                                 "data": (address, readonly), "strides": strides, "version": 3}
    if dtype.fields is not None:
        interface["descr"] = dtype.descr  # structured types (vec.float3, records)
    return interface


def _check_alloc_flags(mem_flags: int) -> None:
    flags = int(mem_flags)
    if flags & ~0x7:
        raise ArgumentError(f"pagelocked_empty: unknown mem_flags {flags}; combine "
                            "host_alloc_flags.PORTABLE, DEVICEMAP and WRITECOMBINED")
    if flags & host_alloc_flags.WRITECOMBINED:
        raise NotSupported(
            "pagelocked_empty: host_alloc_flags.WRITECOMBINED is not supported: cudakit "
            "allocates ordinary (cached) page-locked memory; drop the flag (write-combined "
            "memory only speeds up host writes that the host never reads back)")
    # PORTABLE and DEVICEMAP need nothing: with unified addressing (every
    # 64-bit platform CUDA supports) all page-locked memory is usable from
    # every context and mapped into the device's address space.


class HostPointer:
    """PyCUDA's base class of host memory a kernel can reach
    (``HostAllocation`` and ``RegisteredHostMemory`` derive from it):
    ``get_device_pointer()`` is the device address of the memory. Not made
    directly (as in PyCUDA): ``pagelocked_empty`` and ``register_host_memory``
    return arrays whose ``.base`` is one."""

    def __new__(cls, *args: Any, **kwargs: Any) -> HostPointer:
        if cls is HostPointer:
            raise TypeError(
                "HostPointer cannot be made directly: it is the base class of the host "
                "memory pagelocked_empty() and register_host_memory() return (array.base)")
        return super().__new__(cls)

    def get_device_pointer(self) -> int:
        raise NotImplementedError  # each subclass has its own


class HostAllocation(HostPointer):
    """Page-locked memory from ``pagelocked_empty`` and friends: ``array.base``.

    ``get_device_pointer()`` gives the address a kernel can read it through
    (equal to the host address under unified addressing). The memory is freed
    when the last array viewing it is gone.
    """

    def __init__(self, shape: int | Iterable[int], dtype: Any, order: str = "C",
                 mem_flags: int = 0) -> None:
        _check_alloc_flags(mem_flags)
        self.shape = _as_shape(shape)
        self.dtype = np.dtype(dtype)
        self.mem_flags = int(mem_flags)
        self.nbytes = math.prod(self.shape) * self.dtype.itemsize
        self._raw = _core._pinned_bytes(self.nbytes)  # owns the memory
        self._address = int(self._raw.__array_interface__["data"][0])
        self.__array_interface__ = _interface(
            self._address, self.shape, self.dtype,
            _strides(self.shape, self.dtype.itemsize, order))

    def get_device_pointer(self) -> int:
        return int(_core._host_device_pointer(self._address))

    def get_flags(self) -> host_alloc_flags:
        return host_alloc_flags(self.mem_flags)

    def free(self) -> None:
        raise NotSupported(
            "HostAllocation.free(): page-locked memory is freed when the last array viewing "
            "it is gone (so no array outlives its memory): drop the references (del a)")

    def __int__(self) -> int:
        return self._address

    def __repr__(self) -> str:
        return f"<HostAllocation of {self.nbytes} page-locked bytes at 0x{self._address:x}>"

    __reduce_ex__ = refuse_pickle(
        "it is page-locked memory of this process; an array over it pickles as an ordinary "
        "numpy array (its values)")


PagelockedHostAllocation = HostAllocation  # PyCUDA's other name for it


class RegisteredHostMemory(HostPointer):
    """A numpy array's memory, page-locked in place by ``register_host_memory``.

    ``base`` is the registered array. ``unregister()`` ends the registration
    now (a second call is an ArgumentError); otherwise it ends when the last
    array viewing this memory is gone. The memory stays the array's either way.
    """

    def __init__(self, array: np.ndarray, flags: int = 0) -> None:
        self._registration = _core._HostRegistration(array, flags)
        self.base = array
        self.__array_interface__ = dict(array.__array_interface__)

    def unregister(self) -> None:
        self._registration.unregister()

    __reduce_ex__ = refuse_pickle(
        "it is a page-locked registration of this process's memory; the registered array "
        "pickles as an ordinary numpy array (its values)")

    @property
    def registered(self) -> bool:
        return bool(self._registration.registered)

    @property
    def flags(self) -> mem_host_register_flags:
        return mem_host_register_flags(self._registration.flags)

    def get_device_pointer(self) -> int:
        """The device address of the memory (needs DEVICEMAP or unified addressing)."""
        return int(self._registration.device_pointer())

    def __repr__(self) -> str:
        state = "registered" if self.registered else "unregistered"
        return f"<RegisteredHostMemory of {self._registration.nbytes} bytes, {state}>"


def pagelocked_empty(shape: int | Iterable[int], dtype: Any, order: str = "C",
                     mem_flags: int = 0) -> np.ndarray:
    """A numpy array in page-locked (pinned) host memory: async copies overlap.

    ``mem_flags``: host_alloc_flags.PORTABLE and DEVICEMAP hold for all
    page-locked memory under unified addressing; WRITECOMBINED is
    NotSupported.
    """
    return np.asarray(HostAllocation(shape, dtype, order, mem_flags))


def pagelocked_zeros(shape: int | Iterable[int], dtype: Any, order: str = "C",
                     mem_flags: int = 0) -> np.ndarray:
    result = pagelocked_empty(shape, dtype, order, mem_flags)
    result.fill(0)
    return result


def pagelocked_empty_like(array: np.ndarray, mem_flags: int = 0) -> np.ndarray:
    return pagelocked_empty(array.shape, array.dtype, memory_order(array), mem_flags)


def pagelocked_zeros_like(array: np.ndarray, mem_flags: int = 0) -> np.ndarray:
    result = pagelocked_empty_like(array, mem_flags)
    result.fill(0)
    return result


def register_host_memory(array: np.ndarray, flags: int = 0) -> np.ndarray:
    """Page-locks ``array``'s memory in place; returns a view whose ``.base`` is
    the :class:`RegisteredHostMemory` (``.base.unregister()`` ends it early).

    The array must be contiguous. Async copies from and to the returned array
    overlap with kernels on a GPU; keep it (or the registration) alive until
    they are done.
    """
    if not isinstance(array, np.ndarray):
        raise ArgumentError("register_host_memory: expected a numpy array, got "
                            + type(array).__name__)
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        raise ArgumentError(
            "register_host_memory: the array is not contiguous (a strided view such as "
            "a[::2] or a.T of a slice): register the array it views, or "
            "numpy.ascontiguousarray(a)")
    return np.asarray(RegisteredHostMemory(array, flags))


def aligned_empty(shape: int | Iterable[int], dtype: Any, order: str = "C",
                  alignment: int = 4096) -> np.ndarray:
    """An uninitialised numpy array whose data starts on an ``alignment``-byte
    boundary (a page by default), for register_host_memory."""
    if alignment <= 0 or alignment & (alignment - 1):
        raise ArgumentError(f"aligned_empty: alignment must be a power of two, got {alignment}")
    shape = _as_shape(shape)
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    raw = np.empty(nbytes + alignment, np.uint8)
    offset = (-raw.ctypes.data) % alignment
    flat = raw[offset:offset + nbytes].view(dtype)
    return flat.reshape(shape, order=order)  # type: ignore[call-overload]


def aligned_zeros(shape: int | Iterable[int], dtype: Any, order: str = "C",
                  alignment: int = 4096) -> np.ndarray:
    result = aligned_empty(shape, dtype, order, alignment)
    result.fill(0)
    return result


def aligned_empty_like(array: np.ndarray, alignment: int = 4096) -> np.ndarray:
    return aligned_empty(array.shape, array.dtype, memory_order(array), alignment)


def aligned_zeros_like(array: np.ndarray, alignment: int = 4096) -> np.ndarray:
    result = aligned_empty_like(array, alignment)
    result.fill(0)
    return result
