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


__all__ = ["NumbaError", "NumbaInvalidConfigWarning", "NumbaPerformanceWarning",
           "NumbaWarning", "TypingError", "UnsupportedError", "UnsupportedLanguageFeature"]
