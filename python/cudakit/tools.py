"""PyCUDA's ``pycuda.tools``: default context, device data, occupancy, dtypes."""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from . import driver as cuda
from ._vec import VECTOR_CTYPES

__all__ = [
    "DeviceData", "OccupancyRecord", "clear_context_caches", "context_dependent_memoize",
    "dtype_to_ctype", "get_default_device", "make_default_context", "DeviceMemoryPool",
    "PageLockedMemoryPool", "bitlog2", "get_or_register_dtype", "register_dtype",
    "Argument", "VectorArg", "ScalarArg", "parse_c_arg", "get_arg_type", "DebugMemoryPool",
    "PageLockedAllocator", "mark_cuda_test", "init_cuda_context_fixture",
    "context_dependent_memoized_functions", "base_dtype_to_ctype",
]


def bitlog2(value: int) -> int:
    """floor(log2(value)) of a positive int (PyCUDA's pool bin helper)."""
    value = int(value)
    if value <= 0:
        raise ValueError(f"bitlog2: expected a positive int, got {value}")
    return value.bit_length() - 1


def get_default_device(default: int = 0) -> cuda.Device:
    """The device named by ``CUDA_DEVICE``, else ``default``."""
    ordinal = os.environ.get("CUDA_DEVICE")
    if ordinal is None:
        return cuda.Device(default)
    try:
        number = int(ordinal)
    except ValueError:
        raise cuda.ArgumentError(
            f"CUDA_DEVICE={ordinal!r} is not a device number: set it to 0..{cuda.Device.count() - 1}"
        ) from None
    count = cuda.Device.count()
    if not 0 <= number < count:
        raise cuda.ArgumentError(
            f"CUDA_DEVICE={ordinal!r}: there is no device {number} ({count} visible): set it to "
            f"0..{count - 1}")
    return cuda.Device(number)


def make_default_context(ctx_maker: Any = None) -> cuda.Context:
    """The primary context of the default device, pushed (current)."""
    device = get_default_device()
    if ctx_maker is not None:
        return ctx_maker(device)
    return device.make_context()


def clear_context_caches() -> None:
    """Forgets every value memoized by context_dependent_memoize."""
    _memoized.clear()


_memoized: dict[Any, Any] = {}

# PyCUDA's list of the memoized functions (each wrapper is added once).
context_dependent_memoized_functions: list[Any] = []


def context_dependent_memoize(func: Any) -> Any:
    """Memoizes ``func(*args)`` per current device (so per context: cudakit's
    contexts are the primary ones); clear_context_caches() forgets it all."""
    import functools

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = (func, cuda.Context.get_device().ordinal, args, tuple(sorted(kwargs.items())))
        if key not in _memoized:
            _memoized[key] = func(*args, **kwargs)
        return _memoized[key]

    context_dependent_memoized_functions.append(wrapper)
    return wrapper


def mark_cuda_test(inner_f: Any) -> Any:
    """PyCUDA's test decorator: runs the test with the default context
    pushed, pops it and clears the context caches after (pass or fail), and
    marks it ``pytest.mark.cuda`` when pytest is importable."""
    import functools

    @functools.wraps(inner_f)
    def f(*args: Any, **kwargs: Any) -> Any:
        cuda.init()
        ctx = make_default_context()
        try:
            assert isinstance(ctx.get_device().name(), str)
            assert isinstance(ctx.get_device().compute_capability(), tuple)
            assert isinstance(ctx.get_device().get_attributes(), dict)
            return inner_f(*args, **kwargs)
        finally:
            ctx.pop()
            clear_context_caches()
            import gc

            gc.collect()

    try:
        import pytest
    except ImportError:
        return f
    return pytest.mark.cuda(f)


