"""Record dtypes in kernels (Numba's Record: a[i]['f'], a[i].f) and
cuda.random's states as Numba's xoroshiro128p_dtype records, with the
generators' numbers checked against Numba's published algorithm."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda.random import (
    create_xoroshiro128p_states, xoroshiro128p_dtype, xoroshiro128p_normal_float32,
    xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)
from cudakit.cuda.translate.errors import TypingError, UnsupportedError

from .interpreted import run_threads

RNG = np.random.default_rng(808)
N = 29  # not a multiple of the block
MASK = (1 << 64) - 1
PARTICLE = np.dtype([("x", np.float64), ("count", np.int32), ("flag", np.uint8)], align=True)


def move_particles(p, source, shifted, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        p[i]["x"] = p[i]["x"] * 2 + p[i].count
        p[i].count += 1
        shifted[i] = source[source.shape[0] - 1 - i]  # a whole record
        out[i] = p[i].x + p[i]["flag"]


def test_record_fields_read_written_and_whole_records_copied():
    p = np.zeros(N, PARTICLE)
    p["x"] = RNG.standard_normal(N)
    p["count"] = RNG.integers(-5, 5, N)
    p["flag"] = RNG.integers(0, 2, N)
    source = p.copy()
    source["x"] = RNG.standard_normal(N)
    # (np.recarray: the interpreter reads fields as attributes too.)
    expected = run_threads(move_particles, 40, p.view(np.recarray), source.view(np.recarray),
                           np.zeros(N, PARTICLE).view(np.recarray), np.zeros(N))
    d_p, d_shifted, d_out = cuda.to_device(p), cuda.device_array(N, PARTICLE), \
        cuda.device_array(N)
    cuda.jit(move_particles)[2, 32](d_p, cuda.to_device(source), d_shifted, d_out)
    np.testing.assert_array_equal(d_p.copy_to_host(), expected[0].view(np.ndarray))
    np.testing.assert_array_equal(d_shifted.copy_to_host(), expected[2].view(np.ndarray))
    np.testing.assert_array_equal(d_out.copy_to_host(), expected[3])


def test_shared_and_local_arrays_of_records_and_complex_numbers():
    @cuda.jit
    def staged(p, out):
        tile = cuda.shared.array(32, PARTICLE)
        pair = cuda.local.array(2, np.complex128)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        if i < p.shape[0]:
            tile[t] = p[i]
            tile[t].count *= 3
            pair[0] = complex(tile[t].x, tile[t]["count"])
            pair[1] = pair[0] * 1j
            out[i] = pair[1].real * 2 + pair[1].imag  # (x + 3cj) * j = -3c + xj

    p = np.zeros(N, PARTICLE)
    p["x"] = RNG.standard_normal(N)
    p["count"] = RNG.integers(-5, 5, N)
    out = cuda.device_array(N)
    staged[2, 32](cuda.to_device(p), out)
    np.testing.assert_allclose(out.copy_to_host(), -6.0 * p["count"] + p["x"], rtol=1e-12)


def record_references(p, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        r = p[i]  # a reference into p, as in Numba
        r.x = r.x + 1
        r["count"] += 2
        other = p[0]
        out[i] = bump(r) + other.flag


@cuda.jit(device=True)
def bump(record):
    record.flag = 1
    return record.x * 10


def test_a_record_in_a_variable_is_a_reference():
    p = np.zeros(N, PARTICLE)
    p["x"] = RNG.standard_normal(N)
    p["count"] = RNG.integers(-5, 5, N)
    d_p, out = cuda.to_device(p), cuda.device_array(N)
    cuda.jit(record_references)[2, 32](d_p, out)
    got = d_p.copy_to_host()
    np.testing.assert_array_equal(got["x"], p["x"] + 1)
    np.testing.assert_array_equal(got["count"], p["count"] + 2)
    np.testing.assert_array_equal(got["flag"], 1)
    # (other.flag is thread 0's record: 0 or 1 depending on the order.)
    flag0 = out.copy_to_host() - (p["x"] + 1) * 10
    assert np.all(np.isclose(flag0, 0) | np.isclose(flag0, 1))


def test_record_misuse_is_a_clear_error():
    @cuda.jit
    def misspelt(p, out):
        out[0] = p[0]["y"]

    @cuda.jit(device=True)
    def give(p):
        return p[0]

    @cuda.jit
    def returns(p, out):
        out[0] = give(p).x

    records = cuda.to_device(np.zeros(2, PARTICLE))
    with pytest.raises(TypingError, match=r"no field 'y' \(its fields: x, count, flag\)"):
        misspelt[1, 1](records, cuda.device_array(1))
    with pytest.raises(UnsupportedError, match=r"returning a record(.|\n)*line \d+"):
        returns[1, 1](records, cuda.device_array(1))


def test_unaligned_records_are_refused_with_the_fix():
    packed = np.dtype([("a", np.int8), ("b", np.float64)])  # b at offset 1
    with pytest.raises(TypeError, match="align=True"):
        cuda.to_device(np.zeros(3, packed))


def numba_next(state):
    s0, s1 = state
    result = (s0 + s1) & MASK
    s1 ^= s0
    state[0] = (((s0 << 55) | (s0 >> 9)) & MASK) ^ s1 ^ ((s1 << 14) & MASK)
    state[1] = ((s1 << 36) | (s1 >> 28)) & MASK
    return result


def unit_float64(bits):
    return np.float64(bits >> 11) * (np.float64(1.0) / np.float64(9007199254740992.0))


@cuda.jit
def draw(states, out64, out32, normal64, normal32):
    i = cuda.grid(1)
    if i < states.shape[0]:
        out64[i] = xoroshiro128p_uniform_float64(states, i)
        out32[i] = xoroshiro128p_uniform_float32(states, i)
        normal64[i] = xoroshiro128p_normal_float64(states, i)
        normal32[i] = xoroshiro128p_normal_float32(states, i)


def test_generators_give_numbas_numbers():
    states = create_xoroshiro128p_states(N, seed=2024)
    assert states.dtype == xoroshiro128p_dtype
    start = states.copy_to_host()
    outs = [cuda.device_array(N, dt) for dt in (np.float64, np.float32, np.float64,
                                                 np.float32)]
    draw[1, 32](states, *outs)
    got = [o.copy_to_host() for o in outs]
    after = states.copy_to_host()
    for i in range(N):
        state = [int(start["s0"][i]), int(start["s1"][i])]
        assert got[0][i] == unit_float64(numba_next(state))
        assert got[1][i] == np.float32(unit_float64(numba_next(state)))
        # Numba's normal_float64 draws two float32 uniforms, takes log in float32.
        u1 = np.float32(unit_float64(numba_next(state)))
        u2 = np.float32(unit_float64(numba_next(state)))
        log_u1 = np.float64(np.log(u1))
        assert math.isclose(got[2][i], math.sqrt(-2 * log_u1)
                            * math.cos(np.float64(2 * math.pi) * np.float64(u2)),
                            rel_tol=1e-7, abs_tol=1e-8)
        u1 = np.float32(unit_float64(numba_next(state)))
        u2 = np.float32(unit_float64(numba_next(state)))
        assert math.isclose(got[3][i], math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2),
                            rel_tol=1e-4, abs_tol=1e-5)
        assert [int(after["s0"][i]), int(after["s1"][i])] == state  # states advanced in place


def test_record_array_types_in_signatures():
    from cudakit.cuda.random import xoroshiro128p_type
    from cudakit.cuda.types import from_dtype, void

    @cuda.jit(void(xoroshiro128p_type[:], from_dtype(PARTICLE)[::1]))
    def copy_bits(states, p):
        i = cuda.grid(1)
        if i < p.shape[0]:
            p[i].count = states[i]["s0"] & np.uint64(0xFF)

    states = create_xoroshiro128p_states(N, seed=9)
    p = cuda.to_device(np.zeros(N, PARTICLE))
    copy_bits[1, 32](states, p)
    np.testing.assert_array_equal(p.copy_to_host()["count"],
                                  states.copy_to_host()["s0"] & np.uint64(0xFF))


def test_states_round_trip_through_the_host():
    states = create_xoroshiro128p_states(5, seed=1)
    host = states.copy_to_host()
    again = cuda.to_device(host)
    np.testing.assert_array_equal(again.copy_to_host(), host)
    assert states[2]["s0"] == host[2]["s0"]
