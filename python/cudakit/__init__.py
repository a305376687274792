"""cudakit: run-time compiled CUDA C from Python.

PyCUDA's API (``cudakit.driver``, ``cudakit.compiler``, ``cudakit.gpuarray``
...) on a checked C++ core. Without a GPU or driver, kernels run on the CPU
backend, selected automatically.
"""

from __future__ import annotations

from . import _core

__version__ = "0.1.0"

__all__ = ["__version__"]
