"""``import cudakit.debug``: PyCUDA's debug mode.

From the import on, SourceModule compiles with ``-G -lineinfo`` and every
launch waits for its kernel, so a fault is reported at the launch that made
it and names that kernel. On the CPU backend, kernels build with ``-O0 -g``, and
with AddressSanitizer and UBSan (``CUDAKIT_CPU_DEBUG``) when the process has
the sanitizer runtime loaded: run Python with
``LD_PRELOAD=$(c++ -print-file-name=libasan.so)`` to get them (a sanitized
kernel cannot load into a process without it).
"""

from __future__ import annotations

import os

from . import _core, compiler

compiler._set_debug_compile(True)
_core._set_debug(True)


def _sanitizer_runtime_loaded() -> bool:
    try:
        with open("/proc/self/maps") as maps:
            return "libasan" in maps.read()
    except OSError:
        return False


if _sanitizer_runtime_loaded():
    os.environ.setdefault("CUDAKIT_CPU_DEBUG", "1")

from .autoinit import context, device  # noqa: E402,F401
