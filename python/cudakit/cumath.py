"""PyCUDA's ``pycuda.cumath``: elementwise math on GPUArrays.

Each function returns a pending fused expression like the operators do, so
``cumath.exp(a) * b + 1`` is one kernel; ``out=`` writes into an existing
array instead. ``stream=`` is accepted for PyCUDA compatibility.
"""

from __future__ import annotations

from ._core.cumath import (  # noqa: F401
    absolute, acos, acosh, asin, asinh, atan, atan2, atanh, cbrt, ceil, conj, copysign,
    cos, cosh, exp, exp2, expm1, fabs, floor, fmax, fmin, fmod, frexp, hypot, imag,
    isfinite, isinf, isnan, ldexp, log, log1p, log2, log10, maximum, minimum, modf, real,
    rint, sign, sin, sinh, sqrt, tan, tanh, trunc,
)

# NumPy spellings.
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
arcsinh, arccosh, arctanh = asinh, acosh, atanh
abs = absolute  # noqa: A001
