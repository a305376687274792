"""`numba.cuda.utils`: the piece of it that programs read, the running
Python's version (Numba's PYVERSION, to branch on bytecode or syntax
differences)."""

from __future__ import annotations

import sys

PYVERSION: tuple[int, int] = (sys.version_info.major, sys.version_info.minor)
