"""Managed (unified) memory for ``cudakit.driver``: numpy arrays whose memory
the device reaches at the same address (``managed_empty`` and friends), and
``mem_get_address_range``.

As in PyCUDA, the array's ``.base`` is a :class:`ManagedAllocation`
(``get_device_pointer()``, ``attach(mem_flags, stream)``), and the array
itself can be passed to a SourceModule kernel, which receives its address.
On a GPU the memory comes from cuMemAllocManaged and migrates on demand:
synchronize (``Context.synchronize()``, the stream) before the host reads what
a kernel wrote. On the CPU backend it is device memory, which host code and
kernels share anyway.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import numpy as np

from . import _core
from ._core import ArgumentError
from ._driver_enums import mem_attach_flags
from ._host_memory import _as_shape, _interface, _strides
from ._layout import memory_order
from ._pickling import refuse_pickle


def _attach_mode(mem_flags: Any) -> int:
    """0 (PyCUDA's default) is GLOBAL: the driver accepts only GLOBAL or HOST."""
    try:
        flags = int(mem_flags)
    except (TypeError, ValueError):
        raise TypeError(f"managed_empty: mem_flags must be a mem_attach_flags value, got "
                        f"{mem_flags!r}") from None
    return flags or int(mem_attach_flags.GLOBAL)


class ManagedAllocation:
    """Managed memory from ``managed_empty`` and friends: ``array.base``.

    ``get_device_pointer()`` is the address kernels use (the host's too).
    ``attach(mem_flags, stream=None)`` attaches the memory to a stream
    (cuStreamAttachMemAsync): ``mem_attach_flags.SINGLE`` with a stream lets
    the host use it while other streams run kernels, ``HOST`` keeps it for the
    host, ``GLOBAL`` gives it to every stream again. The memory is freed when
    the last array viewing it is gone.
    """

    __cudakit_managed__ = True  # arrays over it are passed to kernels as pointers

    def __init__(self, shape: int | Iterable[int], dtype: Any, order: str = "C",
                 mem_flags: Any = 0) -> None:
        self.shape = _as_shape(shape)
        self.dtype = np.dtype(dtype)
        if self.dtype.hasobject:
            raise TypeError(f"managed_empty: dtype {self.dtype} holds Python objects, which "
                            "a kernel cannot use (nor can raw memory hold them); use a numeric "
                            "or record dtype")
        if order not in ("C", "F"):
            raise ArgumentError(f"managed_empty: order must be 'C' or 'F', got {order!r}")
        self.nbytes = math.prod(self.shape) * self.dtype.itemsize
        self._memory = _core._ManagedMemory(self.nbytes, _attach_mode(mem_flags))
        self.__array_interface__ = _interface(
            self._memory.address, self.shape, self.dtype,
            _strides(self.shape, self.dtype.itemsize, order))

    def get_device_pointer(self) -> int:
        return int(self._memory.address)

    __reduce_ex__ = refuse_pickle(
        "it is managed memory of this process; an array over it pickles as an ordinary numpy "
        "array (its values)")

    def attach(self, mem_flags: Any, stream: Any = None) -> None:
        self._memory.attach(int(mem_flags), stream)

    def free(self) -> None:
        raise ArgumentError(
            "ManagedAllocation.free(): managed memory is freed when the last array viewing "
            "it is gone (so no array outlives its memory): drop the references (del a)")

    def get_pointer(self) -> int:
        """The address, for kernels given the allocation itself (PyCUDA's
        PointerHolderBase protocol)."""
        return int(self._memory.address)

    def __int__(self) -> int:
        return int(self._memory.address)

    def __repr__(self) -> str:
        return (f"<ManagedAllocation of {self.nbytes} bytes at "
                f"0x{int(self._memory.address):x}>")


def managed_empty(shape: int | Iterable[int], dtype: Any, order: str = "C",
                  mem_flags: Any = 0) -> np.ndarray:
    """An uninitialised numpy array in managed memory, which kernels reach too.

    ``mem_flags``: mem_attach_flags.GLOBAL (the default; 0 means it) or HOST.
    """
    return np.asarray(ManagedAllocation(shape, dtype, order, mem_flags))


def managed_zeros(shape: int | Iterable[int], dtype: Any, order: str = "C",
                  mem_flags: Any = 0) -> np.ndarray:
    result = managed_empty(shape, dtype, order, mem_flags)
    result.fill(0)
    return result


def managed_empty_like(array: np.ndarray, mem_flags: Any = 0) -> np.ndarray:
    return managed_empty(array.shape, array.dtype, memory_order(array), mem_flags)


def managed_zeros_like(array: np.ndarray, mem_flags: Any = 0) -> np.ndarray:
    result = managed_empty_like(array, mem_flags)
    result.fill(0)
    return result


def mem_get_address_range(ptr: Any) -> tuple[int, int]:
    """(start, size in bytes) of the device allocation that contains address
    ``ptr`` (an int, a DeviceAllocation, or a managed allocation)."""
    return tuple(_core._mem_get_address_range(int(ptr)))  # type: ignore[return-value]
