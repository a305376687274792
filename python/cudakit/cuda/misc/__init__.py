"""`numba.cuda.misc`: `special.literal_unroll`."""

from . import special  # noqa: F401
