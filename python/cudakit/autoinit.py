"""``import cudakit.autoinit``: PyCUDA's autoinit.

Makes the device from ``CUDA_DEVICE`` (else device 0) current and exposes it
as ``device`` and its (primary) ``context``; at exit, queued work is finished
first so no kernel still runs while Python tears down.
"""

from __future__ import annotations

import atexit

from . import driver as cuda
from .tools import make_default_context

cuda.init()
context = make_default_context()
device = context.get_device()


def _finish() -> None:
    try:
        cuda.Context.synchronize()
    except cuda.Error:
        pass  # a failed kernel was already reported where it was waited on
    if cuda.Context.get_current() is not None:
        cuda.Context.pop()


atexit.register(_finish)
