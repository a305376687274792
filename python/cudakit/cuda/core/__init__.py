"""`numba.cuda.core`'s public modules, as numba-cuda lays them out:
`config` (cudakit.cuda.config) and `errors` (the exceptions a program
catches when a kernel does not compile)."""

from __future__ import annotations

import sys

from .. import config  # noqa: F401
from . import callconv, errors  # noqa: F401

# `import numba.cuda.core.config` names a module: the same one.
sys.modules.setdefault(__name__ + ".config", config)
