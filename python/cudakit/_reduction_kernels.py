"""PyCUDA's reduction kernel builders (``pycuda.reduction.get_*_kernel``):
each returns a ReductionKernel called as PyCUDA's gpuarray calls it,
``kernel(*arrays, stream=stream)``, giving a 0-d GPUArray."""

from __future__ import annotations

from typing import Any

import numpy as np

from .tools import context_dependent_memoize, dtype_to_ctype

__all__ = ["get_sum_kernel", "get_any_kernel", "get_all_kernel", "get_subset_sum_kernel",
           "get_dot_kernel", "get_subset_dot_kernel", "get_minmax_neutral",
           "get_minmax_kernel", "get_subset_minmax_kernel"]


def _kernel(*args: Any, **kwargs: Any) -> Any:
    from .reduction import ReductionKernel

    return ReductionKernel(*args, **kwargs)


@context_dependent_memoize
def get_sum_kernel(dtype_out: Any, dtype_in: Any) -> Any:
    """sum(in[i]) in dtype_out (dtype_in when None)."""
    dtype_out = dtype_in if dtype_out is None else dtype_out
    return _kernel(dtype_out, "0", "a+b", arguments=f"const {dtype_to_ctype(dtype_in)} *in")


@context_dependent_memoize
def get_any_kernel(dtype_out: Any, dtype_in: Any) -> Any:
    """1 when some in[i] != 0, else 0."""
    dtype_out = dtype_in if dtype_out is None else dtype_out
    return _kernel(dtype_out, "0", "(a != 0) || (b != 0)",
                   arguments=f"const {dtype_to_ctype(dtype_in)} *in")


@context_dependent_memoize
def get_all_kernel(dtype_out: Any, dtype_in: Any) -> Any:
    """1 when every in[i] != 0, else 0."""
    dtype_out = dtype_in if dtype_out is None else dtype_out
    return _kernel(dtype_out, "1", "(a != 0) && (b != 0)",
                   arguments=f"const {dtype_to_ctype(dtype_in)} *in")


@context_dependent_memoize
def get_subset_sum_kernel(dtype_out: Any, dtype_subset: Any, dtype_in: Any) -> Any:
    """sum(in[lookup_tbl[i]]); called as kernel(lookup_tbl, in)."""
    dtype_out = dtype_in if dtype_out is None else dtype_out
    return _kernel(dtype_out, "0", "a+b", map_expr="in[lookup_tbl[i]]",
                   arguments=f"const {dtype_to_ctype(dtype_subset)} *lookup_tbl, "
                             f"const {dtype_to_ctype(dtype_in)} *in")


@context_dependent_memoize
def get_dot_kernel(dtype_out: Any, dtype_a: Any, dtype_b: Any) -> Any:
    """sum(a[i]*b[i]). (PyCUDA's passes keep=True, which only keeps the source.)"""
    return _kernel(dtype_out, neutral="0", reduce_expr="a+b", map_expr="a[i]*b[i]",
                   arguments=f"const {dtype_to_ctype(dtype_a)} *a, "
                             f"const {dtype_to_ctype(dtype_b)} *b")


@context_dependent_memoize
def get_subset_dot_kernel(dtype_out: Any, dtype_subset: Any, dtype_a: Any = None,
                          dtype_b: Any = None) -> Any:
    """sum(a[lookup_tbl[i]]*b[lookup_tbl[i]]); called as kernel(lookup_tbl, a, b)."""
    if dtype_out is None:
        dtype_out = dtype_a
    if dtype_b is None:
        dtype_b = dtype_out if dtype_a is None else dtype_a
    if dtype_a is None:
        dtype_a = dtype_out
    return _kernel(dtype_out, neutral="0", reduce_expr="a+b",
                   map_expr="a[lookup_tbl[i]]*b[lookup_tbl[i]]",
                   arguments=f"const {dtype_to_ctype(dtype_subset)} *lookup_tbl, "
                             f"const {dtype_to_ctype(dtype_a)} *a, "
                             f"const {dtype_to_ctype(dtype_b)} *b")


def get_minmax_neutral(what: str, dtype: Any) -> str:
    """The neutral element of min / max for dtype, as C source."""
    dtype = np.dtype(dtype)
    if what not in ("min", "max"):
        raise ValueError(f"get_minmax_neutral: what must be 'min' or 'max', got {what!r}")
    if issubclass(dtype.type, np.inexact):
        return "MY_INFINITY" if what == "min" else "-MY_INFINITY"
    if dtype.kind not in "iu":
        raise TypeError(f"get_minmax_neutral: no min/max neutral for dtype {dtype}")
    info = np.iinfo(dtype)
    return str(info.max if what == "min" else info.min)


def _minmax_expression(what: str, dtype: np.dtype, use: str) -> str:
    if what not in ("min", "max"):
        raise ValueError(f"{use}: what must be 'min' or 'max', got {what!r}")
    if dtype == np.float64:
        return f"f{what}(a,b)"
    if dtype == np.float32:
        return f"f{what}f(a,b)"
    if dtype.kind in "iu":
        return f"{what}(a,b)"
    raise TypeError(f"{use}: unsupported dtype {dtype} (float32, float64 or an integer type)")


@context_dependent_memoize
def get_minmax_kernel(what: str, dtype: Any) -> Any:
    """min or max of in[i]."""
    dtype = np.dtype(dtype)
    expression = _minmax_expression(what, dtype, "get_minmax_kernel")
    return _kernel(dtype, neutral=get_minmax_neutral(what, dtype), reduce_expr=expression,
                   arguments=f"const {dtype_to_ctype(dtype)} *in",
                   preamble="#define MY_INFINITY (1./0)")


@context_dependent_memoize
def get_subset_minmax_kernel(what: str, dtype: Any, dtype_subset: Any) -> Any:
    """min or max of in[lookup_tbl[i]]; called as kernel(lookup_tbl, in)."""
    dtype = np.dtype(dtype)
    expression = _minmax_expression(what, dtype, "get_subset_minmax_kernel")
    return _kernel(dtype, neutral=get_minmax_neutral(what, dtype), reduce_expr=expression,
                   map_expr="in[lookup_tbl[i]]",
                   arguments=f"const {dtype_to_ctype(dtype_subset)} *lookup_tbl, "
                             f"const {dtype_to_ctype(dtype)} *in",
                   preamble="#define MY_INFINITY (1./0)")
