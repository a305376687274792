"""NumPy's functions on GPUArrays (NEP 18 ``__array_function__``).

``np.sum(a, axis=0)``, ``np.concatenate([a, b])``, ``np.where(c, a, 0)``,
``np.dot(a, b)``, ``np.zeros_like(a)``... run on the device and give
GPUArrays (a reduction over all axes gives a 0-d GPUArray, as CuPy's does).
A numpy function without a device implementation here raises TypeError
naming it and saying to call ``.get()`` first: nothing is copied to the host
implicitly. ``np.asarray(x, like=a)`` (and the other creation functions with
``like=``) is the explicit way to make a device array from host data.
"""

from __future__ import annotations

import builtins
from typing import Any, Callable

import numpy as np

from . import _core, _placement
from ._numpy_ufuncs import device_operand, matmul, refuse_function, refuse_host_array

_GPUArray = _core.GPUArray
_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {}
_UNSET: Any = np._NoValue


def _implements(*functions: Callable[..., Any]) -> Callable[[Any], Any]:
    def register(implementation: Any) -> Any:
        for function in functions:
            _FUNCTIONS[function] = implementation
        return implementation
    return register


def _refuse_options(name: str, **options: Any) -> None:
    """TypeError for numpy options given a value the device version lacks
    (None and numpy's no-value marker mean not given)."""
    for key, value in options.items():
        if value is not None and value is not _UNSET:
            raise TypeError(f"numpy.{name}: {key}= is not supported on GPUArrays")


def _device_arrays(name: str, arrays: Any) -> list[Any]:
    result = []
    for x in arrays:
        x = device_operand(name, x)
        if not isinstance(x, _GPUArray):
            raise TypeError(f"numpy.{name}: every array must be a GPUArray, got a "
                            f"{type(x).__name__} scalar")
        result.append(x)
    return result


def _into(out: Any, result: Any, name: str) -> Any:
    if out is None:
        return result
    if not isinstance(out, _GPUArray):
        if isinstance(out, np.ndarray):
            raise refuse_host_array(name, out)
        raise TypeError(f"numpy.{name}: out= must be a GPUArray, got {type(out).__name__}")
    out[...] = result
    return out


# ---- reductions -----------------------------------------------------------------

def _reduction(name: str, reduce: Callable[..., Any], takes_dtype: bool) -> Any:
    def reduction(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                  keepdims: bool = False, initial: Any = _UNSET, where: Any = _UNSET) -> Any:
        _refuse_options(name, initial=initial, where=None if where is True else where)
        a = device_operand(name, a)
        if dtype is not None and not takes_dtype:
            a, dtype = a.astype(dtype), None
        return _into(out, reduce(a, dtype, None, axis, bool(keepdims)), name)

    reduction.__name__ = name
    return reduction


for _function, _reduce, _takes_dtype in (
        (np.sum, _core.sum, True), (np.prod, _core.prod, True), (np.mean, _core.mean, True),
        (np.max, _core.max, False), (np.min, _core.min, False), (np.all, _core.all, False),
        (np.any, _core.any, False)):
    _implements(_function)(_reduction(_function.__name__, _reduce, _takes_dtype))
_FUNCTIONS[np.amax] = _FUNCTIONS[np.max]
_FUNCTIONS[np.amin] = _FUNCTIONS[np.min]


def _spread(name: str, reduce: Callable[..., Any]) -> Any:
    def spread(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
               keepdims: bool = False, *, where: Any = _UNSET, mean: Any = _UNSET,
               correction: Any = _UNSET) -> Any:
        _refuse_options(name, where=None if where is True else where, mean=mean)
        if correction is not _UNSET:
            ddof = correction
        return _into(out, reduce(device_operand(name, a), dtype, None, axis, bool(keepdims),
                                 int(ddof)), name)

    spread.__name__ = name
    return spread


_FUNCTIONS[np.var] = _spread("var", _core._var)
_FUNCTIONS[np.std] = _spread("std", _core._std)


def _nan_reduction(name: str, reduce: Callable[..., Any], fill: Any) -> Any:
    """numpy.nanREDUCTION: NaNs replaced by ``fill`` (the reduction's identity)
    first; a slice of NaNs only gives NaN for nanmax / nanmin / nanmean."""
    def reduction(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                  keepdims: bool = False, initial: Any = _UNSET, where: Any = _UNSET) -> Any:
        _refuse_options(name, initial=initial, where=None if where is True else where)
        a = device_operand(name, a)
        if a.dtype.kind not in "fc":
            return _FUNCTIONS[reduce](a, axis, dtype, out, keepdims)
        nan = _core.cumath.isnan(a)
        value = fill(a.dtype) if callable(fill) else fill
        result = _FUNCTIONS[reduce](_core.where(nan, value, a), axis, dtype, None, keepdims)
        if reduce in (np.max, np.min, np.mean):
            if reduce is np.mean:
                count = _core.sum(~nan, np.int64, None, axis, bool(keepdims))
                result = _core.sum(_core.where(nan, 0, a), dtype, None, axis,
                                   bool(keepdims)) / count
                result = result.astype(a.dtype if dtype is None else dtype)
            else:
                result = _core.where(_core.all(nan, None, None, axis, bool(keepdims)),
                                     np.nan, result)
        return _into(out, result, name)

    reduction.__name__ = name
    return reduction


