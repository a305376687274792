"""cudakit: run-time compiled CUDA C from Python.

PyCUDA's API (``cudakit.driver``, ``cudakit.compiler``, ``cudakit.gpuarray``
...) on a checked C++ core. Without a GPU or driver, kernels run on the CPU
backend, selected automatically.
"""

from __future__ import annotations

from . import _core, _pickling  # noqa: F401  (_pickling: how cudakit's objects pickle)
# numpy's functions and ufuncs on GPUArrays (np.sum(a), np.exp(a), ...), on the device.
from . import _numpy_functions, _numpy_ufuncs  # noqa: F401,E402

__version__ = "0.1.0"

__all__ = ["__version__"]


def __getattr__(name: str) -> object:
    # `from cudakit import vectorize, guvectorize` (Numba's top-level
    # spellings, target='cuda'), without importing cudakit.cuda up front.
    if name in ("vectorize", "guvectorize"):
        from . import cuda
        return getattr(cuda, name)
    raise AttributeError(f"module 'cudakit' has no attribute {name!r}")
