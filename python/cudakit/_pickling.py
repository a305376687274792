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
