"""`numba.cuda.types` / `numba.types`: the types kernel signatures are
written in (`from cudakit.cuda.types import int32`, `types.void(...)`).

The model itself lives in translate/types.py; this module is its public
face, with `void` (the return type of kernels) added.
"""

from __future__ import annotations

from .api import none, void  # noqa: F401
from .translate.types import *  # noqa: F401,F403
from .translate.types import (  # noqa: F401
    ALIASES, SCALARS, ArrayT, RecordT, Scalar, Signature, Type, boolean, complex64, complex128,
    float16, float32, float64, from_dtype, int8, int16, int32, int64, intp, uint8, uint16,
    uint32, uint64)

b1 = boolean
f2, f4, f8 = float16, float32, float64
c8, c16 = complex64, complex128
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64

# Numba's C-style aliases (numba.cuda.types, with NumPy 2: no float_).
bool_ = boolean
char, uchar, byte = int8, uint8, uint8
short, ushort = int16, uint16
intc, uintc = int32, uint32
int_, uint, long_, ulong = int64, uint64, int64, uint64
longlong, ulonglong = int64, uint64
ssize_t, size_t, uintp = int64, uint64, uint64
double = float64
# numba-cuda names float32 `float_` only where NumPy itself still has
# numpy.float_ (before NumPy 2).
if int(__import__("numpy").__version__.split(".")[0]) < 2:
    float_ = float32
