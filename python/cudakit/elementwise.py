"""PyCUDA's ``pycuda.elementwise.ElementwiseKernel`` on cudakit's generator."""

from __future__ import annotations

from typing import Any, Sequence

from . import _core

__all__ = ["ElementwiseKernel", "VectorArg", "ScalarArg"]


def _c_type(dtype: Any) -> str:
    return _core._c_type_name(dtype)


class VectorArg:
    """A pointer argument (PyCUDA's ``pycuda.tools.VectorArg``)."""

    def __init__(self, dtype: Any, name: str) -> None:
        import numpy as np

        self.dtype = np.dtype(dtype)
        self.name = name

    def declarator(self) -> str:
        return f"{_c_type(self.dtype)} *{self.name}"


class ScalarArg(VectorArg):
    """A by-value argument (PyCUDA's ``pycuda.tools.ScalarArg``)."""

    def declarator(self) -> str:
        return f"{_c_type(self.dtype)} {self.name}"


def _arguments_text(arguments: str | Sequence[Any]) -> str:
    if isinstance(arguments, str):
        return arguments
    return ", ".join(a.declarator() for a in arguments)


class ElementwiseKernel:
    """``ElementwiseKernel(arguments, operation, name, keep, options, preamble)``:
    ``operation`` runs for every index ``i`` of the first array argument (any
    layout: ``x[i]`` is element i in C order); numbers are converted to the
    declared types. ``loop_prep`` and ``after_loop`` are not supported."""

    def __init__(self, arguments: str | Sequence[Any], operation: str,
                 name: str = "kernel", keep: bool = False, options: Any = None,
                 preamble: str = "", loop_prep: str = "", after_loop: str = "") -> None:
        if loop_prep or after_loop:
            raise NotImplementedError(
                "ElementwiseKernel: loop_prep and after_loop are not supported by cudakit; "
                "put per-thread set-up in the operation and helpers in preamble")
        self.name = name
        self._kernel = _core._ElementwiseKernel(
            _arguments_text(arguments), operation, name, preamble, options)

    def __call__(self, *args: Any, range: slice | None = None, slice: slice | None = None,
                 stream: Any = None, **kwargs: Any) -> None:
        self._kernel(args, range, slice, stream)

    def get_source(self, index64: bool = False) -> str:
        return self._kernel.source(index64)
