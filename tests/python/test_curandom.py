"""cudakit.curandom: PyCUDA's rand and a Philox generator whose numbers
depend only on seed, offset and element (the same on GPU and CPU)."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.curandom as curandom
import cudakit.gpuarray as ga


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rand_is_uniform_in_unit_interval(dtype) -> None:
    r = curandom.rand((1001, 3), dtype).get()
    assert r.shape == (1001, 3) and r.dtype == dtype
    assert r.min() >= 0 and r.max() < 1
    assert abs(r.mean() - 0.5) < 0.03
    assert len(np.unique(r)) > 2900


def test_successive_draws_differ_and_seed_replays() -> None:
    curandom.seed(1234)
    first = curandom.rand(100).get()
    second = curandom.rand(100).get()
    assert not np.array_equal(first, second)
    curandom.seed(1234)
    np.testing.assert_array_equal(curandom.rand(100).get(), first)


def test_generator_is_deterministic_per_seed() -> None:
    g1 = curandom.PhiloxRandomNumberGenerator(seed=7)
    g2 = curandom.PhiloxRandomNumberGenerator(seed=7)
    u1 = g1.gen_uniform(4099, np.float32).get()
    np.testing.assert_array_equal(u1, g2.gen_uniform(4099, np.float32).get())
    other = curandom.PhiloxRandomNumberGenerator(seed=8).gen_uniform(4099, np.float32).get()
    assert not np.array_equal(u1, other)


def test_element_depends_only_on_its_index() -> None:
    # The first 10 of a draw of 10000 are the draw of 10: independent of size and launch shape.
    big = curandom.PhiloxGenerator(99).gen_uniform(10000, np.float64).get()
    small = curandom.PhiloxGenerator(99).gen_uniform(10, np.float64).get()
    np.testing.assert_array_equal(big[:10], small)


def test_normal_statistics() -> None:
    n = curandom.PhiloxGenerator(3).gen_normal(200001, np.float64).get()
    assert abs(n.mean()) < 0.01 and abs(n.std() - 1) < 0.01


def test_fill_uniform_and_normal() -> None:
    gen = curandom.PhiloxGenerator(5)
    a = ga.zeros(1001, np.float32)
    gen.fill_uniform(a)
    host = a.get()
    assert host.min() >= 0 and host.max() < 1 and host.std() > 0.2
    gen.fill_normal(a)
    assert abs(a.get().mean()) < 0.2


def test_offset_replays() -> None:
    gen = curandom.PhiloxGenerator(11)
    gen.gen_uniform(10, np.float32)
    offset = gen.offset
    x = gen.gen_uniform(10, np.float32).get()
    gen.offset = offset
    np.testing.assert_array_equal(gen.gen_uniform(10, np.float32).get(), x)


def test_bad_dtype() -> None:
    with pytest.raises((TypeError, ValueError)):
        curandom.PhiloxGenerator(1).gen_uniform(10, np.int32)


def philox4x32_10(counters: np.ndarray, key: int) -> np.ndarray:
    """Reference Philox4x32-10 in numpy: the four 32-bit words of each counter
    (counter = (low 64 bits, high 64 bits = 0), key = the 64-bit seed)."""
    mask = np.uint64(0xFFFFFFFF)
    c0 = counters & mask
    c1 = counters >> np.uint64(32)
    c2 = np.zeros_like(counters)
    c3 = np.zeros_like(counters)
    k0 = np.uint64(key & 0xFFFFFFFF)
    k1 = np.uint64((key >> 32) & 0xFFFFFFFF)
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * c0
        p1 = np.uint64(0xCD9E8D57) * c2
        hi0, lo0 = p0 >> np.uint64(32), p0 & mask
        hi1, lo1 = p1 >> np.uint64(32), p1 & mask
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        k0 = (k0 + np.uint64(0x9E3779B9)) & mask
        k1 = (k1 + np.uint64(0xBB67AE85)) & mask
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


@pytest.mark.parametrize("seed", [0, 42, 2**40 + 7])
def test_float32_uniform_is_philox_bit_for_bit(seed: int) -> None:
    # The numbers any device must produce: word e % 4 of counter e // 4,
    # 24 bits, exact in float32. The same test on a GPU checks GPU == CPU.
    n = 4099
    words = philox4x32_10(np.arange((n + 3) // 4, dtype=np.uint64), seed).ravel()[:n]
    expected = (words >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -24)
    got = curandom.PhiloxGenerator(seed).gen_uniform(n, np.float32).get()
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64])
def test_rand_of_integer_dtypes_spans_the_range(dtype) -> None:
    r = curandom.rand(20000, dtype).get()
    info = np.iinfo(dtype)
    assert r.dtype == dtype and r.min() >= info.min and r.max() <= info.max
    assert r.min() < info.min / 2 + info.max / 2 - (info.max - info.min) / 4
    assert len(np.unique(r)) > min(200, (info.max - info.min) // 2)


def test_rand_of_complex_dtype() -> None:
    r = curandom.rand(1000, np.complex64).get()
    assert r.dtype == np.complex64
    assert 0 <= r.real.min() and r.real.max() < 1 and 0 <= r.imag.min() and r.imag.max() < 1
