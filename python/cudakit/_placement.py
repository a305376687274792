"""Where gpuarray results live: PyCUDA's ``allocator=`` and ``stream=``.

``allocator`` is a callable taking a byte count and returning a
DeviceAllocation-like object (``int()`` is its device address), such as
``cudakit.driver.mem_alloc`` or ``DeviceMemoryPool().allocate``. A function
given one returns an array in that memory; the array keeps the object alive
(``a.allocator`` names the callable) and the ``*_like`` functions use it
again. Scratch memory of a call (a reduction's partial results) still comes
from cudakit's caching pool. Arrays of size 0 call no allocator (as PyCUDA).

``stream`` is a ``cudakit.driver.Stream`` (or a torch / CuPy stream, or a
handle): the call's work runs on it, after the work already queued on the
arrays' own streams; the result's ``stream`` is that stream.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _core, _records
from ._layout import memory_order

__all__ = [
    "empty", "zeros", "ones", "empty_like", "zeros_like", "ones_like", "to_gpu",
    "to_gpu_async", "sum", "dot", "vdot", "subset_dot", "subset_sum", "subset_max",
    "subset_min", "any", "all", "concatenate", "stack", "logical_and", "logical_or",
    "logical_not", "logical_xor",
]

_GPUArray = _core.GPUArray


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _allocated(result: Any, allocator: Any, stream: Any = None) -> Any:
    """``result`` copied into memory from ``allocator`` (itself when None)."""
    if allocator is None:
        return result
    return _core._into_allocated(result, allocator, stream)


# ---- creation -------------------------------------------------------------------

def empty(shape: Any, dtype: Any = np.float64, allocator: Any = None,
          order: str = "C") -> Any:
    """New uninitialised array (PyCUDA's ``gpuarray.empty``); in memory from
    ``allocator(nbytes)`` when one is given."""
    if _records.is_record_dtype(dtype):
        return _records.empty(shape, dtype, allocator, order)
    if allocator is not None:
        return _core._allocate(allocator, _shape(shape), dtype, order)
    return _core._full(shape, dtype, None, order)


def zeros(shape: Any, dtype: Any = np.float64, allocator: Any = None,
          order: str = "C") -> Any:
    if allocator is not None or _records.is_record_dtype(dtype):
        return empty(shape, dtype, allocator, order).fill(0)
    return _core._full(shape, dtype, 0, order)


def ones(shape: Any, dtype: Any = np.float64, allocator: Any = None,
         order: str = "C") -> Any:
    if allocator is not None or _records.is_record_dtype(dtype):
        return empty(shape, dtype, allocator, order).fill(1)
    return _core._full(shape, dtype, 1, order)


def _like_order(other: Any, order: str) -> str:
    return memory_order(other) if order in ("K", "A") else order


def empty_like(other: Any, dtype: Any = None, order: str = "K") -> Any:
    """Same shape (and allocator, as PyCUDA's) as ``other``."""
    return empty(other.shape, other.dtype if dtype is None else dtype,
                 allocator=getattr(other, "allocator", None), order=_like_order(other, order))


def zeros_like(other: Any, dtype: Any = None, order: str = "K") -> Any:
    return zeros(other.shape, other.dtype if dtype is None else dtype,
                 allocator=getattr(other, "allocator", None), order=_like_order(other, order))


def ones_like(other: Any, dtype: Any = None, order: str = "K") -> Any:
    return ones(other.shape, other.dtype if dtype is None else dtype,
                allocator=getattr(other, "allocator", None), order=_like_order(other, order))


def to_gpu(ary: Any, allocator: Any = None, stream: Any = None) -> Any:
    """A device copy of a host array (a Fortran-ordered one stays Fortran-ordered)."""
    if _records.is_record_dtype(getattr(ary, "dtype", None)):
        return _records.to_gpu(ary, allocator, stream)
    if allocator is None:
        return _core.to_gpu(ary, None, stream)
    host = np.asarray(ary)
    out = _core._allocate(allocator, host.shape, host.dtype, memory_order(host), stream)
    out.set(host, stream=stream)
    return out


def to_gpu_async(ary: Any, allocator: Any = None, stream: Any = None) -> Any:
    """As to_gpu, queued on ``stream`` (pass page-locked host memory for overlap)."""
    if _records.is_record_dtype(getattr(ary, "dtype", None)):
        return _records.to_gpu(ary, allocator, stream, async_=True)
    if allocator is None:
        return _core.to_gpu_async(ary, None, stream)
    host = np.asarray(ary)
    out = _core._allocate(allocator, host.shape, host.dtype, memory_order(host), stream)
    out.set_async(host, stream=stream)
    return out


# ---- reductions -----------------------------------------------------------------

def sum(a: Any, dtype: Any = None, stream: Any = None, allocator: Any = None,
        axis: Any = None, keepdims: bool = False) -> Any:
    """Sum (a 0-d GPUArray; along ``axis`` as NumPy's)."""
    return _allocated(_core.sum(a, dtype, stream, axis, keepdims), allocator, stream)


def any(a: Any, stream: Any = None, allocator: Any = None, axis: Any = None,
        keepdims: bool = False) -> Any:
    return _allocated(_core.any(a, None, stream, axis, keepdims), allocator, stream)


def all(a: Any, stream: Any = None, allocator: Any = None, axis: Any = None,
        keepdims: bool = False) -> Any:
    return _allocated(_core.all(a, None, stream, axis, keepdims), allocator, stream)


def dot(a: Any, b: Any, dtype: Any = None, stream: Any = None, allocator: Any = None) -> Any:
    """Sum of the elementwise product over all elements (PyCUDA's dot)."""
    return _allocated(_core.dot(a, b, dtype, stream), allocator, stream)


def vdot(a: Any, b: Any, dtype: Any = None, stream: Any = None, allocator: Any = None) -> Any:
    return _allocated(_core.vdot(a, b, dtype, stream), allocator, stream)


def subset_dot(subset: Any, a: Any, b: Any, dtype: Any = None, stream: Any = None,
               allocator: Any = None) -> Any:
    """dot(a[subset], b[subset])."""
    return _allocated(_core.subset_dot(subset, a, b, dtype, stream), allocator, stream)


def subset_sum(subset: Any, a: Any, dtype: Any = None, stream: Any = None,
               allocator: Any = None) -> Any:
    """Sum of ``a[subset]`` (one gather, one reduction)."""
    return sum(_core.take(a, subset, None, stream), dtype=dtype, stream=stream,
               allocator=allocator)


def subset_max(subset: Any, a: Any, stream: Any = None) -> Any:
    return _core.max(_core.take(a, subset, None, stream), None, stream)


def subset_min(subset: Any, a: Any, stream: Any = None) -> Any:
    return _core.min(_core.take(a, subset, None, stream), None, stream)


# ---- joining and logical functions ----------------------------------------------

def concatenate(arrays: Sequence[Any], axis: int = 0, allocator: Any = None) -> Any:
    return _allocated(_core.concatenate(arrays, axis), allocator)


def stack(arrays: Sequence[Any], axis: int = 0, allocator: Any = None) -> Any:
    return _allocated(_core.stack(arrays, axis), allocator)


def _logical(function: Any, operands: tuple[Any, ...], out: Any, allocator: Any,
             stream: Any) -> Any:
    if out is None and allocator is not None:
        result = function(*operands, stream, None)
        out = empty(result.shape, result.dtype, allocator)
        if stream is not None:
            out = _core._on_stream(out, stream)
        out[...] = result
        return out
    return function(*operands, stream, out)


def logical_and(x1: Any, x2: Any, /, out: Any = None, *, allocator: Any = None,
                stream: Any = None) -> Any:
    return _logical(_core.cumath.logical_and, (x1, x2), out, allocator, stream)


def logical_or(x1: Any, x2: Any, /, out: Any = None, *, allocator: Any = None,
               stream: Any = None) -> Any:
    return _logical(_core.cumath.logical_or, (x1, x2), out, allocator, stream)


def logical_xor(x1: Any, x2: Any, /, out: Any = None, *, allocator: Any = None,
                stream: Any = None) -> Any:
    return _logical(_core.cumath.logical_xor, (x1, x2), out, allocator, stream)


def logical_not(x: Any, /, out: Any = None, *, allocator: Any = None,
                stream: Any = None) -> Any:
    return _logical(_core.cumath.logical_not, (x,), out, allocator, stream)
