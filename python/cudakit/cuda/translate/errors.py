"""Errors raised while a Python kernel is typed or translated.

Each names the Python file, line and construct, the way Numba's do, so the
user never sees a C++ compiler message for code they did not write.
"""

from __future__ import annotations

import ast


class TranslationError(Exception):
    """Base: a kernel that cannot be translated to CUDA C++."""

    def __init__(self, message: str, where: "SourceLocation | None" = None,
                 node: ast.AST | None = None) -> None:
        self.message = message
        self.filename = where.filename if where else "<unknown>"
        self.line = where.line_of(node) if where and node is not None else (
            where.first_line if where else 0)
        self.construct = where.snippet(self.line) if where else ""
        text = message
        if where is not None:
            text = f'{message}\n\nFile "{self.filename}", line {self.line}, in {where.function}'
            if self.construct:
                text += f"\n    {self.construct}"
        super().__init__(text)


class TypingError(TranslationError, TypeError):
    """A value whose type cannot be found or an operation on wrong types
    (Numba's numba.core.errors.TypingError); also a TypeError, as a wrong
    argument type to a Python function is."""


class ArgumentValueError(TranslationError, ValueError):
    """An argument of the right kind whose value a construct cannot take
    (where Numba raises ValueError: an alignment that is not a power of 2)."""


class UnsupportedError(TranslationError):
    """A Python construct kernels cannot use (Numba's UnsupportedError)."""


class SourceLocation:
    """Where a function's source lives, to turn AST line numbers into
    file lines and quote the offending line."""

    def __init__(self, filename: str, first_line: int, lines: list[str], function: str) -> None:
        self.filename = filename
        self.first_line = first_line
        self.lines = lines  # the function's source lines, first_line first
        self.function = function

    def line_of(self, node: ast.AST) -> int:
        return getattr(node, "lineno", 1) + self.first_line - 1

    def snippet(self, line: int) -> str:
        index = line - self.first_line
        if 0 <= index < len(self.lines):
            return self.lines[index].strip()
        return ""
