"""PyCUDA's ``pycuda.curandom`` on cudakit's Philox4x32-10 generator.

A seed gives the same numbers on the GPU and on the CPU backend (element e of a
draw depends only on seed, offset and e). The numbers differ from PyCUDA's
``rand`` (which uses MD5). PyCUDA's cuRAND-device-API generators,
``XORWOWRandomNumberGenerator``, ``MRG32k3aRandomNumberGenerator`` and the
Sobol quasi-random ones, are PyCUDA's own design (``_curand_generators.py``):
one cuRAND state per thread, advanced by ``<curand_kernel.h>`` kernels on
either backend; the Sobol generators' tables come from cuRAND's host library.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from ._core import PhiloxGenerator

from ._curand_generators import (
    MRG32k3aRandomNumberGenerator,
    ScrambledSobol32RandomNumberGenerator,
    ScrambledSobol64RandomNumberGenerator,
    Sobol32RandomNumberGenerator,
    Sobol64RandomNumberGenerator,
    XORWOWRandomNumberGenerator,
    direction_vector_set,
    generate_direction_vectors,
    generate_scramble_constants32,
    generate_scramble_constants64,
    seed_getter_uniform,
    seed_getter_unique,
)
from ._curand_sources import (
    gen_log_template,
    gen_poisson_inplace_template,
    gen_poisson_template,
    gen_template,
    md5_code,
    mrg32k3a_random_source,
    mrg32k3a_skip_ahead_sequence_source,
    random_skip_ahead32_source,
    random_skip_ahead64_source,
    random_source,
    scrambledsobol_random_source,
    sobol_random_source,
    xorwow_random_source,
    xorwow_skip_ahead_sequence_source,
)

__all__ = ["rand", "seed", "PhiloxGenerator", "PhiloxRandomNumberGenerator",
           "get_curand_version", "XORWOWRandomNumberGenerator",
           "MRG32k3aRandomNumberGenerator", "Sobol32RandomNumberGenerator",
           "ScrambledSobol32RandomNumberGenerator", "Sobol64RandomNumberGenerator",
           "ScrambledSobol64RandomNumberGenerator", "direction_vector_set",
           "generate_direction_vectors", "generate_scramble_constants32",
           "generate_scramble_constants64", "seed_getter_uniform",
           "seed_getter_unique", "md5_code", "gen_template", "gen_log_template",
           "gen_poisson_template", "gen_poisson_inplace_template", "random_source",
           "random_skip_ahead32_source", "random_skip_ahead64_source",
           "xorwow_random_source", "xorwow_skip_ahead_sequence_source",
           "mrg32k3a_random_source", "mrg32k3a_skip_ahead_sequence_source",
           "sobol_random_source", "scrambledsobol_random_source"]

# The level of cuRAND's device API that XORWOWRandomNumberGenerator and
# MRG32k3aRandomNumberGenerator provide (log-normal: 4.0, MRG32k3a: 4.1,
# Poisson: 5.0), which PyCUDA's feature checks compare against.
_DEVICE_API_LEVEL = (5, 0, 0)


def get_curand_version() -> tuple[int, int, int]:
    """The version of the cuRAND host library (libcurand) in PyCUDA's form,
    ``(v // 1000, v % 1000 // 10, v % 10)`` of curandGetVersion's ``v``. Where
    libcurand is missing: (5, 0, 0), the level of cuRAND's device API that
    cudakit's XORWOW and MRG32k3a generators provide without it (PyCUDA gates
    log-normal numbers on 4.0, MRG32k3a on 4.1, Poisson numbers on 5.0); the
    Sobol generators need the library (their direction vectors)."""
    try:
        version = _core._curand_version()
    except _core.LibraryNotFound:
        return _DEVICE_API_LEVEL
    return (version // 1000, version % 1000 // 10, version % 10)


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