def init_cuda_context_fixture() -> Any:
    """PyCUDA's generator for a pytest fixture: pushes the default context,
    yields, then pops it and clears the context caches. Use it as PyCUDA's
    tests do::

        @pytest.fixture(autouse=True)
        def init_cuda_context():
            yield from init_cuda_context_fixture()
    """
    cuda.init()
    ctx = make_default_context()
    assert isinstance(ctx.get_device().name(), str)
    assert isinstance(ctx.get_device().compute_capability(), tuple)
    assert isinstance(ctx.get_device().get_attributes(), dict)
    yield
    import gc

    ctx.pop()
    clear_context_caches()
    gc.collect()


_CTYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long",
    np.dtype(np.uint64): "unsigned long",
    np.dtype(np.float16): "__half",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.complex64): "pycuda::complex<float>",
    np.dtype(np.complex128): "pycuda::complex<double>",
}


# C names registered for dtypes (struct types of the user's kernels): the
# first name of each dtype is the one dtype_to_ctype gives.
_registered_names: dict[np.dtype, str] = {}
_registered_dtypes: dict[str, np.dtype] = {}


def get_or_register_dtype(c_names: str | Sequence[str], dtype: Any = None) -> np.dtype:
    """PyCUDA's: registers ``dtype`` under the C type names ``c_names`` (so
    ``dtype_to_ctype(dtype)`` gives the first), or with ``dtype=None`` returns
    the dtype registered for them. A name already registered to another dtype
    is a ValueError; an unknown name (dtype=None) a KeyError."""
    names = [c_names] if isinstance(c_names, str) else list(c_names)
    if not names:
        raise ValueError("get_or_register_dtype: give at least one C type name")
    if dtype is None:
        found = {_registered_dtypes[name] for name in names if name in _registered_dtypes}
        missing = [name for name in names if name not in _registered_dtypes]
        if missing:
            raise KeyError(f"get_or_register_dtype: no dtype registered for {missing[0]!r}")
        if len(found) != 1:
            raise ValueError(f"get_or_register_dtype: the names {names} have different dtypes")
        return found.pop()
    dtype = np.dtype(dtype)
    for name in names:
        existing = _registered_dtypes.get(name)
        if existing is not None and existing != dtype:
            raise ValueError(f"get_or_register_dtype: {name!r} is already registered to "
                             f"{existing}, not {dtype}")
    for name in names:
        _registered_dtypes[name] = dtype
    _registered_names.setdefault(dtype, names[0])
    return dtype


def register_dtype(dtype: Any, c_names: str | Sequence[str], alias_ok: bool = False) -> None:
    """PyCUDA's older spelling of ``get_or_register_dtype(c_names, dtype)``.
    A dtype registered under another name is a ValueError unless alias_ok."""
    dtype = np.dtype(dtype)
    names = [c_names] if isinstance(c_names, str) else list(c_names)
    existing = _registered_names.get(dtype)
    if existing is not None and existing not in names and not alias_ok:
        raise ValueError(f"register_dtype: {dtype} is already registered as {existing!r} "
                         "(pass alias_ok=True to add names)")
    get_or_register_dtype(names, dtype)


for _vector_dtype, _vector_name in VECTOR_CTYPES.items():  # gpuarray.vec.float3 -> "float3"
    get_or_register_dtype(_vector_name, _vector_dtype)


def base_dtype_to_ctype(dtype: Any) -> str:
    """PyCUDA's (compyte's) dtype_to_ctype, which tools.dtype_to_ctype wraps."""
    return dtype_to_ctype(dtype)


def dtype_to_ctype(dtype: Any, with_fp_tex_hack: bool = False) -> str:
    """The C type of a numpy dtype ('float' for float32, ..., or the name a
    struct dtype was registered under)."""
    if dtype is None:
        raise cuda.ArgumentError("dtype_to_ctype: dtype may not be None")
    dtype = np.dtype(dtype)
    name = _registered_names.get(dtype)
    if name is not None:
        return name
    try:
        return _CTYPES[dtype]
    except KeyError:
        raise cuda.ArgumentError(
            f"dtype_to_ctype: no C type for {dtype}; register one with "
            "cudakit.tools.get_or_register_dtype(name, dtype)") from None


