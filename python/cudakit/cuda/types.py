"""`numba.cuda.types` / `numba.types`: the types kernel signatures are
written in (`from cudakit.cuda.types import int32`, `types.void(...)`).

The model itself lives in translate/types.py; this module is its public
face, with `void` (the return type of kernels) added.
"""

from __future__ import annotations

from .api import none, void  # noqa: F401
from .translate.types import *  # noqa: F401,F403
from .translate.types import (  # noqa: F401
    ALIASES, SCALARS, ArrayT, Scalar, Signature, Type, boolean, float32, float64, int8, int16,
    int32, int64, intp, uint8, uint16, uint32, uint64)

b1 = boolean
f4, f8 = float32, float64
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64
