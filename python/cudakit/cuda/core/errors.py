"""`numba.cuda.core.errors`: the exceptions of compiling a kernel, under
Numba's names (a program's `except errors.TypingError` catches cudakit's)."""

from __future__ import annotations

from ..dispatcher import NumbaPerformanceWarning
from ..translate.errors import TranslationError, TypingError, UnsupportedError

# Numba's base class of its compile errors, and its name for an unsupported
# construct.
NumbaError = TranslationError
UnsupportedLanguageFeature = UnsupportedError
NumbaWarning = Warning


class NumbaInvalidConfigWarning(UserWarning):
    """Options that do not go together (debug=True with opt=True)."""


def warn_debug_with_opt(stacklevel: int) -> None:
    """numba-cuda's warning for debug=True without opt=False."""
    import warnings
    warnings.warn(NumbaInvalidConfigWarning(
        "debug=True with opt=True is not supported by CUDA: the kernel is compiled "
        "without optimization (pass opt=False with debug=True)"), stacklevel=stacklevel + 1)


__all__ = ["NumbaError", "NumbaInvalidConfigWarning", "NumbaPerformanceWarning",
           "NumbaWarning", "TypingError", "UnsupportedError", "UnsupportedLanguageFeature"]