class Argument:
    """A kernel argument: a dtype and a name (PyCUDA's tools.Argument)."""

    def __init__(self, dtype: Any, name: str) -> None:
        self.dtype = np.dtype(dtype)
        self.name = name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.dtype})"


def __getattr__(name: str) -> Any:
    # VectorArg / ScalarArg live in cudakit.elementwise (which imports this module).
    if name in ("VectorArg", "ScalarArg"):
        from . import elementwise

        return getattr(elementwise, name)
    raise AttributeError(f"module 'cudakit.tools' has no attribute {name!r}")


# C type names numpy dtypes are known by in a declaration (those of _CTYPES
# and the common spellings), for parse_c_arg.
_C_NAME_ALIASES = {
    "char": np.int8, "unsigned": np.uint32, "long int": np.int64, "long long": np.int64,
    "unsigned long long": np.uint64, "unsigned long int": np.uint64, "size_t": np.uintp,
    "ptrdiff_t": np.intp, "half": np.float16, "int8_t": np.int8, "uint8_t": np.uint8,
    "int16_t": np.int16, "uint16_t": np.uint16, "int32_t": np.int32, "uint32_t": np.uint32,
    "int64_t": np.int64, "uint64_t": np.uint64,
}


def _dtype_of_c_name(c_name: str, c_arg: str) -> np.dtype:
    if c_name in _registered_dtypes:
        return _registered_dtypes[c_name]
    for dtype, name in _CTYPES.items():
        if name == c_name:
            return dtype
    if c_name in _C_NAME_ALIASES:
        return np.dtype(_C_NAME_ALIASES[c_name])
    raise ValueError(f"parse_c_arg: unknown C type {c_name!r} in {c_arg!r}; register it with "
                     "cudakit.tools.get_or_register_dtype(name, dtype)")


def parse_c_arg(c_arg: str) -> Any:
    """A C declaration ('float *x', 'const int n', 'double a[]') as a VectorArg
    (pointer or array) or ScalarArg, as PyCUDA's parse_c_arg."""
    import re

    from .elementwise import ScalarArg, VectorArg

    if not isinstance(c_arg, str):
        raise TypeError(f"parse_c_arg: expected a C declaration str such as 'float *x', got "
                        f"{type(c_arg).__name__}")
    text = re.sub(r"\b(const|volatile|__restrict__|restrict)\b", " ", c_arg)
    match = re.search(r"(\**)\s*([_a-zA-Z0-9]+)(\s*\[[ 0-9]*\])*\s*$", text)
    c_name = " ".join(text[:match.start()].split()) if match else ""
    if match is None or not c_name:
        raise ValueError(f"parse_c_arg: could not read the C declaration {c_arg!r} (expected "
                         "'TYPE NAME' or 'TYPE *NAME')")
    arg_class = VectorArg if match.group(1) or match.group(3) is not None else ScalarArg
    return arg_class(_dtype_of_c_name(c_name, c_arg), match.group(2))


def get_arg_type(c_arg: str) -> str:
    """The struct-module character of an argument ('P' for a pointer, the
    dtype's char for a scalar), as Function.prepare takes them."""
    return parse_c_arg(c_arg).struct_char


