"""PyCUDA's ``multi_take``, ``multi_put`` and ``multi_take_put``: one gather
or scatter through the same index arrays for several arrays of one dtype.

Each array is one ElementwiseKernel launch over the indices (PyCUDA batches
up to 20 through texture references, which cudakit does not have). Unlike
PyCUDA, indices are checked first: an index outside its array is an
IndexError naming it, never a write outside the memory (the check is two
reductions and a host synchronisation per call). New outputs (``out=None``)
start as zeros, where PyCUDA leaves them uninitialised.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _core
from .elementwise import ElementwiseKernel

__all__ = ["multi_take", "multi_put", "multi_take_put"]

_kernels: dict[tuple[Any, ...], ElementwiseKernel] = {}


def _kernel(kind: str, dtype: np.dtype, index_dtype: np.dtype) -> ElementwiseKernel:
    key = (kind, dtype, index_dtype)
    kernel = _kernels.get(key)
    if kernel is None:
        t = _core._c_type_name(dtype)
        it = _core._c_type_name(index_dtype)
        if kind == "take":
            kernel = ElementwiseKernel(f"const {it} *idx, const {t} *src, {t} *dest",
                                       "dest[i] = src[idx[i]]", "cudakit_multi_take")
        elif kind == "put":
            kernel = ElementwiseKernel(f"const {it} *idx, const {t} *src, {t} *dest",
                                       "dest[idx[i]] = src[i]", "cudakit_multi_put")
        else:
            kernel = ElementwiseKernel(
                f"const {it} *dest_idx, const {it} *src_idx, const {t} *src, {t} *dest, "
                "long long src_offset",
                "dest[dest_idx[i]] = src[src_idx[i] + src_offset]", "cudakit_multi_take_put")
        _kernels[key] = kernel
    return kernel


def _single_dtype(arrays: Sequence[Any], what: str) -> np.dtype:
    dtypes = {np.dtype(a.dtype) for a in arrays}
    if len(dtypes) != 1:
        raise TypeError(f"{what}: the arrays must have one dtype, got "
                        f"{', '.join(sorted(str(d) for d in dtypes))}")
    return dtypes.pop()


def _check_indices(indices: Any, what: str) -> None:
    if indices.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {indices.shape}")
    if np.dtype(indices.dtype).kind not in "iu":
        raise TypeError(f"{what} must hold integers, got {indices.dtype}")


def _index_range(indices: Any) -> tuple[int, int]:
    if indices.size == 0:
        return 0, -1
    return int(_core.min(indices).get()), int(_core.max(indices).get())


def _check_bounds(lo: int, hi: int, offset: int, size: int, what: str) -> None:
    if hi < lo:
        return
    if lo + offset < 0 or hi + offset >= size:
        shifted = f" + offset {offset}" if offset else ""
        raise IndexError(f"{what}: indices{shifted} span [{lo + offset}, {hi + offset}], "
                         f"outside the array of {size} elements")


def _outputs(out: Any, count: int, shape: Any, dtype: np.dtype, what: str) -> list[Any]:
    from .gpuarray import zeros

    if out is None:
        if shape is None:
            raise ValueError(f"{what}: give dest_shape= (or out=) for the outputs")
        return [zeros(shape, dtype) for _ in range(count)]
    out = list(out)
    if len(out) != count:
        raise ValueError(f"{what}: out has {len(out)} arrays, arrays has {count}")
    if _single_dtype(out, what) != dtype:
        raise TypeError(f"{what}: out and arrays must have the same dtype")
    return out


def multi_take(arrays: Sequence[Any], indices: Any, out: Any = None,
               stream: Any = None) -> list[Any]:
    """``out[k][i] = arrays[k][indices[i]]`` for every array k."""
    if not len(arrays):
        return []
    dtype = _single_dtype(arrays, "multi_take")
    _check_indices(indices, "multi_take: indices")
    out = _outputs(out, len(arrays), indices.shape, dtype, "multi_take")
    lo, hi = _index_range(indices)
    for a, o in zip(arrays, out):
        _check_bounds(lo, hi, 0, a.size, "multi_take")
        if o.size != indices.size:
            raise ValueError(f"multi_take: an output has {o.size} elements, the indices "
                             f"{indices.size}")
    kernel = _kernel("take", dtype, np.dtype(indices.dtype))
    for a, o in zip(arrays, out):
        kernel(indices, a, o, stream=stream)
    return out


def multi_put(arrays: Sequence[Any], dest_indices: Any, dest_shape: Any = None,
              out: Any = None, stream: Any = None) -> list[Any]:
    """``out[k][dest_indices[i]] = arrays[k][i]`` for every array k."""
    if not len(arrays):
        return []
    dtype = _single_dtype(arrays, "multi_put")
    _check_indices(dest_indices, "multi_put: dest_indices")
    out = _outputs(out, len(arrays), dest_shape, dtype, "multi_put")
    lo, hi = _index_range(dest_indices)
    for a, o in zip(arrays, out):
        _check_bounds(lo, hi, 0, o.size, "multi_put")
        if a.size < dest_indices.size:
            raise ValueError(f"multi_put: an array has {a.size} elements, fewer than the "
                             f"{dest_indices.size} indices")
    kernel = _kernel("put", dtype, np.dtype(dest_indices.dtype))
    for a, o in zip(arrays, out):
        kernel(dest_indices, a, o, stream=stream)
    return out


def multi_take_put(arrays: Sequence[Any], dest_indices: Any, src_indices: Any,
                   dest_shape: Any = None, out: Any = None, stream: Any = None,
                   src_offsets: Sequence[int] | None = None) -> list[Any]:
    """``out[k][dest_indices[i]] = arrays[k][src_indices[i] + src_offsets[k]]``."""
    if not len(arrays):
        return []
    dtype = _single_dtype(arrays, "multi_take_put")
    if np.dtype(src_indices.dtype) != np.dtype(dest_indices.dtype):
        raise TypeError("multi_take_put: src_indices and dest_indices must have the same dtype")
    _check_indices(src_indices, "multi_take_put: src_indices")
    _check_indices(dest_indices, "multi_take_put: dest_indices")
    if src_indices.shape != dest_indices.shape:
        raise ValueError("multi_take_put: src_indices and dest_indices must have the same shape")
    if src_offsets is None:
        offsets = [0] * len(arrays)
    else:
        offsets = [int(o) for o in src_offsets]
        if len(offsets) != len(arrays):
            raise ValueError("multi_take_put: src_offsets and arrays must have the same length")
    out = _outputs(out, len(arrays), dest_shape, dtype, "multi_take_put")
    src_lo, src_hi = _index_range(src_indices)
    dest_lo, dest_hi = _index_range(dest_indices)
    for a, o, offset in zip(arrays, out, offsets):
        _check_bounds(src_lo, src_hi, offset, a.size, "multi_take_put: source")
        _check_bounds(dest_lo, dest_hi, 0, o.size, "multi_take_put: destination")
    kernel = _kernel("take_put", dtype, np.dtype(src_indices.dtype))
    for a, o, offset in zip(arrays, out, offsets):
        kernel(dest_indices, src_indices, a, o, offset, stream=stream)
    return out
