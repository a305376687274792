"""Pickling cudakit's objects, so that they travel to other processes (Dask
sends chunks and kernels to its workers this way).

Arrays travel as their values: the host copy is pickled by numpy (with
pickle protocol 5 its buffer goes out of band, without another copy), and
the receiving process copies it to its current device. Kernels travel as
the source and options they were compiled from, and are compiled again (or
taken from the compile cache) on arrival. What only means something in the
process that made it (streams, events, contexts, raw device or page-locked
memory, pointers) is refused with an error that says why.
"""

from __future__ import annotations

import pickle
from typing import Any, Callable

import numpy as np

from . import _core


class NotPicklableError(pickle.PicklingError, TypeError):
    """An object that cannot travel to another process (a TypeError, as
    Python's own "cannot pickle" error, and a pickle.PicklingError)."""


def refuse_pickle(reason: str) -> Callable[[Any, int], Any]:
    """A ``__reduce_ex__`` that refuses, naming the object and `reason`."""

    def __reduce_ex__(self: Any, protocol: int) -> Any:
        cls = type(self)
        raise NotPicklableError(f"cannot pickle a {cls.__module__}.{cls.__qualname__}: "
                                f"{reason}")

    return __reduce_ex__


# ---- kernels built from their constructor's arguments ------------------------------------------

class PicklesByArguments:
    """Pickled as its class called again with the arguments its constructor
    was given (the kernel is generated and compiled again on arrival, or
    taken from the compile cache). ``_pickle_overrides`` names arguments that
    mean nothing in another process and the values used there instead."""

    _pickle_overrides: dict[str, Any] = {}

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        self = super().__new__(cls)
        self._constructor_arguments = (args, kwargs)
        return self

    def __reduce__(self) -> Any:
        import inspect

        args, kwargs = self._constructor_arguments
        if self._pickle_overrides:
            signature = inspect.signature(type(self))
            bound = signature.bind(*args, **kwargs)
            bound.arguments.update({name: value for name, value in self._pickle_overrides.items()
                                    if name in signature.parameters})
            args, kwargs = bound.args, bound.kwargs
        return rebuild_from_arguments, (type(self), args, kwargs)


def rebuild_from_arguments(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return cls(*args, **kwargs)


# ---- arrays --------------------------------------------------------------------------------------

def host_values(values: np.ndarray, fortran: bool) -> np.ndarray:
    """An array's values as numpy pickles them: C-contiguous, or
    F-contiguous when the array was (a strided view pickles as its values)."""
    if fortran:
        return np.asfortranarray(values)
    if values.flags.c_contiguous or values.flags.f_contiguous:
        return values
    return np.ascontiguousarray(values)


def _reduce_gpuarray(self: Any, protocol: int) -> Any:
    flags = self.flags
    return rebuild_gpuarray, (host_values(self.get(), flags.f_contiguous
                                          and not flags.c_contiguous),)


def rebuild_gpuarray(values: np.ndarray) -> Any:
    """A GPUArray of `values` on the current device (the unpickling side)."""
    from .gpuarray import to_gpu

    return to_gpu(values)


_core.GPUArray.__reduce_ex__ = _reduce_gpuarray  # type: ignore[method-assign]

# ---- what cannot travel --------------------------------------------------------------------------

_core.Stream.__reduce_ex__ = refuse_pickle(  # type: ignore[method-assign]
    "a stream belongs to the context of the process that made it; make a new one in the "
    "receiving process (and send the arrays, which pickle as their values)")
_core.Event.__reduce_ex__ = refuse_pickle(  # type: ignore[method-assign]
    "an event belongs to the context of the process that made it; record a new one in the "
    "receiving process")
_core.DeviceAllocation.__reduce_ex__ = refuse_pickle(  # type: ignore[method-assign]
    "it is raw device memory, an address only this process can use; pickle a GPUArray (or "
    "a cuda DeviceNDArray) instead, which travels as its values")
