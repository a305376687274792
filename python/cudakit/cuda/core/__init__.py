"""`numba.cuda.core`'s public modules, as numba-cuda lays them out:
`config` (cudakit.cuda.config) and `errors` (the exceptions a program
catches when a kernel does not compile)."""

from __future__ import annotations

from .. import config  # noqa: F401
from . import errors  # noqa: F401
