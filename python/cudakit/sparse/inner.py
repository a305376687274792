"""Inner products whose result is copied to the host asynchronously
(PyCUDA's ``pycuda.sparse.inner``; ported from PyCUDA 2026.1, MIT license,
Copyright (C) Andreas Kloeckner)."""

from __future__ import annotations

import atexit
from typing import Any

from .. import driver as drv
from .. import gpuarray

STREAM_POOL: list[Any] = []


def get_stream() -> Any:
    """A copy stream: non-blocking (1, CU_STREAM_NON_BLOCKING), so a copy
    waits only for the product it copies (AsyncInnerProduct checks that it
    is done), not for work queued on the null stream since (PyCUDA's is a
    blocking stream, which does)."""
    if STREAM_POOL:
        return STREAM_POOL.pop()
    return drv.Stream(1)


class AsyncInnerProduct:
    """``dot(a, b)`` on the device; ``get_host_result()`` polls: None until
    the value has reached host memory from ``pagelocked_allocator(shape,
    dtype)`` (PyCUDA passes a stream as a third argument, which
    ``pagelocked_empty`` and ``PageLockedMemoryPool.allocate`` take as the
    order; cudakit passes two)."""

    def __init__(self, a: Any, b: Any, pagelocked_allocator: Any) -> None:
        self.gpu_result = gpuarray.dot(a, b)
        self.gpu_finished_evt = drv.Event()
        self.gpu_finished_evt.record()
        self.gpu_finished = False
        self.pagelocked_allocator = pagelocked_allocator

    def get_host_result(self) -> Any:
        if not self.gpu_finished:
            if self.gpu_finished_evt.query():
                self.gpu_finished = True
                self.copy_stream = get_stream()
                self.host_dest = self.pagelocked_allocator(self.gpu_result.shape,
                                                           self.gpu_result.dtype)
                drv.memcpy_dtoh_async(self.host_dest, self.gpu_result.gpudata,
                                      self.copy_stream)
                self.copy_finished_evt = drv.Event()
                self.copy_finished_evt.record(self.copy_stream)
        else:
            if self.copy_finished_evt.query():
                STREAM_POOL.append(self.copy_stream)
                return self.host_dest
        return None


def _at_exit() -> None:
    STREAM_POOL[:] = []


atexit.register(_at_exit)
