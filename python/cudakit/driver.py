"""PyCUDA's ``pycuda.driver`` on cudakit's C++ core.

The same names and calls as PyCUDA. Where cudakit differs (see
docs/guide/python.md): every context is the device's *primary* context
(shared with PyTorch, CuPy and Numba), memory copies and launches are checked
before anything is written, and without a GPU or driver everything runs on
the CPU backend.
"""

from __future__ import annotations

import operator
import threading
import warnings
from typing import Any, Iterable

import numpy as np

from . import _core
from ._pickling import refuse_pickle as _refuse_pickle
from ._textures import TexturesNotSupported  # noqa: F401
from ._cuda_arrays import (  # noqa: F401  (PyCUDA's names)
    Array,
    ArrayDescriptor,
    ArrayDescriptor3D,
    Memcpy2D,
    Memcpy3D,
    Memcpy3DPeer,
    dtype_to_array_format,
    gpuarray_to_array,
    make_multichannel_2d_array,
    matrix_to_array,
    memcpy_atoa,
    memcpy_atod,
    memcpy_atoh,
    memcpy_dtoa,
    memcpy_htoa,
    np_to_array,
)
from ._texture_references import (  # noqa: F401  (PyCUDA's names)
    TRSA_OVERRIDE_FORMAT,
    TRSF_NORMALIZED_COORDINATES,
    TRSF_READ_AS_INTEGER,
    TRSF_SRGB,
    SurfaceReference,
    TextureReference,
    bind_array_to_texref,
    matrix_to_texref,
)
from ._texture_objects import SurfaceObject, TextureObject  # noqa: F401
from ._linker import (  # noqa: F401  (PyCUDA's names)
    Linker,
    jit_input_type,
    jit_option,
    module_from_buffer,
    module_from_file,
)
from ._host_memory import (  # noqa: F401  (re-exported: PyCUDA's names)
    HostAllocation,
    HostPointer,
    PagelockedHostAllocation,
    RegisteredHostMemory,
    _as_shape,
    aligned_empty,
    aligned_empty_like,
    aligned_zeros,
    aligned_zeros_like,
    host_alloc_flags,
    mem_host_register_flags,
    pagelocked_empty,
    pagelocked_empty_like,
    pagelocked_zeros,
    pagelocked_zeros_like,
    register_host_memory,
)
from ._ipc_memory import IPCMemoryHandle, mem_get_ipc_handle  # noqa: F401  (PyCUDA's names)
from ._managed_memory import (  # noqa: F401  (re-exported: PyCUDA's names)
    ManagedAllocation,
    managed_empty,
    managed_empty_like,
    managed_zeros,
    managed_zeros_like,
    mem_get_address_range,
)
from ._driver_compat import (  # noqa: F401  (PyCUDA's names)
    CUDA_DEBUGGING,
    ArgumentHandler,
    PooledDeviceAllocation,
    memcpy_peer,
    memcpy_peer_async,
    memset_d2d8,
    memset_d2d8_async,
    memset_d2d16,
    memset_d2d16_async,
    memset_d2d32,
    memset_d2d32_async,
    initialize_profiler,
    set_debugging,
    start_profiler,
    stop_profiler,
)
from ._core import (  # noqa: F401  (re-exported: PyCUDA's names)
    ArgumentError,
    CommunicatorError,
    CompileError,
    CublasNotFound,
    DeviceAllocation,
    DriverNotFound,
    DriverTooOld,
    Error,
    Event,
    Function,
    In,
    InOut,
    KernelFault,
    LaunchConfigError,
    LaunchError,
    LibraryNotFound,
    LogicError,
    MemoryError,
    NcclNotFound,
    NoKernelImage,
    NotSupported,
    NvrtcNotFound,
    Out,
    RuntimeError,
    Stream,
    mem_alloc,
    mem_get_info,
    memcpy_dtod,
    memcpy_dtod_async,
    memcpy_dtoh,
    memcpy_dtoh_async,
    memcpy_htod,
    memcpy_htod_async,
    memset_d8,
    memset_d8_async,
    memset_d16,
    memset_d16_async,
    memset_d32,
    memset_d32_async,
)

