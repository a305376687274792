"""PyCUDA's cuRAND-device-API generators (``XORWOWRandomNumberGenerator``,
``MRG32k3aRandomNumberGenerator``): one cuRAND state per GPU thread, kept in
device memory between calls, advanced by SourceModule kernels over
``<curand_kernel.h>``.

The design and the kernels are PyCUDA's (pycuda/curandom.py, MIT license,
Copyright (c) Andreas Kloeckner and contributors). They run on both
backends: NVRTC compiles them on a GPU; on the CPU backend cudakit's own
``<curand_kernel.h>`` gives the GPU's XORWOW and MRG32k3a sequences. The grid
is one block per multiprocessor, so a seed gives the same numbers on two
devices only where their multiprocessor counts (and thread limits) agree.

Differences from PyCUDA: bad arguments are refused with the reason (PyCUDA
writes whatever the kernel makes of them); ``call_skip_ahead`` and
``call_skip_ahead_array`` advance every generator (PyCUDA's advance only the
first block's); the Box-Muller pair kernels are used only where the array's
address allows a 2-element vector store. The Sobol generators read their
direction vectors and scramble constants from cuRAND's host library
(libcurand, loaded on first use; cudakit's own <curand_kernel.h> runs them on
the CPU backend).
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from . import driver as drv
from . import gpuarray as array
from ._curand_sources import (
    gen_log_template,
    gen_poisson_inplace_template,
    gen_poisson_template,
    gen_template,
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

_PREPARE_STACK_BYTES = 1 << 14  # per thread, while the states are prepared (PyCUDA's 16 KiB)

# Built modules, by (source, device ordinal): a second generator of a kind
# reuses the first one's kernels (each keeps its own states).
_modules: dict[tuple[str, int], Any] = {}


def seed_getter_uniform(n: int) -> array.GPUArray:
    """``n`` int32 seeds, all one random value (PyCUDA's seed_getter_uniform)."""
    import random

    return array.empty([n], np.int32).fill(random.randint(0, 2**31 - 1))


def seed_getter_unique(n: int) -> array.GPUArray:
    """``n`` independent random int32 seeds (PyCUDA's seed_getter_unique)."""
    return array.to_gpu(np.random.randint(0, 2**31 - 1, n).astype(np.int32))


def _check_array(data: Any, use: str) -> None:
    if not isinstance(data, array.GPUArray):
        raise TypeError(f"{use}: data must be a GPUArray, got {type(data).__name__}; copy a "
                        "numpy array to the device with gpuarray.to_gpu, or use the gen_* "
                        "methods, which return a new GPUArray")
    if not data.flags.forc:
        raise ValueError(f"{use}: data must be contiguous (a strided view such as a[::2] is "
                         "not); fill a contiguous array and copy it into the view")


def _unsupported_dtype(use: str, dtype: Any, supported: str) -> NotImplementedError:
    return NotImplementedError(f"{use}: dtype {np.dtype(dtype)} is not supported; use {supported}")


def _count(value: Any, use: str, name: str) -> int:
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{use}: {name} must be an integer, got {value!r}") from None
    if number < 0:
        raise ValueError(f"{use}: {name} must be >= 0, got {number}")
    return number


class _RandomNumberGeneratorBase:
    """cuRAND device-API states, one per thread of a grid of one block per
    multiprocessor, and the kernels that draw from them."""

    has_box_muller = True
    # The type of the skip_ahead kernels' counts (a 32-bit Sobol state's: uint32).
    _skip_dtype: Any = np.uint64

    gen_info = [
        ("uniform_int", "unsigned int", ""),
        ("uniform_long", "unsigned long long", ""),
        ("uniform_float", "float", "_uniform"),
        ("uniform_double", "double", "_uniform_double"),
        ("normal_float", "float", "_normal"),
        ("normal_double", "double", "_normal_double"),
        ("normal_float2", "float2", "_normal2"),
        ("normal_double2", "double2", "_normal2_double"),
    ]
    gen_log_info = [
        ("normal_log_float", "float", "float", "_normal"),
        ("normal_log_double", "double", "double", "_normal_double"),
        ("normal_log_float2", "float", "float2", "_normal2"),
        ("normal_log_double2", "double", "double2", "_normal2_double"),
    ]
    gen_poisson_info = [("poisson_int", "unsigned int", "")]
    gen_poisson_inplace_info = [
        ("poisson_inplace_float", "float", ""),
        ("poisson_inplace_double", "double", ""),
        ("poisson_inplace_int", "unsigned int", ""),
    ]

    def __init__(self, state_type: str, vector_type: str, generator_bits: int,
                 additional_source: str, scramble_type: str | None = None) -> None:
        from .compiler import SourceModule

        dev = drv.Context.get_device()
        self.block_count = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
        # As PyCUDA: the pair (Box-Muller) kernels only where the state has them.
        gen_info = [g for g in self.gen_info if self.has_box_muller or "2" not in g[1]]
        gen_log_info = [g for g in self.gen_log_info if self.has_box_muller or "2" not in g[2]]
        sources = [gen_template % {"name": name, "out_type": out_type, "suffix": suffix,
                                   "state_type": state_type}
                   for name, out_type, suffix in gen_info]
        sources += [gen_log_template % {"name": name, "in_type": in_type, "out_type": out_type,
                                        "suffix": suffix, "state_type": state_type}
                    for name, in_type, out_type, suffix in gen_log_info]
        sources += [gen_poisson_template % {"name": name, "out_type": out_type,
                                            "suffix": suffix, "state_type": state_type}
                    for name, out_type, suffix in self.gen_poisson_info]
        sources += [gen_poisson_inplace_template % {"name": name, "inout_type": inout_type,
                                                    "suffix": suffix, "state_type": state_type}
                    for name, inout_type, suffix in self.gen_poisson_inplace_info]
        source = (random_source + additional_source) % {
            "state_type": state_type, "vector_type": vector_type,
            "scramble_type": scramble_type, "generators": "\n".join(sources)}
        key = (source, int(dev.ordinal))
        module = _modules.get(key)
        if module is None:
            module = _modules[key] = SourceModule(source, no_extern_c=True)
        self.module = module

        self.generators: dict[str, Any] = {}
        for name, _out_type, _suffix in gen_info:
            self.generators[name] = module.get_function(name).prepare("PPn")
        for name, in_type, _out_type, _suffix in gen_log_info:
            self.generators[name] = module.get_function(name).prepare(
                "PPffn" if in_type == "float" else "PPddn")
        for name, _out_type, _suffix in self.gen_poisson_info:
            self.generators[name] = module.get_function(name).prepare("PPdn")
        for name, _inout_type, _suffix in self.gen_poisson_inplace_info:
            self.generators[name] = module.get_function(name).prepare("PPn")

        self.generator_bits = generator_bits
        self._prepare_skipahead()
        self.state_type = state_type
        self._state: Any = None
        self._generators_per_block: int | None = None

    def _prepare_skipahead(self) -> None:
        self.skip_ahead = self.module.get_function("skip_ahead").prepare(
            "PnI" if self.generator_bits == 32 else "PnQ")
        self.skip_ahead_array = self.module.get_function("skip_ahead_array").prepare("PnP")

    def _kernels(self) -> list[Any]:
        return [*self.generators.values(), self.skip_ahead, self.skip_ahead_array]

    @property
    def generators_per_block(self) -> int:
        if self._generators_per_block is None:
            self._generators_per_block = min(k.max_threads_per_block for k in self._kernels())
        return self._generators_per_block

    @property
    def generator_count(self) -> int:
        """How many generators (cuRAND states) there are: one per thread."""
        return self.block_count * self.generators_per_block

    @property
    def state(self) -> Any:
        """The device memory of the generators' states."""
        if self._state is None:
            from .characterize import sizeof

            self._state = drv.mem_alloc(
                self.generator_count * sizeof(self.state_type, "#include <curand_kernel.h>"))
        return self._state

    def _launch(self, func: Any, stream: Any, *args: Any) -> None:
        func.prepared_async_call((self.block_count, 1), (self.generators_per_block, 1, 1),
                                 stream, self.state, *args)

    def _pairs(self, data: Any, func_name: str) -> tuple[str, int]:
        """The kernel name and element count: the Box-Muller pair kernel
        (two numbers per state step, as PyCUDA) for an even size whose address
        allows a 2-element vector store."""
        size = data.size
        if (self.has_box_muller and size % 2 == 0
                and int(data.gpudata) % (2 * data.dtype.itemsize) == 0):
            return func_name + "2", size // 2
        return func_name, size

    def fill_uniform(self, data: Any, stream: Any = None) -> None:
        """Fills ``data`` with uniform numbers: floats in (0, 1]; for int32 /
        uint32, 32 random bits."""
        _check_array(data, "fill_uniform")
        if data.dtype == np.float32:
            func = self.generators["uniform_float"]
        elif data.dtype == np.float64:
            func = self.generators["uniform_double"]
        elif data.dtype in (np.int32, np.uint32):
            func = self.generators["uniform_int"]
        elif data.dtype in (np.int64, np.uint64) and self.generator_bits >= 64:
            func = self.generators["uniform_long"]
        else:
            raise _unsupported_dtype("fill_uniform", data.dtype,
                                     "float32, float64, int32 or uint32")
        self._launch(func, stream, data.gpudata, data.size)

    def fill_normal(self, data: Any, stream: Any = None) -> None:
        """Fills ``data`` with standard normal numbers (float32 or float64)."""
        _check_array(data, "fill_normal")
        if data.dtype == np.float32:
            func_name = "normal_float"
        elif data.dtype == np.float64:
            func_name = "normal_double"
        else:
            raise _unsupported_dtype("fill_normal", data.dtype, "float32 or float64")
        func_name, size = self._pairs(data, func_name)
        self._launch(self.generators[func_name], stream, data.gpudata, size)

    def gen_uniform(self, shape: Any, dtype: Any, stream: Any = None) -> Any:
        result = array.empty(shape, dtype)
        self.fill_uniform(result, stream)
        return result

    def gen_normal(self, shape: Any, dtype: Any, stream: Any = None) -> Any:
        result = array.empty(shape, dtype)
        self.fill_normal(result, stream)
        return result

    def fill_log_normal(self, data: Any, mean: float, stddev: float, stream: Any = None) -> None:
        """Fills ``data`` with exp(N(mean, stddev)) numbers (float32 or float64)."""
        _check_array(data, "fill_log_normal")
        if data.dtype == np.float32:
            func_name = "normal_log_float"
        elif data.dtype == np.float64:
            func_name = "normal_log_double"
        else:
            raise _unsupported_dtype("fill_log_normal", data.dtype, "float32 or float64")
        func_name, size = self._pairs(data, func_name)
        self._launch(self.generators[func_name], stream, data.gpudata, mean, stddev, size)

    def gen_log_normal(self, shape: Any, dtype: Any, mean: float, stddev: float,
                       stream: Any = None) -> Any:
        result = array.empty(shape, dtype)
        self.fill_log_normal(result, mean, stddev, stream)
        return result

    def fill_poisson(self, data: Any, lambda_value: float | None = None,
                     stream: Any = None) -> None:
        """Fills uint32 ``data`` with Poisson numbers of mean ``lambda_value``;
        with no lambda_value, replaces each element by a Poisson number whose
        mean is the element (float32, float64 or uint32)."""
        _check_array(data, "fill_poisson")
        if lambda_value is None:
            names = {np.dtype(np.float32): "poisson_inplace_float",
                     np.dtype(np.float64): "poisson_inplace_double",
                     np.dtype(np.uint32): "poisson_inplace_int"}
            if data.dtype not in names:
                raise _unsupported_dtype("fill_poisson (in place, lambda_value=None)",
                                         data.dtype, "float32, float64 or uint32")
            self._launch(self.generators[names[data.dtype]], stream, data.gpudata, data.size)
            return
        if data.dtype != np.uint32:
            raise _unsupported_dtype("fill_poisson", data.dtype, "uint32")
        if not float(lambda_value) > 0:  # also refuses NaN
            raise ValueError(f"fill_poisson: lambda_value must be > 0, got {lambda_value!r}")
        self._launch(self.generators["poisson_int"], stream, data.gpudata,
                     float(lambda_value), data.size)

    def gen_poisson(self, shape: Any, dtype: Any, lambda_value: float,
                    stream: Any = None) -> Any:
        result = array.empty(shape, dtype)
        self.fill_poisson(result, lambda_value, stream)
        return result

    def _skip_array(self, skips: Any, use: str) -> Any:
        """A GPUArray of one skip count per generator, of the kernel's type."""
        wanted = self._skip_dtype  # the kernels' unsigned int / unsigned long long
        if not (isinstance(skips, array.GPUArray) and skips.dtype == wanted
                and skips.size == self.generator_count and skips.flags.forc):
            got = (f"a {skips.dtype} GPUArray of {skips.size}"
                   if isinstance(skips, array.GPUArray) else type(skips).__name__)
            raise TypeError(f"{use}: expected a contiguous {np.dtype(wanted)} GPUArray of "
                            f"{self.generator_count} counts (one per generator, "
                            f"generator_count), got {got}")
        return skips.gpudata

    def call_skip_ahead(self, i: int, stream: Any = None) -> None:
        """Advances every generator by ``i`` draws (cuRAND's skipahead)."""
        self._launch(self.skip_ahead, stream, self.generator_count,
                     _count(i, "call_skip_ahead", "i"))

    def call_skip_ahead_array(self, i: Any, stream: Any = None) -> None:
        """Advances generator k by ``i[k]`` draws."""
        self._launch(self.skip_ahead_array, stream, self.generator_count,
                     self._skip_array(i, "call_skip_ahead_array"))


class _PseudoRandomNumberGeneratorBase(_RandomNumberGeneratorBase):
    """A pseudo-random generator: generator k starts at subsequence k of its
    seed, ``offset`` draws in."""

    def __init__(self, seed_getter: Callable[[int], Any] | None, offset: int, state_type: str,
                 vector_type: str, generator_bits: int, additional_source: str,
                 scramble_type: str | None = None) -> None:
        offset = _count(offset, type(self).__name__, "offset")
        super().__init__(state_type, vector_type, generator_bits, additional_source)
        count = self.generator_count
        seed = (seed_getter or seed_getter_unique)(count)
        if not (isinstance(seed, array.GPUArray) and seed.dtype == np.int32
                and seed.size == count):
            got = (f"a {seed.dtype} GPUArray of {seed.size}" if isinstance(seed, array.GPUArray)
                   else type(seed).__name__)
            raise TypeError(f"{type(self).__name__}: seed_getter({count}) must return an int32 "
                            f"GPUArray of {count} seeds (one per generator), got {got}; "
                            "see seed_getter_unique / seed_getter_uniform")
        prepare = self.module.get_function("prepare").prepare("PnPn")
        # As PyCUDA: curand_init may need a larger stack than the default
        # (cuRAND's skip-ahead scratch); raised for the preparation only.
        stack = drv.Context.get_limit(drv.limit.STACK_SIZE)
        raise_stack = stack < _PREPARE_STACK_BYTES
        try:
            if raise_stack:
                drv.Context.set_limit(drv.limit.STACK_SIZE, _PREPARE_STACK_BYTES)
            prepare.prepared_call((self.block_count, 1), (self.generators_per_block, 1, 1),
                                  self.state, count, seed.gpudata, offset)
        except drv.LaunchError as error:
            raise ValueError(f"{type(self).__name__}: preparing {count} generator states "
                             f"failed ({error}); PyCUDA's advice: fewer threads") from error
        finally:
            if raise_stack:
                drv.Context.set_limit(drv.limit.STACK_SIZE, stack)

    def _prepare_skipahead(self) -> None:
        self.skip_ahead = self.module.get_function("skip_ahead").prepare("PnQ")
        self.skip_ahead_array = self.module.get_function("skip_ahead_array").prepare("PnP")
        self.skip_ahead_sequence = self.module.get_function("skip_ahead_sequence").prepare("PnQ")
        self.skip_ahead_sequence_array = self.module.get_function(
            "skip_ahead_sequence_array").prepare("PnP")

    def call_skip_ahead_sequence(self, i: int, stream: Any = None) -> None:
        """Moves every generator ``i`` subsequences on (skipahead_sequence)."""
        self._launch(self.skip_ahead_sequence, stream, self.generator_count,
                     _count(i, "call_skip_ahead_sequence", "i"))

    def call_skip_ahead_sequence_array(self, i: Any, stream: Any = None) -> None:
        self._launch(self.skip_ahead_sequence_array, stream, self.generator_count,
                     self._skip_array(i, "call_skip_ahead_sequence_array"))

    def _kernels(self) -> list[Any]:
        return [*super()._kernels(), self.module.get_function("prepare"),
                self.skip_ahead_sequence, self.skip_ahead_sequence_array]


class XORWOWRandomNumberGenerator(_PseudoRandomNumberGeneratorBase):
    """cuRAND's XORWOW generator (curandStateXORWOW), one state per thread."""

    has_box_muller = True

    def __init__(self, seed_getter: Callable[[int], Any] | None = None, offset: int = 0) -> None:
        """:arg seed_getter: given an integer count, returns an int32 GPUArray
        of that many seeds (default: seed_getter_unique)."""
        super().__init__(seed_getter, offset, "curandStateXORWOW", "unsigned int", 32,
                         xorwow_random_source + xorwow_skip_ahead_sequence_source
                         + random_skip_ahead64_source)


class MRG32k3aRandomNumberGenerator(_PseudoRandomNumberGeneratorBase):
    """cuRAND's MRG32k3a generator (curandStateMRG32k3a), one state per thread."""

    has_box_muller = True

    def __init__(self, seed_getter: Callable[[int], Any] | None = None, offset: int = 0) -> None:
        super().__init__(seed_getter, offset, "curandStateMRG32k3a", "unsigned int", 32,
                         mrg32k3a_random_source + mrg32k3a_skip_ahead_sequence_source
                         + random_skip_ahead64_source)

    def _prepare_skipahead(self) -> None:
        super()._prepare_skipahead()
        self.skip_ahead_subsequence = self.module.get_function(
            "skip_ahead_subsequence").prepare("PnQ")
        self.skip_ahead_subsequence_array = self.module.get_function(
            "skip_ahead_subsequence_array").prepare("PnP")

    def call_skip_ahead_subsequence(self, i: int, stream: Any = None) -> None:
        """Moves every generator ``i`` subsequences of 2^76 on (skipahead_subsequence)."""
        self._launch(self.skip_ahead_subsequence, stream, self.generator_count,
                     _count(i, "call_skip_ahead_subsequence", "i"))

    def call_skip_ahead_subsequence_array(self, i: Any, stream: Any = None) -> None:
        self._launch(self.skip_ahead_subsequence_array, stream, self.generator_count,
                     self._skip_array(i, "call_skip_ahead_subsequence_array"))

    def _kernels(self) -> list[Any]:
        return [*super()._kernels(), self.skip_ahead_subsequence,
                self.skip_ahead_subsequence_array]


# ---- Sobol quasi-random generators --------------------------------------------

# PyCUDA's direction_vector_set (cuRAND's curandDirectionVectorSet_t).
class direction_vector_set:  # noqa: N801 (PyCUDA's name)
    VECTOR_32 = 101
    SCRAMBLED_VECTOR_32 = 102
    VECTOR_64 = 103
    SCRAMBLED_VECTOR_64 = 104


_DIRECTION_TABLES = {direction_vector_set.VECTOR_32: ("directions32", np.uint32, 32),
                     direction_vector_set.SCRAMBLED_VECTOR_32: ("scrambled_directions32",
                                                                np.uint32, 32),
                     direction_vector_set.VECTOR_64: ("directions64", np.uint64, 64),
                     direction_vector_set.SCRAMBLED_VECTOR_64: ("scrambled_directions64",
                                                                np.uint64, 64)}


def _host_table(table: str, count: Any, dtype: Any, use: str) -> np.ndarray:
    from . import _core

    count = _count(count, use, "count")
    return np.frombuffer(_core._sobol_table(table, count), dtype=dtype).copy()


def generate_direction_vectors(count: int, direction: Any = None) -> array.GPUArray:
    """cuRAND's Sobol direction vectors (Joe and Kuo's) for ``count``
    dimensions, one row per dimension: a (count, 32) uint32 GPUArray, or
    (count, 64) uint64 for ``direction_vector_set.VECTOR_64`` /
    ``SCRAMBLED_VECTOR_64``. cuRAND has 20000 dimensions; past them the rows
    repeat from the first, as in PyCUDA. Read from cuRAND's host library
    (libcurand; LibraryNotFound names the places tried where it is missing)."""
    if direction is None:
        direction = direction_vector_set.VECTOR_32
    if direction not in _DIRECTION_TABLES:
        raise ValueError(f"generate_direction_vectors: direction must be one of "
                         f"direction_vector_set.VECTOR_32, SCRAMBLED_VECTOR_32, VECTOR_64, "
                         f"SCRAMBLED_VECTOR_64 (101..104), got {direction!r}")
    table, dtype, width = _DIRECTION_TABLES[direction]
    rows = _host_table(table, count, dtype, "generate_direction_vectors")
    return array.to_gpu(rows.reshape(-1, width))


def generate_scramble_constants32(count: int) -> array.GPUArray:
    """``count`` uint32 scramble constants for scrambled Sobol32 generators."""
    return array.to_gpu(_host_table("scramble_constants32", count, np.uint32,
                                    "generate_scramble_constants32"))


def generate_scramble_constants64(count: int) -> array.GPUArray:
    """``count`` uint64 scramble constants for scrambled Sobol64 generators."""
    return array.to_gpu(_host_table("scramble_constants64", count, np.uint64,
                                    "generate_scramble_constants64"))


def _check_table(value: Any, dtype: Any, shape: tuple[int, ...], use: str, what: str) -> None:
    if not (isinstance(value, array.GPUArray) and value.dtype == dtype
            and value.shape == shape and value.flags.c_contiguous):
        got = (f"a {value.dtype} GPUArray of shape {value.shape}"
               if isinstance(value, array.GPUArray) else type(value).__name__)
        raise TypeError(f"{use}: {what} must be a C-contiguous {np.dtype(dtype)} GPUArray of "
                        f"shape {shape} (one row per generator), got {got}")


class _SobolGeneratorBase(_RandomNumberGeneratorBase):
    """Sobol quasi-random numbers: generator k draws dimension k of the
    sequence (its own direction vectors), starting ``offset`` points in.
    Normal numbers come from the inverse normal CDF (no Box-Muller pairs)."""

    has_box_muller = False

    def __init__(self, dir_vector: Any, scramble_vector: Any, offset: int, bits: int,
                 scrambled: bool) -> None:
        use = type(self).__name__
        offset = _count(offset, use, "offset")
        word = np.uint32 if bits == 32 else np.uint64
        ctype = "unsigned int" if bits == 32 else "unsigned long long"
        prefix = "curandStateScrambledSobol" if scrambled else "curandStateSobol"
        skip_source = random_skip_ahead32_source if bits == 32 else random_skip_ahead64_source
        self._skip_dtype = word
        super().__init__(f"{prefix}{bits}", f"curandDirectionVectors{bits}_t", bits,
                         (scrambledsobol_random_source if scrambled else sobol_random_source)
                         + skip_source, ctype if scrambled else None)
        if offset >= 2**bits:
            raise ValueError(f"{use}: offset must be below 2**{bits}, got {offset}")
        count = self.generator_count
        if dir_vector is None:
            direction = {(32, False): direction_vector_set.VECTOR_32,
                         (32, True): direction_vector_set.SCRAMBLED_VECTOR_32,
                         (64, False): direction_vector_set.VECTOR_64,
                         (64, True): direction_vector_set.SCRAMBLED_VECTOR_64}[bits, scrambled]
            dir_vector = generate_direction_vectors(count, direction)
        _check_table(dir_vector, word, (count, bits), use, "dir_vector")
        args = [dir_vector.gpudata]
        if scrambled:
            if scramble_vector is None:
                scramble_vector = (generate_scramble_constants32 if bits == 32
                                   else generate_scramble_constants64)(count)
            _check_table(scramble_vector, word, (count,), use, "scramble_vector")
            args.append(scramble_vector.gpudata)
        prepare = self.module.get_function("prepare").prepare("PnPPn" if scrambled else "PnPn")
        prepare.prepared_call((self.block_count, 1), (self.generators_per_block, 1, 1),
                              self.state, count, *args, offset)

    def _kernels(self) -> list[Any]:
        return [*super()._kernels(), self.module.get_function("prepare")]


class Sobol32RandomNumberGenerator(_SobolGeneratorBase):
    """cuRAND's Sobol32 quasi-random generator (curandStateSobol32)."""

    def __init__(self, dir_vector: Any = None, offset: int = 0) -> None:
        """:arg dir_vector: a (generator_count, 32) uint32 GPUArray of direction
        vectors (default: generate_direction_vectors(generator_count))."""
        super().__init__(dir_vector, None, offset, 32, scrambled=False)


class ScrambledSobol32RandomNumberGenerator(_SobolGeneratorBase):
    """cuRAND's scrambled Sobol32 generator (curandStateScrambledSobol32)."""

    def __init__(self, dir_vector: Any = None, scramble_vector: Any = None,
                 offset: int = 0) -> None:
        super().__init__(dir_vector, scramble_vector, offset, 32, scrambled=True)


class Sobol64RandomNumberGenerator(_SobolGeneratorBase):
    """cuRAND's Sobol64 quasi-random generator (curandStateSobol64)."""

    def __init__(self, dir_vector: Any = None, offset: int = 0) -> None:
        super().__init__(dir_vector, None, offset, 64, scrambled=False)


class ScrambledSobol64RandomNumberGenerator(_SobolGeneratorBase):
    """cuRAND's scrambled Sobol64 generator (curandStateScrambledSobol64)."""

    def __init__(self, dir_vector: Any = None, scramble_vector: Any = None,
                 offset: int = 0) -> None:
        super().__init__(dir_vector, scramble_vector, offset, 64, scrambled=True)
