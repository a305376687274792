"""PyCUDA's ``pycuda.curandom`` on cudakit's Philox4x32-10 generator.

A seed gives the same numbers on the GPU and on the CPU backend (element e of a
draw depends only on seed, offset and e). The numbers differ from PyCUDA's
(which uses MD5 for ``rand`` and cuRAND's XORWOW / MRG32k3a for generators).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from ._core import PhiloxGenerator

__all__ = ["rand", "seed", "PhiloxGenerator", "PhiloxRandomNumberGenerator",
           "get_curand_version"]


def get_curand_version() -> None:
    """None: cudakit does not use cuRAND. Its generator is Philox4x32-10
    (``PhiloxRandomNumberGenerator``, ``rand``), which gives the same numbers
    on the GPU and on the CPU backend; PyCUDA's cuRAND generator classes
    (XORWOW, MRG32k3a, Sobol) are not provided. PyCUDA returns None in the
    same way when cuRAND is missing, so code that checks the version skips
    those generators."""
    return None


def rand(shape: Any, dtype: Any = np.float32, stream: Any = None) -> Any:
    """Uniform numbers in [0, 1) from the process-wide generator; for an
    integer dtype, integers uniform over the dtype's range (as PyCUDA's)."""
    generator = _core._default_generator()
    kind = np.dtype(dtype).kind
    if kind in "iu":
        info = np.iinfo(dtype)
        low, high = int(info.min), int(info.max)
        if high >= 2**63 - 1:  # the generator's bounds are int64, [low, high)
            high = 2**63 - 1
        return generator.gen_integers(max(low, -(2**63)), high, shape, dtype, stream)
    if kind == "c":
        real = np.finfo(dtype).dtype
        return (generator.gen_uniform(shape, real, stream)
                + 1j * generator.gen_uniform(shape, real, stream)).astype(dtype)
    return generator.gen_uniform(shape, dtype, stream)


def seed(value: int) -> None:
    """Reseeds the process-wide generator (offset back to 0)."""
    _core._seed(value)


class PhiloxRandomNumberGenerator(PhiloxGenerator):
    """PyCUDA-style generator: ``gen_uniform(shape, dtype)``, ``gen_normal``,
    ``gen_log_normal``, ``fill_uniform(ary)``, ``fill_normal(ary)``."""

    def __init__(self, seed: int = 0, seed_getter: Any = None, offset: int = 0) -> None:
        if seed_getter is not None:
            raise TypeError("PhiloxRandomNumberGenerator: seed_getter= (cuRAND's per-thread "
                            "seeds) does not apply to Philox, whose numbers depend on one seed "
                            "and the offset; pass seed=<int> (and offset=)")
        super().__init__(seed)
        if offset:
            self.offset = offset