class DeviceData:
    """Device limits, as PyCUDA's DeviceData (warp size, shared memory, ...)."""

    def __init__(self, dev: cuda.Device | None = None) -> None:
        if dev is None:
            dev = cuda.Context.get_device()
        a = cuda.device_attribute
        self.max_threads = dev.get_attribute(a.MAX_THREADS_PER_BLOCK)
        self.warp_size = dev.get_attribute(a.WARP_SIZE)
        self.warps_per_mp = max(1, dev.get_attribute(a.MAX_THREADS_PER_MULTIPROCESSOR)
                                // max(1, self.warp_size))
        self.thread_blocks_per_mp = dev.get_attribute(a.MAX_BLOCKS_PER_MULTIPROCESSOR) or 32
        self.registers = dev.get_attribute(a.MAX_REGISTERS_PER_BLOCK)
        self.shared_memory = dev.get_attribute(a.MAX_SHARED_MEMORY_PER_BLOCK)
        # Per multiprocessor, for OccupancyRecord (0: no such limit, as on
        # the CPU backend for registers).
        self.registers_per_mp = dev.get_attribute(a.MAX_REGISTERS_PER_MULTIPROCESSOR)
        self.shared_memory_per_mp = dev.get_attribute(a.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
        self.reserved_shared_memory = dev.get_attribute(a.RESERVED_SHARED_MEMORY_PER_BLOCK)
        self.smem_granularity = 32 if dev.compute_capability() >= (2, 0) else 16
        self.smem_alloc_granularity = 128
        self.register_allocation_unit = "warp"

    def align(self, bytes: int, word_size: int = 4) -> int:
        return self._align(bytes, word_size, self.smem_granularity)

    def align_dtype(self, elements: int, dtype_size: int) -> int:
        return self.align_words(elements * dtype_size // 4) * 4 // dtype_size

    def align_words(self, word_size: int) -> int:
        return self._align(word_size, 1, self.smem_granularity)

    @staticmethod
    def _align(value: int, word_size: int, granularity: int) -> int:
        unit = word_size * granularity
        return (value + unit - 1) // unit * unit

    def coalesce(self, thread_count: int) -> int:
        return (thread_count + 15) // 16 * 16

    @staticmethod
    def make_valid_tex_channel_count(size: int) -> int:
        for count in (1, 2, 4):
            if count >= size:
                return count
        raise ValueError(f"no valid texture channel count for {size}")


class OccupancyRecord:
    """Occupancy of a block size, with PyCUDA's fields (tb_per_mp, warps_per_mp,
    occupancy, limited_by).

    Computed with the model of ``Function.occupancy`` (and C++
    ``Kernel::occupancy``): warps, blocks, registers (allocated per warp in
    units of 256, out of the multiprocessor's) and shared memory (with the
    per-block reservation, out of the multiprocessor's) each allow some blocks
    per multiprocessor; the smallest wins, ties going to registers, then shared
    memory, then warps, then blocks. ``limited_by`` keeps PyCUDA's words
    ('regs', 'smem', 'warps', 'device'); ``limiting_resource`` gives
    Function.occupancy's. For a kernel, ``Function.occupancy(threads, shared)``
    asks the device itself and agrees with this record given
    ``registers=function.num_regs``.
    """

    _RESOURCE = {"regs": "registers", "smem": "shared memory",
                 "warps": "threads (warps) per multiprocessor",
                 "device": "blocks per multiprocessor"}

    def __init__(self, devdata: DeviceData, threads: int, shared_mem: int = 0,
                 registers: int = 0) -> None:
        if threads <= 0 or threads > devdata.max_threads:
            raise cuda.ArgumentError(
                f"OccupancyRecord: {threads} threads is not in 1..{devdata.max_threads}, the "
                "device's block size limit")
        if shared_mem < 0 or registers < 0:
            raise cuda.ArgumentError(
                "OccupancyRecord: shared_mem and registers must not be negative "
                f"(got {shared_mem} and {registers})")
        warp = max(1, devdata.warp_size)
        alloc_warps = -(-threads // warp)
        # In tie order: the first of equal limits is the one named.
        limits = []
        if registers > 0 and devdata.registers_per_mp > 0:
            per_warp = -(-registers * warp // 256) * 256
            limits.append((devdata.registers_per_mp // per_warp // alloc_warps, "regs"))
        if shared_mem > 0 and devdata.shared_memory_per_mp > 0:
            limits.append((devdata.shared_memory_per_mp
                           // (shared_mem + devdata.reserved_shared_memory), "smem"))
        limits.append((devdata.warps_per_mp // alloc_warps, "warps"))
        limits.append((devdata.thread_blocks_per_mp, "device"))
        lowest = min(count for count, _ in limits)
        self.tb_per_mp = lowest
        self.limited_by = next(name for count, name in limits if count == lowest)
        self.limiting_resource = self._RESOURCE[self.limited_by]
        self.warps_per_mp = self.tb_per_mp * alloc_warps
        self.occupancy = self.warps_per_mp / devdata.warps_per_mp


# cudakit's pool size classes (MemoryPool::round_size): multiples of 512 B up
# to 1 MiB, multiples of 2 MiB above. Bin n <= 2048 holds blocks of n * 512
# bytes; bin 2048 + m blocks of m * 2 MiB.
_SMALL_GRANULE = 512
_LARGE_THRESHOLD = 1 << 20
_LARGE_GRANULE = 2 << 20
_SMALL_BINS = _LARGE_THRESHOLD // _SMALL_GRANULE


class DeviceMemoryPool:
    """PyCUDA's pool: cudakit's allocations already come from a caching pool.

    ``bin_number`` / ``alloc_size`` describe that pool's size classes (not
    PyCUDA's): a request of ``size`` bytes takes a block of
    ``alloc_size(bin_number(size))`` bytes.
    """

    def allocate(self, size: int) -> cuda.DeviceAllocation:
        return cuda.mem_alloc(size)

    @staticmethod
    def bin_number(size: int) -> int:
        size = int(size)
        if size < 0:
            raise cuda.ArgumentError(f"DeviceMemoryPool.bin_number: negative size {size}")
        if size <= _LARGE_THRESHOLD:
            # An empty request counts in the smallest class, as in PyCUDA
            # (whose bins never have a zero size).
            return max(1, -(-size // _SMALL_GRANULE))
        return _SMALL_BINS + -(-size // _LARGE_GRANULE)

    @staticmethod
    def alloc_size(bin_nr: int) -> int:
        bin_nr = int(bin_nr)
        if bin_nr < 1:
            raise cuda.ArgumentError(
                f"DeviceMemoryPool.alloc_size: bin {bin_nr} does not exist (bins start at 1)")
        if bin_nr <= _SMALL_BINS:
            return bin_nr * _SMALL_GRANULE
        return (bin_nr - _SMALL_BINS) * _LARGE_GRANULE

    def free_held(self) -> None:
        pass

    def stop_holding(self) -> None:
        pass

    held_blocks = 0
    active_blocks = 0


class DebugMemoryPool(DeviceMemoryPool):
    """PyCUDA's DebugMemoryPool: a pool that reports each allocation (its
    size and the device memory left) to ``logfile`` (stdout by default).
    ``interactive`` is accepted; cudakit does not stop to prompt."""

    def __init__(self, interactive: bool = True, logfile: Any = None) -> None:
        import sys

        self.interactive = interactive
        self.logfile = sys.stdout if logfile is None else logfile
        self.last_free, _ = cuda.mem_get_info()

    def allocate(self, size: int) -> cuda.DeviceAllocation:
        result = super().allocate(size)
        free, _ = cuda.mem_get_info()
        print(f"allocation of {size} bytes: {self.last_free - free} bytes fewer free, "
              f"{free} free", file=self.logfile)
        self.last_free = free
        return result


class PageLockedAllocator:
    """PyCUDA's PageLockedAllocator(flags): ``allocate(size)`` gives a
    page-locked host allocation of ``size`` bytes."""

    def __init__(self, flags: int = 0) -> None:
        self.flags = int(flags)

    def allocate(self, size: int) -> Any:
        size = int(size)
        if size < 0:
            raise cuda.ArgumentError(f"PageLockedAllocator.allocate: negative size {size}")
        return cuda.pagelocked_empty(size, np.uint8, mem_flags=self.flags).base

    __call__ = allocate


class PageLockedMemoryPool:
    def allocate(self, shape: Any, dtype: Any, order: str = "C") -> np.ndarray:
        return cuda.pagelocked_empty(shape, dtype, order)

    def free_held(self) -> None:
        pass

    def stop_holding(self) -> None:
        pass
