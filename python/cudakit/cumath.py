"""PyCUDA's ``pycuda.cumath``: elementwise math on GPUArrays.

Each function returns a pending fused expression like the operators do, so
``cumath.exp(a) * b + 1`` is one kernel; ``out=`` writes into an existing
array instead. ``stream=`` is accepted for PyCUDA compatibility.
"""

from __future__ import annotations

from ._core.cumath import (  # noqa: F401
    absolute, acos, acosh, asin, asinh, atan, atan2, atanh, cbrt, ceil, conj, copysign,
    cos, cosh, exp, exp2, expm1, fabs, floor, fmax, fmin, fmod, frexp, hypot, imag,
    isfinite, isinf, isnan, log, log1p, log2, log10, maximum, minimum, modf, real,
    rint, sign, sin, sinh, sqrt, tan, tanh, trunc,
)

from ._core.cumath import ldexp as _ldexp


def ldexp(significand, exponent, stream=None, out=None):
    """significand * 2**exponent. A floating-point exponent array is truncated
    to int32 first, as PyCUDA's (C's) ldexp does; NumPy refuses it."""
    dtype = getattr(exponent, "dtype", None)
    if dtype is not None and dtype.kind == "f":
        exponent = exponent.astype("int32")
    return _ldexp(significand, exponent, stream, out)


# NumPy spellings.
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
arcsinh, arccosh, arctanh = asinh, acosh, atanh
abs = absolute  # noqa: A001
