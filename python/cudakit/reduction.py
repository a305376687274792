"""PyCUDA's ``pycuda.reduction.ReductionKernel`` on cudakit's generator."""

from __future__ import annotations

from typing import Any, Sequence

from . import _core
from .elementwise import _arguments_text

__all__ = ["ReductionKernel"]


class ReductionKernel:
    """``ReductionKernel(dtype_out, neutral, reduce_expr, map_expr, arguments, ...)``:
    one launch, deterministic; calling it returns a 0-d GPUArray."""

    def __init__(self, dtype_out: Any, neutral: str, reduce_expr: str,
                 map_expr: str | None = None, arguments: str | Sequence[Any] | None = None,
                 name: str = "reduce_kernel", keep: bool = False, options: Any = None,
                 preamble: str = "", allocator: Any = None) -> None:
        if arguments is None:
            raise ValueError("ReductionKernel: arguments is required (e.g. 'const float *in')")
        text = _arguments_text(arguments)
        if map_expr is None:
            first = text.split(",")[0].replace("*", " ").split()[-1]
            map_expr = f"{first}[i]"
        self._kernel = _core._ReductionKernel(dtype_out, str(neutral), reduce_expr, map_expr,
                                              text, name, preamble)

    def __call__(self, *args: Any, stream: Any = None, out: Any = None,
                 **kwargs: Any) -> Any:
        result = self._kernel(args)
        if out is not None:
            out[...] = result
            return out
        return result

    def get_source(self) -> str:
        return self._kernel.source()
