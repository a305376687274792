"""PyCUDA's ``pycuda.gpuarray`` on cudakit's device arrays.

``GPUArray`` is bound in C++ over ``cudakit::Array``. Operators do no work
when called: ``a*b + x*y`` builds one fused expression that runs as a single
kernel when the result is first read (``get()``, a reduction, a kernel launch,
printing, ``__cuda_array_interface__``, ...). Results equal those of eager
evaluation: anything that writes into an array's memory first evaluates the
pending results that read it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core, _records
from ._core import (  # noqa: F401  (re-exported)
    GPUArray,
    arange,
    cumsum,
    evaluate_all_pending,
    from_cuda_array_interface,
    from_dlpack,
    if_positive,
    max,
    mean,
    min,
    pending_count,
    prod,
    take,
    where,
)
from ._core.cumath import maximum, minimum  # noqa: F401
from ._multi_take_put import multi_put, multi_take, multi_take_put  # noqa: F401
from ._placement import (  # noqa: F401  (allocator= and stream= honoured there)
    all,
    any,
    concatenate,
    dot,
    empty,
    empty_like,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    ones,
    ones_like,
    stack,
    subset_dot,
    subset_max,
    subset_min,
    subset_sum,
    sum,
    to_gpu,
    to_gpu_async,
    vdot,
    zeros,
    zeros_like,
)
from ._vec import vec  # noqa: F401  (PyCUDA's gpuarray.vec: CUDA vector types)

__all__ = [
    "GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "empty_like",
    "zeros_like", "ones_like", "arange", "take", "if_positive", "maximum", "minimum",
    "sum", "dot", "vdot", "max", "min", "subset_dot", "concatenate", "stack", "where",
    "from_dlpack", "as_gpuarray", "is_gpuarray", "mean", "prod", "cumsum",
    "subset_sum", "subset_max", "subset_min", "logical_and", "logical_or", "logical_not",
    "logical_xor", "full", "multi_take", "multi_put", "multi_take_put",
]


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C") -> GPUArray:
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
    if _records.is_record_dtype(dtype):
        return _records.full(shape, dtype, fill_value, order=order)
    return _core._full(shape, dtype, fill_value, order)


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


def _method(function: Any):
    def method(self: GPUArray, *args: Any, **kwargs: Any) -> GPUArray:
        return function(self, *args, **kwargs)

    method.__name__ = function.__name__
    method.__doc__ = function.__doc__
    return method


# Reductions as methods too (a.sum() is NumPy's spelling; PyCUDA has the functions).
for _function in (sum, max, min, mean, prod, any, all, dot):
    setattr(GPUArray, _function.__name__, _method(_function))


def _mul_add(self: GPUArray, selffac: Any, other: GPUArray, otherfac: Any,
             add_timer: Any = None, stream: Any = None, out: GPUArray | None = None
             ) -> GPUArray:
    """PyCUDA's ``selffac*self + otherfac*other`` (one fused kernel; evaluated
    at once on ``stream`` when one is given)."""
    if add_timer is not None:
        raise TypeError("mul_add: add_timer= is not supported by cudakit; time the call with "
                        "cudakit.driver.Event records around it")
    result = selffac * self + otherfac * other
    if out is None:
        if stream is None:
            return result
        out = empty(result.shape, result.dtype)
    if stream is not None:
        out = _core._on_stream(out, stream)
    out[...] = result
    return out


GPUArray.mul_add = _mul_add  # type: ignore[attr-defined]


# ---- boolean masks (a[mask], a[mask] = value): numpy's boolean indexing -------------

def _host_mask(array: GPUArray, mask: Any) -> np.ndarray:
    """The mask on the host (a bool GPUArray is copied back: the result's
    size depends on its values), checked against the array's leading axes
    with numpy's IndexError."""
    host = mask.get() if isinstance(mask, GPUArray) else np.asarray(mask)
    if host.dtype != np.bool_:
        raise IndexError(f"a boolean mask must be of dtype bool, got {host.dtype}")
    if host.ndim > array.ndim:
        raise IndexError(f"too many indices for array: array is {array.ndim}-dimensional, but "
                         f"the boolean mask is {host.ndim}-dimensional (shape {host.shape})")
    for axis, (extent, mask_extent) in enumerate(zip(array.shape, host.shape)):
        if extent != mask_extent:
            raise IndexError(
                f"boolean index did not match indexed array along axis {axis}; size of axis "
                f"is {extent} but size of corresponding boolean axis is {mask_extent} (mask "
                f"shape {host.shape}, array shape {array.shape})")
    return host


