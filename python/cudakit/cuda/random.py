"""cuda.random: Numba's xoroshiro128+ generators, with its API and its
numbers (the same seeding, jumps and conversions).

A state array holds one generator per thread: a 1-d array of Numba's
record dtype xoroshiro128p_dtype (fields s0, s1: uint64). The functions
called in kernels are Numba's, device functions written in Python and
translated like user code.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .api import jit
from .device_array import DeviceNDArray, to_device
from .translate.types import from_dtype

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
xoroshiro128p_type = from_dtype(xoroshiro128p_dtype)  # Numba's type, for signatures

_MASK = (1 << 64) - 1
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
_TWO_PI_FLOAT32 = np.float32(2 * math.pi)
_TWO_PI_FLOAT64 = np.float64(2 * math.pi)


# ---- in kernels --------------------------------------------------------------------

@jit(device=True)
def rotl(x, k):
    return (x << k) | (x >> (np.uint32(64) - k))


@jit(device=True)
def xoroshiro128p_next(states, index):
    """The next 64 random bits of generator `index`."""
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[index]["s0"] = rotl(s0, np.uint32(55)) ^ s1 ^ (s1 << np.uint32(14))
    states[index]["s1"] = rotl(s1, np.uint32(36))
    return result


@jit(device=True)
def uint64_to_unit_float64(x):
    return np.float64(x >> np.uint32(11)) * (np.float64(1.0) / np.float64(9007199254740992.0))


@jit(device=True)
def uint64_to_unit_float32(x):
    return np.float32(uint64_to_unit_float64(x))


@jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 in [0, 1)."""
    return uint64_to_unit_float32(xoroshiro128p_next(states, index))


@jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 in [0, 1)."""
    return uint64_to_unit_float64(xoroshiro128p_next(states, index))


@jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A standard normal float32 (Box-Muller; the second value is dropped)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(np.float32(-2.0) * math.log(u1)) * math.cos(_TWO_PI_FLOAT32 * u2)


@jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A standard normal float64. As in Numba, from two float32 uniforms (whose
    log is taken in float32): the same numbers as Numba's for the same seed."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-np.float64(2.0) * math.log(u1)) * math.cos(_TWO_PI_FLOAT64 * u2)


# ---- seeding (host) ------------------------------------------------------------------

def _splitmix(seed: int) -> int:
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _next_state(s0: int, s1: int) -> tuple[int, int]:
    s1 ^= s0
    s0 = (((s0 << 55) | (s0 >> 9)) & _MASK) ^ s1 ^ ((s1 << 14) & _MASK)
    return s0, ((s1 << 36) | (s1 >> 28)) & _MASK


def _step_matrix() -> np.ndarray:
    """One xoroshiro128+ step as a 128x128 matrix over GF(2) (the state is
    linear in its bits): column b is the step applied to bit b alone."""
    m = np.zeros((128, 128), np.uint8)
    for b in range(128):
        s0, s1 = (1 << b, 0) if b < 64 else (0, 1 << (b - 64))
        n0, n1 = _next_state(s0, s1)
        bits = n0 | (n1 << 64)
        m[:, b] = [(bits >> r) & 1 for r in range(128)]
    return m


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return ((a.astype(np.int32) @ b.astype(np.int32)) & 1).astype(np.uint8)


_JUMP_POWERS: list[np.ndarray] = []  # J^(2^k), J = the jump by 2^64 steps


def _jump_powers(count: int) -> list[np.ndarray]:
    if not _JUMP_POWERS:
        step = _step_matrix()
        # J = sum over the jump polynomial's bits of M^b, as Numba's jump does.
        power = np.eye(128, dtype=np.uint8)
        jump = np.zeros((128, 128), np.uint8)
        for word in _JUMP:
            for b in range(64):
                if (word >> b) & 1:
                    jump ^= power
                power = _mul(step, power)
        _JUMP_POWERS.append(jump)
    while len(_JUMP_POWERS) < count:
        _JUMP_POWERS.append(_mul(_JUMP_POWERS[-1], _JUMP_POWERS[-1]))
    return _JUMP_POWERS[:count]


def _columns(matrix: np.ndarray) -> np.ndarray:
    """Each column as two uint64 words (rows 0-63, rows 64-127)."""
    weights = (np.uint64(1) << np.arange(64, dtype=np.uint64))
    low = (matrix[:64].astype(np.uint64) * weights[:, None]).sum(axis=0, dtype=np.uint64)
    high = (matrix[64:].astype(np.uint64) * weights[:, None]).sum(axis=0, dtype=np.uint64)
    return np.stack([low, high], axis=1)


def _apply(matrix: np.ndarray, s0: int, s1: int) -> tuple[int, int]:
    bits = np.array([(s0 >> b) & 1 for b in range(64)] + [(s1 >> b) & 1 for b in range(64)],
                    np.uint8)
    out = (matrix.astype(np.int32) @ bits.astype(np.int32)) & 1
    v0 = sum(int(out[r]) << r for r in range(64))
    v1 = sum(int(out[64 + r]) << r for r in range(64))
    return v0, v1


def _make_seed_kernel() -> Any:
    from . import api

    @api.jit
    def seed_states(states, columns, s0, s1, nbits):
        i = api.grid(1)
        if i >= states.shape[0]:
            return
        a = s0
        b = s1
        for k in range(nbits):
            if (i >> k) & 1:
                n0 = np.uint64(0)
                n1 = np.uint64(0)
                for bit in range(128):
                    if bit < 64:
                        on = (a >> np.uint64(bit)) & np.uint64(1)
                    else:
                        on = (b >> np.uint64(bit - 64)) & np.uint64(1)
                    if on != 0:
                        n0 ^= columns[k, bit, 0]
                        n1 ^= columns[k, bit, 1]
                a = n0
                b = n1
        states[i]["s0"] = a
        states[i]["s1"] = b

    return seed_states


_SEED_KERNEL: list[Any] = []


def init_xoroshiro128p_states(states: DeviceNDArray, seed: int, subsequence_start: int = 0,
                              stream: Any = 0) -> None:
    """Seeds every generator of `states` as Numba does: generator 0 from
    splitmix64(seed) jumped `subsequence_start` times, generator i jumped i
    more times (2^64 steps each)."""
    if getattr(states, "dtype", None) != xoroshiro128p_dtype or len(states.shape) != 1:
        raise TypeError("init_xoroshiro128p_states: states must be a 1-d device array of "
                        f"xoroshiro128p_dtype, got {getattr(states, 'dtype', type(states))} "
                        f"{getattr(states, 'shape', '')}")
    n = states.shape[0]
    if n == 0:
        return
    s0 = s1 = _splitmix(int(seed) & _MASK)
    if subsequence_start:
        start = int(subsequence_start)
        powers = _jump_powers(max(1, start.bit_length()))
        for k in range(start.bit_length()):
            if (start >> k) & 1:
                s0, s1 = _apply(powers[k], s0, s1)
    nbits = max(1, (n - 1).bit_length())
    columns = np.stack([_columns(m) for m in _jump_powers(nbits)])
    if not _SEED_KERNEL:
        _SEED_KERNEL.append(_make_seed_kernel())
    block = 128
    _SEED_KERNEL[0][(n + block - 1) // block, block, stream](
        states, to_device(columns), np.uint64(s0), np.uint64(s1), nbits)


def create_xoroshiro128p_states(n: int, seed: int, subsequence_start: int = 0,
                                stream: Any = 0) -> DeviceNDArray:
    """`n` generators (one per thread), seeded as Numba seeds them."""
    from .device_array import device_array
    states = device_array(int(n), xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states
