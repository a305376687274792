"""PyCUDA's ``pycuda.elementwise.ElementwiseKernel`` on cudakit's generator."""

from __future__ import annotations

import re
from typing import Any, Sequence

from . import _core, _records
from ._pickling import PicklesByArguments
from .compiler import _option_list
from .tools import Argument

__all__ = ["ElementwiseKernel", "VectorArg", "ScalarArg"]


def _c_type(dtype: Any) -> str:
    import numpy as np

    if np.dtype(dtype).kind == "V":  # gpuarray.vec types, registered structs: their C names
        from .tools import dtype_to_ctype

        return dtype_to_ctype(dtype)
    return _core._c_type_name(dtype)


class VectorArg(Argument):
    """A pointer argument (PyCUDA's ``pycuda.tools.VectorArg``)."""

    struct_char = "P"

    def declarator(self) -> str:
        return f"{_c_type(self.dtype)} *{self.name}"


class ScalarArg(VectorArg):
    """A by-value argument (PyCUDA's ``pycuda.tools.ScalarArg``)."""

    def declarator(self) -> str:
        return f"{_c_type(self.dtype)} {self.name}"

    @property
    def struct_char(self) -> str:  # type: ignore[override]
        char = self.dtype.char
        return f"{self.dtype.itemsize}s" if char == "V" else char


def _arguments_text(arguments: str | Sequence[Any]) -> str:
    if isinstance(arguments, str):
        return arguments
    return ", ".join(a.declarator() for a in arguments)


def _keep_source(kind: str, source: str) -> None:
    """PyCUDA's keep=True: the generated source is written to a kept
    directory, whose name is printed."""
    import os
    import tempfile

    directory = tempfile.mkdtemp(prefix="cudakit-keep-")
    with open(os.path.join(directory, "kernel.cu"), "w") as f:
        f.write(source)
    print(f"*** {kind} source in {directory}")


def _with_complex_header(preamble: str, *texts: str) -> str:
    """PyCUDA's elementwise modules include <pycuda-complex.hpp>, so kernels
    use pycuda::complex<T> (dtype_to_ctype's name for complex64/complex128)
    without an #include; cudakit adds it only to kernels that name it
    (pycuda::complex or cudakit::complex, the same type)."""
    if "-complex.hpp" in preamble or not any(re.search(r"\b(pycuda|cudakit)::complex\b", t)
                                              for t in (preamble, *texts)):
        return preamble
    return "#include <pycuda-complex.hpp>\n" + preamble


class ElementwiseKernel(PicklesByArguments):
    """``ElementwiseKernel(arguments, operation, name, keep, options, preamble,
    loop_prep, after_loop)``: ``operation`` runs for every index ``i`` of the
    first array argument (any layout: ``x[i]`` is element i in C order);
    numbers are converted to the declared types. ``loop_prep`` runs once per
    thread before its loop over the indices, ``after_loop`` once after it
    (both may use ``tid``, ``total_threads`` and ``cta_start``, as in PyCUDA;
    variables loop_prep declares are visible in the operation and after_loop).
    Calls take ``range=`` or ``slice=`` (which indices run) and ``stream=``.
    It pickles as its arguments and is compiled again where it is unpickled."""

    _pickle_overrides = {"keep": False}

    def __init__(self, arguments: str | Sequence[Any], operation: str,
                 name: str = "kernel", keep: bool = False, options: Any = None,
                 preamble: str = "", loop_prep: str = "", after_loop: str = "") -> None:
        self.name = name
        arguments_text = _arguments_text(arguments)
        preamble = _with_complex_header(preamble, arguments_text, operation, loop_prep,
                                        after_loop)
        self._kernel = _core._ElementwiseKernel(
            arguments_text, operation, name, preamble,
            _option_list(options, f"ElementwiseKernel {name}"), loop_prep, after_loop)
        if keep:
            _keep_source(f"ElementwiseKernel {name}", self._kernel.source(False))

    def __call__(self, *args: Any, range: slice | None = None, slice: slice | None = None,
                 stream: Any = None, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"ElementwiseKernel {self.name}: unknown keyword arguments "
                            f"{', '.join(sorted(kwargs))} (it takes range=, slice=, stream=)")
        if range is not None and slice is not None:
            raise TypeError(f"ElementwiseKernel {self.name}: give range= or slice=, not both")
        self._kernel(_records.kernel_arguments(args), range, slice, stream)

    def get_source(self, index64: bool = False) -> str:
        return self._kernel.source(index64)


# PyCUDA's kernel builders (pycuda.elementwise.get_*_kernel): each returns a
# prepared Function taking the arguments PyCUDA's does, in its order, with
# the element count n last; launch it with
# ``func.prepared_async_call(grid, block, stream, *args, n)``.
from ._elementwise_kernels import *  # noqa: E402,F401,F403
from ._elementwise_kernels import __all__ as _kernel_builders  # noqa: E402

__all__ += _kernel_builders
