"""numba.cuda.bf16: the bfloat16 type and CUDA's bfloat16 intrinsics, for use
inside @cuda.jit functions (arithmetic, comparisons, bit casts, conversions
with a rounding mode: see cudakit/cuda/translate/bfloat16.py)."""

from __future__ import annotations

from .translate import types as _types
from .translate.bfloat16 import FUNCTIONS as _FUNCTIONS

bfloat16 = _types.bfloat16
globals().update(_FUNCTIONS)
__all__ = ["bfloat16", *_FUNCTIONS]
