"""`numba.cuda.np.numpy_support`: NumPy dtypes as kernel types and back
(`from_dtype`, `as_dtype`), and `carray` / `farray`: arrays over a raw
pointer (a ctypes pointer on the host; a `CPointer` argument in a kernel).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ..translate import types as t


# (major, minor) of the NumPy in use.
numpy_version = tuple(int(part) for part in np.__version__.split(".")[:2])


def from_dtype(dtype: Any) -> t.Type:
    """The kernel type of a NumPy dtype: a number type, or a record type for
    a structured dtype of numbers at aligned offsets (np.dtype(..., align=True)).
    A TypeError names dtypes kernels do not take (datetime, strings, objects,
    nested records)."""
    try:
        dtype = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(f"from_dtype: {dtype!r} is not a NumPy dtype ({error})") from None
    return t.from_dtype(dtype)


def as_dtype(nbtype: Any) -> np.dtype:
    """The NumPy dtype of a kernel type (numbers, records, and Numba's
    dtype objects such as `types.float32`); NotImplementedError for types
    with no dtype (arrays, tuples)."""
    if isinstance(nbtype, np.dtype):
        return nbtype
    if isinstance(nbtype, t.Scalar):
        return nbtype.dtype
    if isinstance(nbtype, t.RecordT):
        return nbtype.dtype
    if isinstance(nbtype, type) and issubclass(nbtype, np.generic):
        return np.dtype(nbtype)
    raise NotImplementedError(f"{nbtype} cannot be represented as a NumPy dtype")


def _host_carray(ptr: Any, shape: Any, dtype: Any, name: str) -> np.ndarray:
    ptr = getattr(ptr, "_as_parameter_", ptr)
    if dtype is not None:
        dtype = np.dtype(dtype)
    if isinstance(ptr, ctypes.c_void_p):
        if dtype is None:
            raise TypeError(f"{name}: a void* pointer needs an explicit dtype")
        address = ptr.value
    elif isinstance(ptr, ctypes._Pointer):
        pointed = np.dtype(ptr._type_)
        if dtype is not None and dtype != pointed:
            raise TypeError(f"{name}: dtype {dtype} does not match the pointer's {pointed}")
        dtype = pointed
        address = ctypes.cast(ptr, ctypes.c_void_p).value
    else:
        raise TypeError(f"{name}: expected a ctypes pointer, got {ptr!r} (in a kernel, "
                        "pass the address as a CPointer argument)")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    count = int(np.prod(shape, dtype=np.int64))
    if address is None and count:
        raise ValueError(f"{name}: a NULL pointer for {count} elements")
    buffer = (ctypes.c_byte * (count * dtype.itemsize)).from_address(address or 0)
    return np.frombuffer(buffer, dtype).reshape(shape)


def carray(ptr: Any, shape: Any, dtype: Any = None) -> np.ndarray:
    """A C-ordered NumPy array of `shape` over the memory a ctypes pointer
    points to (no copy). In a kernel, `ptr` is a CPointer argument and the
    result an array over that device memory."""
    return _host_carray(ptr, shape, dtype, "carray")


def farray(ptr: Any, shape: Any, dtype: Any = None) -> np.ndarray:
    """As carray, in Fortran order."""
    if not isinstance(shape, (int, np.integer)):
        shape = tuple(shape)[::-1]
    return _host_carray(ptr, shape, dtype, "farray").T


__all__ = ["as_dtype", "carray", "farray", "from_dtype", "numpy_version"]
