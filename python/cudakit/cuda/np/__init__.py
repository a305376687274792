"""`numba.cuda.np`: NumPy support (numpy_support's dtype mapping)."""

from . import numpy_support  # noqa: F401
