"""``import cudakit.debug``: PyCUDA's debug mode.

From the import on, SourceModule compiles with ``-G -lineinfo`` and every
launch waits for its kernel, so a fault is reported at the launch that made
it and names that kernel. On the CPU backend, kernels build with ``-O0 -g``, and
with AddressSanitizer and UBSan (``CUDAKIT_CPU_DEBUG``) when the process has
the sanitizer runtime loaded: run Python under ``cudakit run --sanitize``, or
with ``LD_PRELOAD="$(c++ -print-file-name=libasan.so)
$(c++ -print-file-name=libstdc++.so)" ASAN_OPTIONS=detect_leaks=0`` (the C++
runtime too: AddressSanitizer intercepts C++ exceptions only in a library
loaded before it, and Python does not link it); a sanitized kernel cannot
load into a process without the runtime.

``python -m cudakit.debug script.py [args]`` runs a script in this mode, as
``python -m pycuda.debug`` does.
"""

from __future__ import annotations

import os
import runpy
import sys

from . import driver

driver.set_debugging(True)


def _sanitizer_runtime_loaded() -> bool:
    try:
        with open("/proc/self/maps") as maps:
            return "libasan" in maps.read()
    except OSError:
        return False


if _sanitizer_runtime_loaded():
    os.environ.setdefault("CUDAKIT_CPU_DEBUG", "1")

from .autoinit import context, device  # noqa: E402,F401


def _run_script(argv: list[str]) -> None:
    if not argv:
        sys.exit("usage: python -m cudakit.debug SCRIPT.py [ARGS...]: runs SCRIPT with every "
                 "launch checked (-G -lineinfo, a synchronize after each launch)")
    sys.argv = argv
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))  # as `python SCRIPT.py` has it
    runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    _run_script(sys.argv[1:])
