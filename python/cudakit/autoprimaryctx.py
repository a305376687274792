"""``import cudakit.autoprimaryctx``: PyCUDA's autoprimaryctx.

Retains the primary context of the device from ``CUDA_DEVICE`` (else device
0), pushes it and exposes it as ``context`` and ``device``; at exit it is
popped and the context caches are cleared. In cudakit every context is the
primary one, so this and ``cudakit.autoinit`` give the same context; this one
does not wait for queued work at exit, as PyCUDA's does not.
"""

from __future__ import annotations

import atexit

from . import driver as cuda
from .tools import clear_context_caches, make_default_context

cuda.init()


def _retain_primary_context(dev: cuda.Device) -> cuda.Context:
    context = dev.retain_primary_context()
    context.push()
    return context


context = make_default_context(_retain_primary_context)
device = context.get_device()


def _finish_up() -> None:
    global context
    if context is not None and cuda.Context.get_current() is context:
        context.pop()
    context = None  # type: ignore[assignment]
    clear_context_caches()


atexit.register(_finish_up)
