"""PyCUDA's ``pycuda.reduction.ReductionKernel`` on cudakit's generator."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _core, _records
from ._pickling import PicklesByArguments
from .compiler import _option_list
from ._struct_reduction import StructReductionKernel
from .elementwise import _arguments_text, _keep_source
from .tools import dtype_to_ctype

__all__ = ["ReductionKernel"]  # and the get_* builders, below


def _defines_from_options(options: Any, what: str) -> str:
    """nvcc-style options of a generated reduction or scan: ``-DNAME[=VALUE]``
    become #defines; others are refused (these kernels compile with cudakit's
    own options)."""
    lines = []
    for option in _option_list(options, what):
        if option.startswith("-D") and len(option) > 2:
            name, _, value = option[2:].partition("=")
            lines.append(f"#define {name} {value}".rstrip())
        else:
            raise TypeError(f"{what}: option {option!r} is not supported (only -DNAME[=VALUE]); "
                            "ElementwiseKernel and SourceModule take every option")
    return "".join(line + "\n" for line in lines)


class ReductionKernel(PicklesByArguments):
    """``ReductionKernel(dtype_out, neutral, reduce_expr, map_expr, arguments, ...)``:
    one launch, deterministic; calling it returns a 0-d GPUArray. A struct
    ``dtype_out`` (registered with ``cudakit.tools.get_or_register_dtype``)
    returns a ``StructResult`` whose ``get()`` is the 0-d structured value.

    ``map_expr`` may use every argument (``"x[i]*y[i]"``); without one it is
    the first argument's ``[i]``. A call takes ``stream=`` (the reduction
    runs there, after the work queued on the arrays' streams), ``out=`` (a
    GPUArray written with the result) and ``allocator=`` (the result's memory,
    as ``allocator=`` at construction). It pickles as its arguments (less
    ``allocator=``, a memory pool of this process) and is compiled again
    where it is unpickled."""

    _pickle_overrides = {"keep": False, "allocator": None}

    def __init__(self, dtype_out: Any, neutral: Any, reduce_expr: str,
                 map_expr: str | None = None, arguments: str | Sequence[Any] | None = None,
                 name: str = "reduce_kernel", keep: bool = False, options: Any = None,
                 preamble: str = "", allocator: Any = None) -> None:
        if arguments is None:
            raise ValueError("ReductionKernel: arguments is required (e.g. 'const float *in')")
        self.dtype_out = np.dtype(dtype_out)
        text = _arguments_text(arguments)
        if map_expr is None:
            first = text.split(",")[0].replace("*", " ").split()[-1]
            map_expr = f"{first}[i]"
        preamble = _defines_from_options(options, f"ReductionKernel {name}") + preamble
        self._allocator = allocator
        self._struct: StructReductionKernel | None = None
        if self.dtype_out.fields is not None:
            # A struct result (PyCUDA's struct reductions): a kernel of its own.
            self._struct = StructReductionKernel(
                self.dtype_out, dtype_to_ctype(self.dtype_out), str(neutral), reduce_expr,
                map_expr, text, name, preamble)
            source = self._struct.source
        else:
            self._kernel = _core._ReductionKernel(self.dtype_out, str(neutral), reduce_expr,
                                                  map_expr, text, name, preamble)
            source = self._kernel.source()
        if keep:
            _keep_source(f"ReductionKernel {name}", source)

    def __call__(self, *args: Any, stream: Any = None, out: Any = None,
                 allocator: Any = None, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError("ReductionKernel: unknown keyword arguments "
                            f"{', '.join(sorted(kwargs))} (it takes stream=, out=, allocator=)")
        allocator = allocator if allocator is not None else self._allocator
        args = _records.kernel_arguments(args)
        if self._struct is not None:
            if out is not None:
                raise TypeError("ReductionKernel: out= is not supported for a struct dtype_out "
                                "(GPUArrays hold numbers); use the returned StructResult")
            return self._struct(args, stream, allocator)
        result = self._kernel(args, stream)
        if out is not None:
            if np.dtype(out.dtype) != self.dtype_out:
                raise ValueError(f"ReductionKernel: out is {out.dtype}, the result "
                                 f"{self.dtype_out}")
            if stream is not None:
                _core._on_stream(out, stream)[...] = result
            else:
                out[...] = result
            return out
        if allocator is not None:
            return _core._into_allocated(result, allocator, stream)
        return result

    def get_source(self) -> str:
        if self._struct is not None:
            return self._struct.source
        return self._kernel.source()


from ._reduction_kernels import *  # noqa: E402,F401,F403
from ._reduction_kernels import __all__ as _kernel_builders  # noqa: E402
from ._two_stage_reduction import *  # noqa: E402,F401,F403
from ._two_stage_reduction import __all__ as _module_builders  # noqa: E402

__all__ += _kernel_builders + _module_builders
