"""``import cudakit.debug``: PyCUDA's debug mode.

From the import on, SourceModule compiles with ``-G -lineinfo`` and every
launch waits for its kernel, so a fault is reported at the launch that made
it and names that kernel. On the CPU backend, kernels compiled from then on
build with AddressSanitizer and UBSan where the process can load them
(``CUDAKIT_CPU_DEBUG``), else with ``-O0 -g``.
"""

from __future__ import annotations

import os

from . import _core, compiler

compiler._set_debug_compile(True)
_core._set_debug(True)
os.environ.setdefault("CUDAKIT_CPU_DEBUG", "1")

from .autoinit import context, device  # noqa: E402,F401