for _name, _reduce, _fill in (
        ("nansum", np.sum, 0), ("nanprod", np.prod, 1), ("nanmean", np.mean, 0),
        ("nanmax", np.max, lambda dtype: -np.inf), ("nanmin", np.min, lambda dtype: np.inf)):
    _FUNCTIONS[getattr(np, _name)] = _nan_reduction(_name, _reduce, _fill)


@_implements(np.cumsum)
def _cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    a = device_operand("cumsum", a)
    if dtype is not None:
        a = a.astype(dtype)
    return _into(out, _core.cumsum(a, axis), "cumsum")


# ---- products ---------------------------------------------------------------------

@_implements(np.dot)
def _dot(a: Any, b: Any, out: Any = None) -> Any:
    a, b = device_operand("dot", a), device_operand("dot", b)
    if not isinstance(a, _GPUArray) or not isinstance(b, _GPUArray) or a.ndim == 0 or \
            b.ndim == 0:
        return _into(out, a * b, "dot")
    if a.ndim == 1 and b.ndim == 1:
        if a.shape != b.shape:
            raise ValueError(f"shapes {a.shape} and {b.shape} not aligned")
        result = _core.dot(a, b)
    elif b.ndim <= 2:
        result = _matmul_rows(a, b)
    else:
        result = _tensordot(a, b, ((a.ndim - 1,), (b.ndim - 2,)))
    return _into(out, result, "dot")


def _matmul_rows(a: Any, b: Any) -> Any:
    """a @ b with a's leading axes taken as rows (numpy.dot for a 1-D or 2-D b)."""
    if a.ndim <= 2:
        return matmul(a, b)
    flat = matmul(a.reshape((-1, a.shape[-1])), b)
    return flat.reshape(a.shape[:-1] + b.shape[1:])


@_implements(np.vdot)
def _vdot(a: Any, b: Any) -> Any:
    return _core.vdot(device_operand("vdot", a), device_operand("vdot", b))


@_implements(np.tensordot)
def _tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """numpy.tensordot: the summed axes moved together, then one matmul."""
    a, b = _device_arrays("tensordot", (a, b))
    if isinstance(axes, (int, np.integer)):
        axes_a = tuple(range(a.ndim - int(axes), a.ndim))
        axes_b = tuple(range(int(axes)))
    else:
        axes_a, axes_b = axes
        axes_a = (axes_a,) if isinstance(axes_a, (int, np.integer)) else tuple(axes_a)
        axes_b = (axes_b,) if isinstance(axes_b, (int, np.integer)) else tuple(axes_b)
    axes_a = tuple(int(i) % builtins.max(a.ndim, 1) for i in axes_a)
    axes_b = tuple(int(i) % builtins.max(b.ndim, 1) for i in axes_b)
    if len(axes_a) != len(axes_b) or any(a.shape[i] != b.shape[j]
                                         for i, j in zip(axes_a, axes_b)):
        raise ValueError(f"shape-mismatch for sum: axes {axes_a} of {a.shape} and {axes_b} "
                         f"of {b.shape}")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    inner = int(np.prod([a.shape[i] for i in axes_a], dtype=np.int64))
    left = a.transpose(free_a + list(axes_a)).reshape((-1, inner))
    right = b.transpose(list(axes_b) + free_b).reshape((inner, -1))
    shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return matmul(left, right).reshape(shape)


# ---- joining, selection -----------------------------------------------------------

def _joined(name: str, join: Callable[..., Any]) -> Any:
    def joined(arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
               casting: Any = None) -> Any:
        arrays = _device_arrays(name, arrays)
        if dtype is not None:
            arrays = [x.astype(dtype) for x in arrays]
        if axis is None and name == "concatenate":
            arrays, axis = [x.reshape(x.size) for x in arrays], 0
        return _into(out, join(arrays, axis), name)

    joined.__name__ = name
    return joined


_FUNCTIONS[np.concatenate] = _joined("concatenate", _core.concatenate)
_FUNCTIONS[np.stack] = _joined("stack", _core.stack)


