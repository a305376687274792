"""The rest of PyCUDA's ``pycuda.driver`` names, over cudakit.driver's calls:
2D memsets, peer copies, pooled allocation types, debugging, profiler
control and the In/Out/InOut base."""

from __future__ import annotations

import operator
from typing import Any

from . import _core

# PyCUDA's In/Out/InOut are ArgumentHandler subclasses; cudakit's three
# return instances of one wrapper class.
ArgumentHandler = _core._HostArg

# Pool blocks are cudakit allocations (from its caching pool).
PooledDeviceAllocation = _core.DeviceAllocation

# pycuda.driver.CUDA_DEBUGGING: set_debugging() was called (or cudakit.debug imported).
CUDA_DEBUGGING = False


def set_debugging(flag: bool = True) -> None:
    """PyCUDA's set_debugging: from now on, SourceModule compiles with
    ``-G -lineinfo`` and every launch waits for its kernel (what ``import
    cudakit.debug`` does, without making a context)."""
    from . import compiler, driver

    compiler._set_debug_compile(bool(flag))
    _core._set_debug(bool(flag))
    driver.CUDA_DEBUGGING = bool(flag)


def _count(value: Any, use: str, name: str) -> int:
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{use}: {name} must be an int, got {type(value).__name__} "
                        f"{value!r}") from None
    if number < 0:
        raise _core.ArgumentError(f"{use}: {name} must be >= 0, got {number}")
    return number


def _memset_2d(bits: int, dest: Any, pitch: Any, value: Any, width: Any, height: Any,
               stream: Any) -> None:
    from . import driver

    use = f"memset_d2d{bits}{'_async' if stream is not None else ''}"
    pitch = _count(pitch, use, "pitch (bytes per row)")
    width = _count(width, use, f"width ({bits}-bit elements per row)")
    height = _count(height, use, "height (rows)")
    if width * bits // 8 > pitch and height > 1:
        raise _core.ArgumentError(f"{use}: a row of width={width} {bits}-bit elements "
                                  f"({width * bits // 8} bytes) is longer than pitch={pitch} "
                                  "bytes; pass the pitch mem_alloc_pitch returned")
    base = int(dest)
    fill = {8: driver.memset_d8, 16: driver.memset_d16, 32: driver.memset_d32}[bits]
    fill_async = {8: driver.memset_d8_async, 16: driver.memset_d16_async,
                  32: driver.memset_d32_async}[bits]
    for row in range(height):
        if stream is None:
            fill(base + row * pitch, value, width)
        else:
            fill_async(base + row * pitch, value, width, stream)


def memset_d2d8(dest: Any, pitch: int, value: int, width: int, height: int) -> None:
    """Sets ``height`` rows of ``width`` bytes, ``pitch`` bytes apart, to ``value``."""
    _memset_2d(8, dest, pitch, value, width, height, None)


def memset_d2d16(dest: Any, pitch: int, value: int, width: int, height: int) -> None:
    """Sets ``height`` rows of ``width`` 16-bit words, ``pitch`` bytes apart."""
    _memset_2d(16, dest, pitch, value, width, height, None)


def memset_d2d32(dest: Any, pitch: int, value: int, width: int, height: int) -> None:
    """Sets ``height`` rows of ``width`` 32-bit words, ``pitch`` bytes apart."""
    _memset_2d(32, dest, pitch, value, width, height, None)


def memset_d2d8_async(dest: Any, pitch: int, value: int, width: int, height: int,
                      stream: Any = None) -> None:
    _memset_2d(8, dest, pitch, value, width, height, stream)


def memset_d2d16_async(dest: Any, pitch: int, value: int, width: int, height: int,
                       stream: Any = None) -> None:
    _memset_2d(16, dest, pitch, value, width, height, stream)


def memset_d2d32_async(dest: Any, pitch: int, value: int, width: int, height: int,
                       stream: Any = None) -> None:
    _memset_2d(32, dest, pitch, value, width, height, stream)


def memcpy_peer(dest: Any, src: Any, size: int, dest_context: Any = None,
                src_context: Any = None) -> None:
    """Copies ``size`` bytes between devices (or within one). With unified
    addressing the contexts are implied by the addresses, so they are
    accepted and not needed."""
    from . import driver

    driver.memcpy_dtod(dest, src, _count(size, "memcpy_peer", "size"))


def memcpy_peer_async(dest: Any, src: Any, size: int, dest_context: Any = None,
                      src_context: Any = None, stream: Any = None) -> None:
    """memcpy_peer on ``stream``."""
    from . import driver

    driver.memcpy_dtod_async(dest, src, _count(size, "memcpy_peer_async", "size"), stream)


def start_profiler() -> None:
    """cuProfilerStart: an external profiler (Nsight Systems with
    --capture-range=cudaProfilerApi) records from here. No effect on the CPU
    backend; cudakit.profiler.profile() is cudakit's own profiler."""
    _profiler_call("start")


def initialize_profiler(config_file: Any, output_file: Any, output_mode: Any) -> None:
    """cuProfilerInitialize, which CUDA 12 removed (the Visual Profiler's
    configuration file went with it): NotSupported with what replaces it."""
    from ._core import NotSupported

    raise NotSupported(
        "initialize_profiler: cuProfilerInitialize was removed in CUDA 12 (with the Visual "
        "Profiler's configuration and output files); there is nothing to initialize.\n"
        "  hint: bracket the region with start_profiler() / stop_profiler() and run under "
        "Nsight Systems (nsys profile --capture-range=cudaProfilerApi ...) or Nsight Compute, "
        "or use cudakit.profiler.profile() for cudakit's own per-launch timings")


def stop_profiler() -> None:
    """cuProfilerStop (see start_profiler)."""
    _profiler_call("stop")


def _profiler_call(which: str) -> None:
    from . import driver

    if driver.backend() != "cuda":
        return  # the CPU backend has no external profiler to start
    import ctypes

    libcuda = ctypes.CDLL("libcuda.so.1")
    function = getattr(libcuda, "cuProfilerStart" if which == "start" else "cuProfilerStop")
    status = function()
    if status != 0:
        raise _core.RuntimeError(f"{which}_profiler: cuProfiler{which.title()} failed with "
                                 f"CUresult {status}")
