"""cudakit: run-time compiled CUDA C from Python.

PyCUDA's API (``cudakit.driver``, ``cudakit.compiler``, ``cudakit.gpuarray``
...) on a checked C++ core. Without a GPU or driver, kernels run on the CPU
backend, selected automatically.
"""

from __future__ import annotations

from . import _core, _pickling  # noqa: F401  (_pickling: how cudakit's objects pickle)

__version__ = "0.1.0"

__all__ = ["__version__"]


def __getattr__(name: str) -> object:
    # `from cudakit import vectorize, guvectorize` (Numba's top-level
    # spellings, target='cuda'), without importing cudakit.cuda up front.
    if name in ("vectorize", "guvectorize"):
        from . import cuda
        return getattr(cuda, name)
    raise AttributeError(f"module 'cudakit' has no attribute {name!r}")