__all__ = [
    "ArgumentError", "CompileError", "Context", "Device", "DeviceAllocation", "Error",
    "Event", "Function", "In", "InOut", "LaunchError", "LogicError", "MemoryError", "Out",
    "RuntimeError", "Stream", "device_attribute", "event_flags", "func_cache",
    "function_attribute", "get_driver_version", "get_version", "init", "limit",
    "mem_alloc", "mem_alloc_pitch", "mem_get_info", "memcpy_dtod", "memcpy_dtod_async",
    "memcpy_dtoh", "memcpy_dtoh_async", "memcpy_htod", "memcpy_htod_async", "memset_d8",
    "memset_d16", "memset_d32", "pagelocked_empty", "pagelocked_empty_like",
    "pagelocked_zeros", "pagelocked_zeros_like", "register_host_memory", "backend",
    "PointerHolderBase", "mem_alloc_like", "HostAllocation", "RegisteredHostMemory",
    "aligned_empty", "aligned_empty_like", "aligned_zeros", "aligned_zeros_like",
    "host_alloc_flags", "mem_host_register_flags", "shared_config", "ctx_flags",
    "DeviceAddress", "Linker", "jit_input_type", "jit_option", "module_from_buffer",
    "module_from_file", "address_mode", "array3d_flags", "array_cubemap_face", "array_format",
    "compute_mode", "filter_mode", "graphics_register_flags", "ipc_mem_flags", "jit_fallback",
    "jit_target", "mem_attach_flags", "memory_type", "pointer_attribute",
    "profiler_output_mode", "ArgumentHandler", "CUDA_DEBUGGING", "PooledDeviceAllocation",
    "PooledHostAllocation", "memcpy_peer", "memcpy_peer_async", "memset_d2d8",
    "memset_d2d8_async", "memset_d2d16", "memset_d2d16_async", "memset_d2d32",
    "memset_d2d32_async", "set_debugging", "initialize_profiler", "start_profiler",
    "stop_profiler", "bitlog2",
    "Module", "ManagedAllocation", "managed_empty", "managed_empty_like", "managed_zeros",
    "managed_zeros_like", "mem_get_address_range", "HostPointer", "have_gl_ext",
]

def have_gl_ext() -> bool:
    """PyCUDA's have_gl_ext: whether OpenGL interop (pycuda.gl) was built in.
    Always False: cudakit has no OpenGL interop."""
    return False


# What module_from_buffer / module_from_file return (PyCUDA's _driver.Module).
Module = _core._Module

# Pool blocks of PageLockedMemoryPool are page-locked host allocations.
PooledHostAllocation = PagelockedHostAllocation

# PyCUDA's enums, with the driver's numbering (generated from PyCUDA's
# wrap_cudadrv.cpp and cuda.h; jit_option, jit_input_type and the host memory
# flags, supersets with the same values, come from _linker / _host_memory).
from ._driver_enums import (  # noqa: E402,F401
    address_mode,
    array3d_flags,
    array_cubemap_face,
    array_format,
    compute_mode,
    ctx_flags,
    event_flags,
    filter_mode,
    func_cache,
    function_attribute,
    graphics_register_flags,
    ipc_mem_flags,
    jit_fallback,
    jit_target,
    limit,
    mem_attach_flags,
    memory_type,
    pointer_attribute,
    profiler_output_mode,
    shared_config,
)
from ._driver_enum_base import DriverEnum as _DriverEnum, finish as _finish_enums  # noqa: E402

# All of the driver's attributes (a superset of PyCUDA's list, same values).
device_attribute = _DriverEnum(  # type: ignore[misc]
    "device_attribute", [(name, value) for name, value in _core._device_attribute_items()]
)
_finish_enums({"device_attribute": device_attribute})


def init(flags: int = 0) -> None:
    """Initialises the driver; cudakit does it on first use, so this only checks.

    Without a driver, the CPU backend is used and this succeeds. ``flags``
    must be 0, as cuInit requires.
    """
    if int(flags) != 0:
        raise ArgumentError(f"init: flags must be 0 (cuInit takes no flags), got {flags}")
    _core.Device.count()


def backend() -> str:
    """'cuda' or 'cpu': the backend cudakit chose (CUDAKIT_BACKEND overrides)."""
    return _core._backend()


