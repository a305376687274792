"""NumPy's ufuncs on GPUArrays (NEP 13 ``__array_ufunc__``).

``np.exp(a)``, ``np.add(a, 2, out=b)``, ``a < np.float32(1)``, ``np.isnan(a)``,
``np.add.reduce(a, axis=1)`` and ``a @ b`` run on the device through the
operators and ``cumath`` (pending fused expressions, as those are) and give
GPUArrays. Nothing is copied between host and device implicitly, as in CuPy:
a numpy array among the operands (other than a 0-d one, which is a scalar)
raises TypeError saying to copy it with ``to_gpu`` first; a ufunc or ufunc
method without a device implementation raises TypeError saying to call
``.get()`` first. Another array type (a Dask array, ...) is handed its turn
(NotImplemented).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from . import _core

_GPUArray = _core.GPUArray
_cumath = _core.cumath

# Binary ufuncs that are operators: (method when a GPUArray is first, its
# reflection when the GPUArray is second).
_OPERATORS = {
    "add": ("__add__", "__radd__"), "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"), "divide": ("__truediv__", "__rtruediv__"),
    "floor_divide": ("__floordiv__", "__rfloordiv__"), "remainder": ("__mod__", "__rmod__"),
    "power": ("__pow__", "__rpow__"), "bitwise_and": ("__and__", "__rand__"),
    "bitwise_or": ("__or__", "__ror__"), "bitwise_xor": ("__xor__", "__rxor__"),
    "left_shift": ("__lshift__", "__rlshift__"), "right_shift": ("__rshift__", "__rrshift__"),
    "equal": ("__eq__", "__eq__"), "not_equal": ("__ne__", "__ne__"),
    "less": ("__lt__", "__gt__"), "less_equal": ("__le__", "__ge__"),
    "greater": ("__gt__", "__lt__"), "greater_equal": ("__ge__", "__le__"),
}
_UNARY_OPERATORS = {"negative": "__neg__", "positive": "__pos__", "invert": "__invert__"}
# numpy's name -> cumath's, where they differ.
_CUMATH_NAMES = {
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
    "arccosh": "acosh", "arctanh": "atanh", "arctan2": "atan2", "conjugate": "conj",
}
_CUMATH = {
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos",
    "tan", "sinh", "cosh", "tanh", "fabs", "ceil", "floor", "trunc", "rint", "sign", "isnan",
    "isinf", "isfinite", "absolute", "hypot", "copysign", "fmod", "fmin", "fmax", "maximum",
    "minimum", "logical_and", "logical_or", "logical_xor", "logical_not", "ldexp",
    *_CUMATH_NAMES,
}
# ufunc.reduce -> the reduction of cudakit.gpuarray.
_REDUCTIONS = {
    "add": _core.sum, "multiply": _core.prod, "maximum": _core.max, "minimum": _core.min,
    "logical_and": _core.all, "logical_or": _core.any,
}
# Keyword arguments accepted with numpy's default values only.
_DEFAULT_KWARGS = {"casting": "same_kind", "order": "K", "subok": True, "where": True}


def refuse_host_array(name: str, value: np.ndarray) -> TypeError:
    return TypeError(
        f"numpy.{name}: an operand is a numpy.ndarray (host memory, shape {value.shape}, "
        f"dtype {value.dtype}) mixed with GPUArrays; cudakit copies no host array to the "
        "device implicitly (as CuPy): pass cudakit.gpuarray.to_gpu(x) instead, or call "
        ".get() on the GPUArrays to compute on the host")


def refuse_function(name: str, what: str = "") -> TypeError:
    return TypeError(
        f"numpy.{name}{what} has no cudakit device implementation for GPUArrays, and cudakit "
        "copies nothing to the host implicitly: call .get() on the GPUArrays first (numpy "
        "arrays on the host), or use cudakit.gpuarray / cudakit.cumath")


def device_operand(name: str, value: Any) -> Any:
    """A GPUArray or a scalar for ``value`` (a 0-d numpy array is a scalar;
    CuPy / torch arrays are viewed without a copy); TypeError for host arrays."""
    if isinstance(value, (_GPUArray, numbers.Number, np.generic)):
        return value
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return value[()]
        raise refuse_host_array(name, value)
    if hasattr(value, "__cuda_array_interface__"):
        return _core.from_cuda_array_interface(value)
    raise TypeError(f"numpy.{name}: an operand of type {type(value).__name__} cannot be used "
                    "with GPUArrays; pass GPUArrays or numbers")


def _foreign(values: Any) -> bool:
    """Whether an operand is another array type with its own __array_ufunc__."""
    return any(not isinstance(v, (_GPUArray, np.ndarray, np.generic))
               and getattr(type(v), "__array_ufunc__", None) is not None for v in values)


def _apply(name: str, operands: list[Any], out: Any) -> Any:
    if name in _OPERATORS:
        forward, reflected = _OPERATORS[name]
        a, b = operands
        result = getattr(a, forward)(b) if isinstance(a, _GPUArray) else getattr(b, reflected)(a)
    elif name in _UNARY_OPERATORS:
        result = getattr(operands[0], _UNARY_OPERATORS[name])()
    elif name == "matmul":
        result = matmul(*operands)
    elif name == "square":
        result = operands[0] * operands[0]
    elif name == "reciprocal":
        if operands[0].dtype.kind not in "fc":
            raise refuse_function(name, " of an integer GPUArray")
        result = 1 / operands[0]
    elif name in _CUMATH:
        return getattr(_cumath, _CUMATH_NAMES.get(name, name))(*operands, None, out)
    else:
        raise refuse_function(name)
    if out is None:
        return result
    out[...] = result
    return out


def _call(ufunc: np.ufunc, inputs: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> Any:
    name = ufunc.__name__
    dtype = kwargs.pop("dtype", None)
    operands = [device_operand(name, x) for x in inputs]
    if dtype is not None:
        dtype = np.dtype(dtype)
        operands = [x.astype(dtype) if isinstance(x, _GPUArray) else dtype.type(x)
                    for x in operands]
    if not any(isinstance(x, _GPUArray) for x in operands):
        # Only out= is on the device: the value is computed from the scalars.
        out[...] = ufunc(*operands)
        return out
    return _apply(name, operands, out)


def _reduce(ufunc: np.ufunc, inputs: tuple[Any, ...], kwargs: dict[str, Any],
            out: Any) -> Any:
    reduction = _REDUCTIONS.get(ufunc.__name__)
    if reduction is None:
        raise refuse_function(f"{ufunc.__name__}.reduce")
    if kwargs.pop("initial", np._NoValue) is not np._NoValue:
        raise TypeError(f"numpy.{ufunc.__name__}.reduce: initial= is not supported on GPUArrays")
    (a,) = inputs
    axis = kwargs.pop("axis", 0)
    dtype = kwargs.pop("dtype", None)
    keepdims = bool(kwargs.pop("keepdims", False))
    if reduction in (_core.max, _core.min, _core.all, _core.any) and dtype is not None:
        a, dtype = a.astype(dtype), None
    result = reduction(device_operand(ufunc.__name__, a), dtype, None, axis, keepdims)
    if out is None:
        return result
    out[...] = result
    return out


def _accumulate(ufunc: np.ufunc, inputs: tuple[Any, ...], kwargs: dict[str, Any],
                out: Any) -> Any:
    if ufunc.__name__ != "add":
        raise refuse_function(f"{ufunc.__name__}.accumulate")
    (a,) = inputs
    dtype = kwargs.pop("dtype", None)
    if dtype is not None:
        a = a.astype(dtype)
    result = _core.cumsum(a, kwargs.pop("axis", 0))
    if out is None:
        return result
    out[...] = result
    return out


_METHODS = {"__call__": _call, "reduce": _reduce, "accumulate": _accumulate}


def array_ufunc(self: Any, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """NEP 13: numpy's ufuncs on GPUArrays, computed on the device."""
    out = kwargs.pop("out", None)
    outs = out if isinstance(out, tuple) else (() if out is None else (out,))
    if _foreign(inputs + outs):
        return NotImplemented
    name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
    if method not in _METHODS:
        raise refuse_function(name)
    if len(outs) > 1:
        raise refuse_function(name, f" with {len(outs)} outputs")
    if outs and not isinstance(outs[0], _GPUArray):
        if isinstance(outs[0], np.ndarray):
            raise TypeError(f"numpy.{name}: out= is a numpy.ndarray (host memory); give a "
                            "GPUArray, or call .get() on the result")
        raise TypeError(f"numpy.{name}: out= must be a GPUArray, got {type(outs[0]).__name__}")
    for key, default in _DEFAULT_KWARGS.items():
        if key not in kwargs:
            continue
        value = kwargs.pop(key)
        if key == "casting":
            continue  # results are cast as the operators cast them
        if not (value is default or (isinstance(value, (str, bool)) and value == default)):
            raise TypeError(f"numpy.{name}: {key}= is not supported on GPUArrays (only numpy's "
                            f"default, {default!r})")
    allowed = {"dtype"} | ({"axis", "keepdims", "initial"} if method != "__call__" else set())
    unsupported = set(kwargs) - allowed
    if unsupported:
        raise TypeError(f"numpy.{name}: {', '.join(sorted(unsupported))}= not supported on "
                        "GPUArrays")
    return _METHODS[method](ufunc, inputs, kwargs, outs[0] if outs else None)


def matmul(a: Any, b: Any) -> Any:
    """numpy.matmul of GPUArrays (batched over equal leading axes beyond 3-D)."""
    if not isinstance(a, _GPUArray) or not isinstance(b, _GPUArray):
        raise TypeError("numpy.matmul: both operands must be arrays (a scalar operand is not "
                        "allowed, as in numpy)")
    if a.ndim <= 3 and b.ndim <= 3:
        return _core._matmul(a, b)
    if a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
        raise TypeError(f"numpy.matmul: GPUArrays of more than 3 dimensions must have equal "
                        f"leading (batch) axes, got shapes {a.shape} and {b.shape}")
    batch = a.shape[:-2]
    flat = _core._matmul(a.reshape((-1,) + a.shape[-2:]), b.reshape((-1,) + b.shape[-2:]))
    return flat.reshape(batch + flat.shape[-2:])


def install() -> None:
    _GPUArray.__array_ufunc__ = array_ufunc
    _GPUArray.__matmul__ = lambda a, b: matmul(a, b) if isinstance(b, _GPUArray) \
        else NotImplemented
    _GPUArray.__rmatmul__ = lambda b, a: matmul(a, b) if isinstance(a, _GPUArray) \
        else NotImplemented


install()
