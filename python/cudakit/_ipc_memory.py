"""CUDA IPC for ``cudakit.driver``: device memory shared with another process
on the same machine, as PyCUDA's ``mem_get_ipc_handle`` / ``IPCMemoryHandle``.

The owning process calls ``mem_get_ipc_handle(alloc)`` and sends the 64-byte
bytearray (pickle, a ``multiprocessing`` Pipe or Queue); the other process
opens it with ``IPCMemoryHandle(handle)``, which is then a pointer wherever a
DeviceAllocation is one (kernel arguments, memcpy, ``GPUArray(gpudata=h)``,
``int(h)``) until ``close()``. CUDA maps a handle only in a process other than
the one that exported it. The CPU backend's memory belongs to one process and
cannot be shared this way: both calls raise NotSupported there.
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._driver_enums import ipc_mem_flags
from ._pickling import refuse_pickle


def mem_get_ipc_handle(devptr: Any) -> bytearray:
    """The 64-byte handle (a bytearray, as PyCUDA's) of the allocation that
    starts at `devptr` (a DeviceAllocation, a GPUArray's gpudata, an int).
    An address inside an allocation is refused: the other process would map
    the allocation's start."""
    return _core._mem_get_ipc_handle(devptr)


def _flags_argument(flags: Any) -> int:
    try:
        return int(flags)
    except (TypeError, ValueError):
        raise _core.ArgumentError(
            f"IPCMemoryHandle: flags must be an ipc_mem_flags value, got {flags!r}") from None


class IPCMemoryHandle:
    """Device memory of another process, opened from its ``mem_get_ipc_handle``.

    ``int(h)`` / ``h.get_pointer()`` is this process's address of the memory;
    ``h`` itself is accepted wherever a DeviceAllocation is. ``close()``
    unmaps it (also done when the object is collected); the exporting
    process's allocation is unaffected and must outlive the mapping.
    """

    def __init__(self, handle: Any,
                 flags: Any = ipc_mem_flags.LAZY_ENABLE_PEER_ACCESS) -> None:
        self._mapping = _core._IpcMemoryHandle(handle, _flags_argument(flags))

    def get_pointer(self) -> int:
        """The address; ArgumentError once closed."""
        return int(self._mapping.address)

    def __int__(self) -> int:
        return self.get_pointer()

    def __index__(self) -> int:
        return self.get_pointer()

    def close(self) -> None:
        """Unmaps the memory; ArgumentError when already closed."""
        self._mapping.close()

    def __repr__(self) -> str:
        if not self._mapping.is_open:
            return "<IPCMemoryHandle (closed)>"
        return f"<IPCMemoryHandle at {self.get_pointer():#x}>"

    __reduce_ex__ = refuse_pickle(
        "it is this process's mapping of another process's memory; send the bytes "
        "mem_get_ipc_handle returned and open them in the receiving process")