def get_version() -> tuple[int, int, int]:
    """The CUDA toolkit version cudakit was built with, as (major, minor, 0)."""
    v = _core._toolkit_version()
    return (v // 1000, (v % 1000) // 10, 0)


def get_driver_version() -> int:
    """The driver's CUDA version (13000 = 13.0).

    The CPU backend has no driver; it answers the CUDA version whose device
    code and API it implements, the toolkit's cudakit was built with, or the
    version CUDAKIT_CPU_DRIVER_VERSION names (e.g. 11080: programs that
    check for CUDA 11 before using texture references then use them, which
    the CPU backend runs).
    """
    if backend() == "cpu":
        return _cpu_driver_version()
    return _core._driver_version()


def _cpu_driver_version() -> int:
    import os
    text = os.environ.get("CUDAKIT_CPU_DRIVER_VERSION", "").strip()
    if not text:
        return _core._toolkit_version()
    if not text.isdigit() or not 9000 <= int(text) <= 99990:
        raise _core.ArgumentError(
            f"CUDAKIT_CPU_DRIVER_VERSION={text!r}: expected a CUDA version as the driver "
            "reports it, 1000 * major + 10 * minor (e.g. 11080 for CUDA 11.8, 12040 for 12.4)")
    return int(text)


Device = _core.Device


def _get_attributes(self: Device) -> dict[Any, int]:
    out: dict[Any, int] = {}
    for name, value in self._attributes():
        out[device_attribute.__members__.get(name.upper(), name)] = value
    return out


def _warn_context_flags(flags: int, use: str) -> None:
    if int(flags) != 0:
        warnings.warn(
            f"{use}(flags={int(flags)}): the flags are not applied: cudakit uses the device's "
            "primary context, shared with PyTorch and CuPy, whose scheduling flags are those "
            "it was created with", RuntimeWarning, stacklevel=3)


def _make_context(self: Device, flags: int = 0,
                  printf_buffer_size: int | None = None) -> "Context":
    """Makes the device's primary context current and returns it (pushed).

    ``printf_buffer_size`` sets the device printf FIFO (limit.PRINTF_FIFO_SIZE).
    """
    _warn_context_flags(flags, "make_context")
    ctx = Context(self)
    ctx.push()
    if printf_buffer_size is not None:
        Context.set_limit(limit.PRINTF_FIFO_SIZE, int(printf_buffer_size))
    return ctx


def _retain_primary_context(self: Device) -> "Context":
    """The primary context, not yet current (call push())."""
    return Context(self)


def _device_attribute_getattr(self: Device, name: str) -> int:
    # PyCUDA: dev.MAX_THREADS_PER_BLOCK (or dev.max_threads_per_block) reads an attribute.
    member = device_attribute.__members__.get(name.upper())
    if member is None:
        raise AttributeError(name)
    return self.get_attribute(int(member))


Device.get_attributes = _get_attributes  # type: ignore[attr-defined]
Device.make_context = _make_context  # type: ignore[attr-defined]
Device.retain_primary_context = _retain_primary_context  # type: ignore[attr-defined]
Device.__getattr__ = _device_attribute_getattr  # type: ignore[attr-defined]


def _enum_value(config: Any, use: str) -> int:
    if isinstance(config, bool) or not isinstance(config, (int, np.integer)):
        raise ArgumentError(f"Context.{use}: expected a member of the enum (an int), got "
                            f"{type(config).__name__}")
    return int(config)


class _ContextStack(threading.local):
    def __init__(self) -> None:
        self.stack: list[Context] = []


_contexts = _ContextStack()


class Context:
    """The primary context of a device, with PyCUDA's push/pop stack.

    cudakit never creates a context of its own: make_context() and
    retain_primary_context() both give the primary context, so memory and
    streams are shared with PyTorch, CuPy and Numba in the same process.
    detach() pops it; the primary context itself lives until exit.
    """

    def __init__(self, device: Device) -> None:
        self._device = device

    __reduce_ex__ = _refuse_pickle(
        "a context belongs to the process that made it; in the receiving process use "
        "cudakit.autoinit or Device(n).retain_primary_context()")

    def push(self) -> None:
        self._device._make_current()
        _contexts.stack.append(self)

    @staticmethod
    def pop() -> None:
        if not _contexts.stack:
            raise LogicError("Context.pop: no context was pushed on this thread")
        _contexts.stack.pop()
        if _contexts.stack:
            _contexts.stack[-1]._device._make_current()

    def detach(self) -> None:
        if self in _contexts.stack:
            _contexts.stack.remove(self)
            if _contexts.stack:
                _contexts.stack[-1]._device._make_current()

    def attach(self, flags: int = 0) -> "Context":
        _warn_context_flags(flags, "Context.attach")
        self.push()
        return self

    @staticmethod
    def get_current() -> "Context | None":
        return _contexts.stack[-1] if _contexts.stack else None

    @staticmethod
    def get_device() -> Device:
        return _core.Device._current()  # type: ignore[return-value]

    @staticmethod
    def synchronize() -> None:
        _core.Device._current()._synchronize()

    @staticmethod
    def set_limit(which: int, value: int) -> None:
        _core.Device._current()._set_limit(which, value)

    @staticmethod
    def get_limit(which: int) -> int:
        return _core.Device._current()._limit(which)

    @staticmethod
    def set_cache_config(config: int) -> None:
        """The primary context's L1 / shared memory preference (cuCtxSetCacheConfig).

        A hint: the driver still sizes the split for a launch that needs more
        shared memory. A value outside func_cache is an ArgumentError.
        """
        _core.Device._current()._set_cache_config(_enum_value(config, "set_cache_config"))

    @staticmethod
    def get_cache_config() -> func_cache:
        return func_cache(_core.Device._current()._cache_config())

    @staticmethod
    def set_shared_config(config: int) -> None:
        """The primary context's shared memory bank size (cuCtxSetSharedMemConfig).

        GPUs since Maxwell have fixed 4-byte banks and keep them; the CPU
        backend records the value. A value outside shared_config is an
        ArgumentError.
        """
        _core.Device._current()._set_shared_config(_enum_value(config, "set_shared_config"))

    @staticmethod
    def get_shared_config() -> shared_config:
        return shared_config(_core.Device._current()._shared_config())

    def get_api_version(self) -> int:
        return get_driver_version()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and other._device == self._device

    def __hash__(self) -> int:
        return hash(self._device)


class DeviceAddress(int):
    """``GPUArray.gpudata``: the device address of the array's first element.

    It is an int (arithmetic, ``int()``, comparisons and hashing are the
    address's), and, like PyCUDA's ``gpudata`` (a DeviceAllocation), it is
    accepted as a pointer by a kernel launch and by the memory copies:
    ``kernel(a_gpu.gpudata, ...)``, the tutorials' idiom. A plain Python int
    stays a number for a launch (so a forgotten array is an error, not a
    wild pointer). It keeps its array alive, as PyCUDA's allocation does.
    """

    def __new__(cls, address: int, base: Any = None) -> "DeviceAddress":
        self = super().__new__(cls, address)
        self.base = base
        return self

    def get_pointer(self) -> int:
        return int(self)

    def free(self) -> None:
        """PyCUDA's ``gpudata.free()``: accepted; the memory belongs to the GPUArray and is
        given back when that array is collected (cudakit frees nothing an array still
        references)."""

    __reduce_ex__ = _refuse_pickle(
        "it is a device address only this process can use; pickle the GPUArray, which travels "
        "as its values")


class PointerHolderBase:
    """PyCUDA's base for objects that hold device memory allocated elsewhere.

    A subclass defines ``get_pointer()`` (the device address as an int); its
    instances are then accepted wherever a pointer is: kernel arguments,
    memory copies, ``int()``, and ``GPUArray(..., gpudata=holder)``. The
    holder keeps the memory alive; cudakit never frees it.
    """

    def get_pointer(self) -> int:
        raise NotImplementedError(
            f"{type(self).__name__} derives from PointerHolderBase and must define "
            "get_pointer(), returning the device address as an int")

    def __int__(self) -> int:
        return int(self.get_pointer())

    def __index__(self) -> int:
        return int(self.get_pointer())

    def __repr__(self) -> str:
        return f"<{type(self).__name__} at 0x{int(self):x}>"


def mem_alloc_like(array: Any) -> DeviceAllocation:
    """An allocation of ``array.nbytes`` bytes (contents undefined)."""
    return mem_alloc(max(int(array.nbytes), 1))


def _size_argument(value: Any, use: str, name: str) -> int:
    """A byte count or extent given to a driver call: an integer >= 0."""
    try:
        size = operator.index(value)
    except TypeError:
        raise TypeError(f"{use}: {name} must be an integer, got {type(value).__name__} "
                        f"{value!r}") from None
    if size < 0:
        raise ArgumentError(f"{use}: {name} must be in 0..{2**64 - 1}, got {size}")
    return size


def mem_alloc_pitch(width: int, height: int, access_size: int) -> tuple[DeviceAllocation, int]:
    """(allocation, pitch): rows of ``width`` bytes padded to a 512-byte pitch."""
    if access_size not in (4, 8, 16):
        raise ArgumentError("mem_alloc_pitch: access_size must be 4, 8 or 16")
    width = _size_argument(width, "mem_alloc_pitch", "width")
    height = _size_argument(height, "mem_alloc_pitch", "height")
    pitch = (width + 511) // 512 * 512
    return mem_alloc(pitch * height), pitch


def to_device(array: np.ndarray) -> DeviceAllocation:
    """A new allocation holding a copy of ``array`` (any contiguous buffer:
    a numpy array, bytes, ...)."""
    try:
        nbytes = memoryview(array).nbytes
    except TypeError:
        raise ArgumentError(f"to_device: expected a host buffer (a numpy array, bytes, ...), "
                            f"got {type(array).__name__}") from None
    result = mem_alloc(max(nbytes, 1))
    memcpy_htod(result, array)
    return result


def from_device(ptr: Any, shape: int | Iterable[int], dtype: Any, order: str = "C") -> np.ndarray:
    result = np.empty(_as_shape(shape), dtype, order=order)
    memcpy_dtoh(result, ptr)
    return result


def from_device_like(ptr: Any, other: np.ndarray) -> np.ndarray:
    result = np.empty_like(other)
    memcpy_dtoh(result, ptr)
    return result


def bitlog2(value: int) -> int:
    """floor(log2(value)) of a positive int (PyCUDA's _driver.bitlog2)."""
    from .tools import bitlog2 as tools_bitlog2

    return tools_bitlog2(value)
