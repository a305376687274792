"""Runs a kernel's Python function in the interpreter, one call per thread
of a 1-d launch, with cuda.grid(1) giving the thread's index: the reference
the translated kernel is compared against."""

from __future__ import annotations

import types
from typing import Any, Callable

import numpy as np


class _ThreadCuda:
    """Stands for the `cuda` module inside the interpreted function."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.index = 0

    def grid(self, ndim: int) -> int:
        assert ndim == 1
        return self.index

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def run_threads(function: Callable[..., Any], threads: int, *args: Any) -> list[Any]:
    """Calls `function` for thread 0 .. threads-1 on copies of the host
    arrays in `args`; returns the arguments after the last call."""
    py_func = getattr(function, "py_func", function)
    fake = _ThreadCuda(py_func.__globals__["cuda"])
    interpreted = types.FunctionType(py_func.__code__, {**py_func.__globals__, "cuda": fake},
                                     py_func.__name__, py_func.__defaults__,
                                     py_func.__closure__)
    host = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    for i in range(threads):
        fake.index = i
        interpreted(*host)
    return host