def _mask_positions(array: GPUArray, host: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """The flat positions the mask selects over the axes it covers, and the
    shape of the axes it leaves."""
    return np.flatnonzero(host), tuple(array.shape[host.ndim:])


def _mask_getitem(array: GPUArray, mask: Any) -> GPUArray:
    """``array[mask]``: the selected elements (or rows) in C order, as numpy."""
    host = _host_mask(array, mask)
    positions, rest = _mask_positions(array, host)
    if positions.size == 0:
        return empty((0,) + rest, array.dtype)
    rows = array.reshape((int(np.prod(host.shape, dtype=np.int64)),) + rest)
    return take(rows, to_gpu(positions), axis=0)


def _mask_setitem(array: GPUArray, mask: Any, value: Any) -> None:
    """``array[mask] = value``: a number (or one element) is written where
    the mask is true; an array must broadcast to the selection's shape
    (count, *remaining axes), as in numpy."""
    host = _host_mask(array, mask)
    positions, rest = _mask_positions(array, host)
    selection = (positions.size,) + rest
    if not isinstance(value, GPUArray):
        value = np.asarray(value)
    if value.size == 1:
        # One value (converted as `array[...] = value` converts it), written
        # where the mask is true by one where().
        one = empty((), array.dtype)
        one[...] = value.reshape(())
        condition = to_gpu(host.reshape(host.shape + (1,) * len(rest)))
        array[...] = where(condition, one, array)
        return
    try:
        broadcast = np.broadcast_shapes(tuple(value.shape), selection)
    except ValueError:
        broadcast = None
    if broadcast != selection:
        raise ValueError(f"shape mismatch: value array of shape {tuple(value.shape)} could not "
                         f"be broadcast to indexing result of shape {selection}")
    if positions.size == 0:
        return
    source = empty(selection, array.dtype)
    source[...] = value
    row = int(np.prod(rest, dtype=np.int64))
    element_positions = (positions[:, None] * row + np.arange(row)).ravel()
    target = array if array.flags.c_contiguous else array.copy(order="C")
    multi_put([source.reshape(source.size)], to_gpu(element_positions),
              out=[target.reshape(target.size)])
    if target is not array:
        array[...] = target


def splay(n: int, dev: Any = None) -> tuple[tuple[int, int], tuple[int, int, int]]:
    """PyCUDA's launch shape for ``n`` elements: ((blocks, 1), (threads, 1, 1)),
    a warp to 128 threads a block and up to 4 blocks per resident block slot."""
    from . import driver
    from .tools import DeviceData

    n = int(n)
    if n < 0:
        raise ValueError(f"splay: n must be >= 0 elements, got {n}")
    if dev is None:
        dev = driver.Context.get_device()
    devdata = DeviceData(dev)
    min_threads, max_threads = devdata.warp_size, 128
    max_blocks = 4 * devdata.thread_blocks_per_mp * dev.get_attribute(
        driver.device_attribute.MULTIPROCESSOR_COUNT)
    if n < min_threads:
        block_count, threads_per_block = 1, min_threads
    elif n < max_blocks * min_threads:
        block_count, threads_per_block = (n + min_threads - 1) // min_threads, min_threads
    elif n < max_blocks * max_threads:
        block_count = max_blocks
        groups = (n + min_threads - 1) // min_threads
        threads_per_block = ((groups + max_blocks - 1) // max_blocks) * min_threads
    else:
        block_count, threads_per_block = max_blocks, max_threads
    return (block_count, 1), (threads_per_block, 1, 1)


def transpose(a: GPUArray, axes: Any = None) -> GPUArray:
    """``a.transpose(axes)``: a view with the axes permuted (reversed by default)."""
    return a.transpose(axes)


def reshape(a: GPUArray, *shape: Any, **kwargs: Any) -> GPUArray:
    """``a.reshape(*shape, order=...)``."""
    return a.reshape(*shape, **kwargs)
