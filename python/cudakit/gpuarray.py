"""PyCUDA's ``pycuda.gpuarray`` on cudakit's device arrays.

``GPUArray`` is bound in C++ over ``cudakit::Array``. Operators do no work
when called: ``a*b + x*y`` builds one fused expression that runs as a single
kernel when the result is first read (``get()``, a reduction, a kernel launch,
printing, ``__cuda_array_interface__``, ...). Results equal those of eager
evaluation: anything that writes into an array's memory first evaluates the
pending results that read it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _core
from ._core import (  # noqa: F401  (re-exported)
    GPUArray,
    arange,
    concatenate,
    cumsum,
    dot,
    evaluate_all_pending,
    from_cuda_array_interface,
    from_dlpack,
    if_positive,
    max,
    mean,
    min,
    pending_count,
    prod,
    stack,
    subset_dot,
    sum,
    take,
    to_gpu,
    to_gpu_async,
    vdot,
    where,
)
from ._core.cumath import (  # noqa: F401
    logical_and, logical_not, logical_or, logical_xor, maximum, minimum)
from ._vec import vec  # noqa: F401  (PyCUDA's gpuarray.vec: CUDA vector types)

__all__ = [
    "GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like",
    "zeros_like", "ones_like", "arange", "take", "if_positive", "maximum", "minimum",
    "sum", "dot", "vdot", "max", "min", "subset_dot", "concatenate", "stack", "where",
    "from_dlpack", "as_gpuarray", "is_gpuarray", "mean", "prod", "cumsum",
    "subset_sum", "subset_max", "subset_min", "logical_and", "logical_or", "logical_not",
    "logical_xor", "full",
]


def empty(shape: Any, dtype: Any = np.float64, allocator: Any = None,
          order: str = "C") -> GPUArray:
    """New uninitialised array (PyCUDA's ``gpuarray.empty``)."""
    return _core._full(shape, dtype, None, order)


def zeros(shape: Any, dtype: Any = np.float64, allocator: Any = None,
          order: str = "C") -> GPUArray:
    return _core._full(shape, dtype, 0, order)


def ones(shape: Any, dtype: Any = np.float64, allocator: Any = None,
         order: str = "C") -> GPUArray:
    return _core._full(shape, dtype, 1, order)


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C") -> GPUArray:
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
    return _core._full(shape, dtype, fill_value, order)


def _like_order(other: GPUArray, order: str) -> str:
    if order in ("K", "A"):
        flags = other.flags
        return "F" if flags.f_contiguous and not flags.c_contiguous else "C"
    return order


def empty_like(other: GPUArray, dtype: Any = None, order: str = "K") -> GPUArray:
    return empty(other.shape, other.dtype if dtype is None else dtype,
                 order=_like_order(other, order))


def zeros_like(other: GPUArray, dtype: Any = None, order: str = "K") -> GPUArray:
    return zeros(other.shape, other.dtype if dtype is None else dtype,
                 order=_like_order(other, order))


def ones_like(other: GPUArray, dtype: Any = None, order: str = "K") -> GPUArray:
    return ones(other.shape, other.dtype if dtype is None else dtype,
                order=_like_order(other, order))


def is_gpuarray(obj: Any) -> bool:
    return isinstance(obj, GPUArray)


def as_gpuarray(obj: Any) -> GPUArray:
    """A GPUArray for ``obj`` without a copy where possible: a GPUArray is
    returned as is; a torch tensor / CuPy array is viewed through
    ``__cuda_array_interface__`` or DLPack; a numpy array is copied."""
    if isinstance(obj, GPUArray):
        return obj
    if hasattr(obj, "__cuda_array_interface__"):
        return from_cuda_array_interface(obj)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        return from_dlpack(obj)
    return to_gpu(np.asarray(obj))


def _method(name: str):
    function = getattr(_core, name)

    def method(self: GPUArray, *args: Any, **kwargs: Any) -> GPUArray:
        return function(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = function.__doc__
    return method


# Reductions as methods too (a.sum() is NumPy's spelling; PyCUDA has the functions).
for _name in ("sum", "max", "min", "mean", "prod", "any", "all"):
    setattr(GPUArray, _name, _method(_name))
GPUArray.dot = _method("dot")  # type: ignore[attr-defined]


def _mul_add(self: GPUArray, selffac: Any, other: GPUArray, otherfac: Any,
             add_timer: Any = None, stream: Any = None, out: GPUArray | None = None
             ) -> GPUArray:
    """PyCUDA's ``selffac*self + otherfac*other`` (one fused kernel)."""
    result = selffac * self + otherfac * other
    if out is None:
        return result
    out[...] = result
    return out


def subset_sum(subset: Any, a: GPUArray, dtype: Any = None, stream: Any = None,
               allocator: Any = None) -> GPUArray:
    """Sum of ``a[subset]`` (one gather, one reduction)."""
    return sum(take(a, subset), dtype=dtype)


def subset_max(subset: Any, a: GPUArray, stream: Any = None) -> GPUArray:
    return max(take(a, subset))


def subset_min(subset: Any, a: GPUArray, stream: Any = None) -> GPUArray:
    return min(take(a, subset))


GPUArray.mul_add = _mul_add  # type: ignore[attr-defined]