@_implements(np.where)
def _where(condition: Any, x: Any = None, y: Any = None) -> Any:
    if x is None and y is None:
        raise refuse_function("where", " with only a condition (numpy.nonzero: a result "
                              "whose size depends on the values)")
    return _core.where(device_operand("where", condition), device_operand("where", x),
                       device_operand("where", y))


@_implements(np.clip)
def _clip(a: Any, a_min: Any = _UNSET, a_max: Any = _UNSET, out: Any = None, *,
          min: Any = _UNSET, max: Any = _UNSET, **kwargs: Any) -> Any:
    _refuse_options("clip", **kwargs)
    low = min if a_min is _UNSET else a_min
    high = max if a_max is _UNSET else a_max
    result = device_operand("clip", a)
    if low is not _UNSET and low is not None:
        result = _core.cumath.maximum(result, device_operand("clip", low))
    if high is not _UNSET and high is not None:
        result = _core.cumath.minimum(result, device_operand("clip", high))
    return _into(out, result, "clip")


@_implements(np.take)
def _take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> Any:
    """numpy.take; host indices (a numpy array or list) are copied to the
    device: they are an index, not the data (CuPy and Dask do the same)."""
    if mode != "raise":
        raise TypeError("numpy.take: mode= other than 'raise' is not supported on GPUArrays")
    if not isinstance(indices, _GPUArray):
        indices = _placement.to_gpu(np.asarray(indices, dtype=np.int64))
    return _core.take(device_operand("take", a), indices, out, None, axis)


@_implements(np.round, np.around)
def _round(a: Any, decimals: int = 0, out: Any = None) -> Any:
    a = device_operand("round", a)
    if a.dtype.kind in "iub":
        return _into(out, a.copy(), "round")
    if decimals == 0:
        return _into(out, _core.cumath.rint(a), "round")
    scale = 10.0 ** decimals
    return _into(out, _core.cumath.rint(a * scale) / scale, "round")


# ---- shape and layout -------------------------------------------------------------

@_implements(np.reshape)
def _reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None,
             copy: Any = None) -> Any:
    shape = newshape if shape is None else shape
    result = device_operand("reshape", a).reshape(shape, order=order)
    return result.copy() if copy else result


@_implements(np.transpose)
def _transpose(a: Any, axes: Any = None) -> Any:
    return device_operand("transpose", a).transpose(axes)


@_implements(np.swapaxes)
def _swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    return device_operand("swapaxes", a).swapaxes(axis1, axis2)


@_implements(np.moveaxis)
def _moveaxis(a: Any, source: Any, destination: Any) -> Any:
    a = device_operand("moveaxis", a)
    source = np.atleast_1d(source).tolist()
    destination = np.atleast_1d(destination).tolist()
    source = [int(s) % a.ndim for s in source]
    destination = [int(d) % a.ndim for d in destination]
    order = [n for n in range(a.ndim) if n not in source]
    for d, s in sorted(zip(destination, source)):
        order.insert(d, s)
    return a.transpose(order)


@_implements(np.ravel)
def _ravel(a: Any, order: str = "C") -> Any:
    return device_operand("ravel", a).ravel(order)


@_implements(np.squeeze)
def _squeeze(a: Any, axis: Any = None) -> Any:
    a = device_operand("squeeze", a)
    if axis is None or isinstance(axis, (int, np.integer)):
        return a.squeeze(axis)
    axes = {int(x) % a.ndim for x in axis}
    for x in axes:
        if a.shape[x] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal "
                             "to one")
    return a.reshape(tuple(n for i, n in enumerate(a.shape) if i not in axes))


@_implements(np.expand_dims)
def _expand_dims(a: Any, axis: Any) -> Any:
    a = device_operand("expand_dims", a)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    ndim = a.ndim + len(axes)
    axes = sorted(int(x) % ndim for x in axes)
    shape = list(a.shape)
    for x in axes:
        shape.insert(x, 1)
    return a.reshape(tuple(shape))


@_implements(np.broadcast_to)
def _broadcast_to(array: Any, shape: Any, subok: bool = False) -> Any:
    """A copy with the broadcast shape (numpy gives a read-only view)."""
    array = device_operand("broadcast_to", array)
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if np.broadcast_shapes(tuple(array.shape), shape) != shape:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {array.shape} and requested shape {shape}")
    out = _placement.empty(shape, array.dtype)
    out[...] = array
    return out


@_implements(np.shape)
def _shape(a: Any) -> tuple[int, ...]:
    return tuple(a.shape)


@_implements(np.ndim)
def _ndim(a: Any) -> int:
    return int(a.ndim)


@_implements(np.size)
def _size(a: Any, axis: Any = None) -> int:
    return int(a.size) if axis is None else int(a.shape[axis])


@_implements(np.result_type)
def _result_type(*arrays_and_dtypes: Any) -> np.dtype:
    return np.result_type(*(x.dtype if isinstance(x, _GPUArray) else x
                            for x in arrays_and_dtypes))


# ---- copies and new arrays --------------------------------------------------------

@_implements(np.copy)
def _copy(a: Any, order: str = "K", subok: bool = False) -> Any:
    return device_operand("copy", a).copy(order)


# np.astype is NumPy 2.1's (older NumPy spells it a.astype, which works already).
@_implements(*[f for f in (getattr(np, "astype", None),) if f is not None])
def _astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    _refuse_options("astype", device=device)
    x = device_operand("astype", x)
    if not copy and x.dtype == np.dtype(dtype):
        return x
    return x.astype(dtype)


def _like(name: str, make: Callable[..., Any]) -> Any:
    def like(prototype: Any, dtype: Any = None, order: str = "K", subok: bool = True,
             shape: Any = None, *, device: Any = None) -> Any:
        _refuse_options(name, device=device)
        prototype = device_operand(name, prototype)
        if shape is not None:
            prototype, order = _ShapeOf(shape, prototype), "C"
        return make(prototype, dtype, order)

    like.__name__ = name
    return like


class _ShapeOf:
    """What the *_like functions read from a prototype: shape and dtype."""

    def __init__(self, shape: Any, prototype: Any) -> None:
        self.shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
        self.dtype = prototype.dtype
        self.allocator = getattr(prototype, "allocator", None)


_FUNCTIONS[np.empty_like] = _like("empty_like", _placement.empty_like)
_FUNCTIONS[np.zeros_like] = _like("zeros_like", _placement.zeros_like)
_FUNCTIONS[np.ones_like] = _like("ones_like", _placement.ones_like)


@_implements(np.full_like)
def _full_like(a: Any, fill_value: Any, dtype: Any = None, order: str = "K", subok: bool = True,
               shape: Any = None, *, device: Any = None) -> Any:
    out = _FUNCTIONS[np.empty_like](a, dtype, order, subok, shape, device=device)
    out.fill(fill_value)
    return out


# Creation functions with like=a GPUArray: numpy hands them here without `like`.
@_implements(np.asarray, np.array, np.asanyarray, np.ascontiguousarray)
def _asarray(a: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> Any:
    if isinstance(a, _GPUArray):
        return a if dtype is None or a.dtype == np.dtype(dtype) else a.astype(dtype)
    return _placement.to_gpu(np.asarray(a, dtype=dtype))


@_implements(np.empty)
def _empty(shape: Any, dtype: Any = float, order: str = "C", **kwargs: Any) -> Any:
    return _placement.empty(shape, dtype, order=order)


@_implements(np.zeros)
def _zeros(shape: Any, dtype: Any = float, order: str = "C", **kwargs: Any) -> Any:
    return _placement.zeros(shape, dtype, order=order)


@_implements(np.ones)
def _ones(shape: Any, dtype: Any = None, order: str = "C", **kwargs: Any) -> Any:
    return _placement.ones(shape, float if dtype is None else dtype, order=order)


@_implements(np.full)
def _full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C",
          **kwargs: Any) -> Any:
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
    return _core._full(shape, dtype, fill_value, order)


@_implements(np.arange)
def _arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None,
            **kwargs: Any) -> Any:
    return _placement.to_gpu(np.arange(start, stop, step, dtype=dtype))


# ---- the protocol -----------------------------------------------------------------

def array_function(self: Any, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    """NEP 18: numpy functions on GPUArrays, computed on the device."""
    if not builtins.all(issubclass(t, (_GPUArray, np.ndarray)) for t in types):
        return NotImplemented  # another array type (a Dask array, ...) takes it
    implementation = _FUNCTIONS.get(func)
    if implementation is None:
        module = getattr(func, "__module__", "numpy") or "numpy"
        prefix = "" if module == "numpy" else module.removeprefix("numpy.") + "."
        raise refuse_function(prefix + getattr(func, "__name__", repr(func)))
    return implementation(*args, **kwargs)


def array(self: Any, dtype: Any = None, copy: Any = None) -> Any:
    raise TypeError(
        "implicit conversion of a GPUArray to a numpy array is not allowed (it would copy "
        f"device memory of shape {self.shape} to the host silently): call .get() for a "
        "numpy copy")


def install() -> None:
    _GPUArray.__array_function__ = array_function
    _GPUArray.__array__ = array
    # Dask picks the chunk type of a result by it (CuPy's is 100 too).
    _GPUArray.__array_priority__ = 100


install()
