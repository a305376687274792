"""cudakit.curandom's cuRAND-device-API generators (PyCUDA's
XORWOWRandomNumberGenerator and MRG32k3aRandomNumberGenerator): the
distributions' statistics on 10^5 draws at sizes that are not multiples of the
block size, seeds and replays, every skip-ahead against drawing and
discarding, and bad input. Backend-neutral: on a GPU (the `gpu` run) the same
tests exercise NVRTC's <curand_kernel.h>."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.curandom as curandom
import cudakit.gpuarray as ga

GENERATORS = [curandom.XORWOWRandomNumberGenerator, curandom.MRG32k3aRandomNumberGenerator]
N = 100_003  # not a multiple of any block size
SIGMAS = 6.0  # statistical bounds: a correct generator fails about once in 10^8 runs


def fixed_seeds(value: int) -> Callable[[int], Any]:
    """A seed_getter with the same seeds every call: value, value + 7, ..."""
    return lambda n: ga.to_gpu((value + 7 * np.arange(n)).astype(np.int32))


def one_seed(value: int) -> Callable[[int], Any]:
    """Every generator on one seed: generator k runs subsequence k of it."""
    return lambda n: ga.to_gpu(np.full(n, value, np.int32))


@pytest.fixture(scope="module", params=GENERATORS, ids=lambda c: c.__name__)
def kind(request: pytest.FixtureRequest) -> type:
    return request.param


def check_mean(values: np.ndarray, mean: float, variance: float) -> None:
    bound = SIGMAS * math.sqrt(variance / values.size)
    assert abs(values.mean() - mean) < bound, (values.mean(), mean, bound)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_in_unit_interval_with_uniform_statistics(kind: type, dtype: Any) -> None:
    u = kind(fixed_seeds(11)).gen_uniform(N, dtype).get()
    assert u.dtype == dtype and u.shape == (N,)
    assert u.min() > 0 and u.max() <= 1  # cuRAND's uniforms are in (0, 1]
    check_mean(u, 0.5, 1 / 12)
    # The sample variance of U(0, 1): its variance is (1/80 - 1/144) / n.
    assert abs(u.var() - 1 / 12) < SIGMAS * math.sqrt((1 / 80 - 1 / 144) / N)
    assert len(np.unique(u)) > 0.99 * N


@pytest.mark.parametrize("dtype", [np.int32, np.uint32])
def test_uniform_integers_cover_32_bits(kind: type, dtype: Any) -> None:
    bits = kind(fixed_seeds(12)).gen_uniform(N, dtype).get().view(np.uint32).astype(np.float64)
    check_mean(bits, 2**31, (2**64) / 12)
    assert bits.max() > 0.999 * 2**32 and bits.min() < 0.001 * 2**32


@pytest.mark.parametrize("size", [N, N + 1], ids=["odd size", "even size (Box-Muller pairs)"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_mean_and_std(kind: type, dtype: Any, size: int) -> None:
    x = kind(fixed_seeds(13)).gen_normal(size, dtype).get()
    assert x.dtype == dtype and np.isfinite(x).all()
    check_mean(x, 0.0, 1.0)
    assert abs(x.std() - 1) < SIGMAS * math.sqrt(0.5 / size)


@pytest.mark.parametrize("size", [N, N + 1], ids=["odd size", "even size (Box-Muller pairs)"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_normal_has_normal_logarithm(kind: type, dtype: Any, size: int) -> None:
    mean, stddev = 0.5, 0.25
    x = kind(fixed_seeds(14)).gen_log_normal(size, dtype, mean, stddev).get()
    assert x.dtype == dtype and (x > 0).all()
    logs = np.log(x.astype(np.float64))
    check_mean(logs, mean, stddev**2)
    assert abs(logs.std() - stddev) < SIGMAS * stddev * math.sqrt(0.5 / size)


@pytest.mark.parametrize("lam", [4.5, 13.0, 150.0, 5000.0])
def test_poisson_mean_and_variance(kind: type, lam: float) -> None:
    k = kind(fixed_seeds(15)).gen_poisson(N, np.uint32, lam).get()
    assert k.dtype == np.uint32
    check_mean(k.astype(np.float64), lam, lam)
    # The sample variance of Poisson(lam) has variance about (lam + 2 lam^2) / n.
    assert abs(k.var() - lam) < SIGMAS * math.sqrt((lam + 2 * lam * lam) / N)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint32])
def test_poisson_in_place_takes_each_elements_mean(kind: type, dtype: Any) -> None:
    rng = np.random.default_rng(3)
    lambdas = rng.choice(np.array([2, 40], dtype), N)
    a = ga.to_gpu(lambdas)
    kind(fixed_seeds(16)).fill_poisson(a)
    k = a.get().astype(np.float64)
    for lam in (2, 40):
        picked = k[lambdas == lam]
        check_mean(picked, lam, lam)
    assert np.array_equal(k, np.round(k))


def test_same_seeds_give_same_numbers_and_successive_draws_differ(kind: type) -> None:
    first, second = kind(fixed_seeds(21)), kind(fixed_seeds(21))
    a = first.gen_uniform(5001, np.float32).get()
    np.testing.assert_array_equal(a, second.gen_uniform(5001, np.float32).get())
    assert not np.array_equal(a, first.gen_uniform(5001, np.float32).get())


def test_unique_seeds_give_different_numbers(kind: type) -> None:
    a = kind(curandom.seed_getter_unique).gen_uniform(5001, np.float64).get()
    b = kind(curandom.seed_getter_unique).gen_uniform(5001, np.float64).get()
    assert not np.array_equal(a, b)
    c = kind(curandom.seed_getter_uniform).gen_uniform(5001, np.float64).get()
    assert not np.array_equal(a, c)


def test_seed_getters_return_int32_seeds_of_the_count() -> None:
    unique = curandom.seed_getter_unique(1001).get()
    uniform = curandom.seed_getter_uniform(1001).get()
    assert unique.dtype == uniform.dtype == np.int32 and unique.shape == uniform.shape == (1001,)
    assert (uniform == uniform[0]).all() and len(np.unique(unique)) > 990


def test_skip_ahead_equals_drawing_and_discarding(kind: type) -> None:
    drawn, skipped = kind(fixed_seeds(31)), kind(fixed_seeds(31))
    count = drawn.generator_count
    draws = 3  # per generator: a draw of draws * count values advances each by `draws`
    drawn.gen_uniform(draws * count, np.float32)
    skipped.call_skip_ahead(draws)
    np.testing.assert_array_equal(skipped.gen_uniform(2 * count + 17, np.float32).get(),
                                  drawn.gen_uniform(2 * count + 17, np.float32).get())


def test_skip_ahead_array_skips_each_generator_its_own_count(kind: type) -> None:
    reference, skipped = kind(fixed_seeds(32)), kind(fixed_seeds(32))
    count = reference.generator_count
    skips = np.random.default_rng(5).integers(0, 4, count).astype(np.uint64)
    skipped.call_skip_ahead_array(ga.to_gpu(skips))
    # Generator t of the reference draws values t, t + count, ...: after 3
    # rounds, value t of round skips[t] is what skipped generator t draws first.
    rounds = reference.gen_uniform(4 * count, np.float32).get().reshape(4, count)
    first = skipped.gen_uniform(count, np.float32).get()
    np.testing.assert_array_equal(first, rounds[skips.astype(np.int64), np.arange(count)])


def test_offset_starts_that_many_draws_in(kind: type) -> None:
    offset, skipped = kind(fixed_seeds(33), offset=5), kind(fixed_seeds(33))
    skipped.call_skip_ahead(5)
    np.testing.assert_array_equal(offset.gen_uniform(3001, np.float64).get(),
                                  skipped.gen_uniform(3001, np.float64).get())


def subsequence_skip(gen: Any) -> Callable[..., None]:
    """The skip that moves generator k onto generator k + 1's subsequence:
    curand_init's subsequence step (MRG32k3a's is skipahead_subsequence)."""
    if isinstance(gen, curandom.MRG32k3aRandomNumberGenerator):
        return gen.call_skip_ahead_subsequence
    return gen.call_skip_ahead_sequence


def subsequence_skip_array(gen: Any) -> Callable[..., None]:
    if isinstance(gen, curandom.MRG32k3aRandomNumberGenerator):
        return gen.call_skip_ahead_subsequence_array
    return gen.call_skip_ahead_sequence_array


def test_subsequence_skip_moves_onto_the_next_generators_numbers(kind: type) -> None:
    start, moved = kind(one_seed(41)), kind(one_seed(41))
    count = start.generator_count
    subsequence_skip(moved)(1)
    np.testing.assert_array_equal(moved.gen_uniform(count, np.float32).get()[:-1],
                                  start.gen_uniform(count, np.float32).get()[1:])


def test_subsequence_skip_array(kind: type) -> None:
    start, moved = kind(one_seed(42)), kind(one_seed(42))
    count = start.generator_count
    skips = np.zeros(count, np.uint64)
    skips[: count - 2] = 2  # generator k takes generator k + 2's subsequence
    subsequence_skip_array(moved)(ga.to_gpu(skips))
    a = start.gen_uniform(count, np.float64).get()
    b = moved.gen_uniform(count, np.float64).get()
    np.testing.assert_array_equal(b[: count - 2], a[2:])
    np.testing.assert_array_equal(b[count - 2:], a[count - 2:])


def test_mrg32k3a_sequence_skip_changes_the_numbers() -> None:
    start = curandom.MRG32k3aRandomNumberGenerator(one_seed(43))
    moved = curandom.MRG32k3aRandomNumberGenerator(one_seed(43))
    moved.call_skip_ahead_sequence(1)
    a = start.gen_uniform(1001, np.float32).get()
    assert not np.array_equal(a, moved.gen_uniform(1001, np.float32).get())


def test_fill_on_a_stream_and_an_offset_view(kind: type) -> None:
    import cudakit.driver as drv

    gen, reference = kind(fixed_seeds(51)), kind(fixed_seeds(51))
    stream = drv.Stream()
    whole = ga.zeros(2 * N + 1, np.float32)
    view = whole[1:]  # 4 bytes in: the pair kernel's 8-byte stores would be misaligned
    gen.fill_normal(view, stream)
    stream.synchronize()
    host = whole.get()
    assert host[0] == 0
    # So the one-at-a-time kernel ran: the numbers of an odd-sized (aligned) draw.
    np.testing.assert_array_equal(host[1:],
                                  reference.gen_normal(2 * N + 1, np.float32).get()[:-1])
    check_mean(host[1:].astype(np.float64), 0.0, 1.0)


def test_pycuda_wrapper_sequence(kind: type) -> None:
    """PyCUDA's test_curand_wrappers (test_gpuarray.py) on the generators
    cudakit provides, at a tenth of its in-place Poisson size."""
    gen = kind()
    for dtype in (np.float32, np.float64):
        gen.gen_normal(10000, dtype)
        gen.gen_normal(10001, dtype)
        gen.gen_log_normal(10000, dtype, 10.0, 3.0)
        gen.gen_log_normal(10001, dtype, 10.0, 3.0)
        x = gen.gen_uniform(10000, dtype).get()
        assert (x >= -1).all() and (x <= 1).all()
    gen.gen_uniform(10000, np.uint32)
    gen.gen_poisson(10000, np.uint32, 13.0)
    for dtype in (np.float32, np.float64, np.uint32):
        a = ga.empty(100000, dtype=dtype)
        a.fill(10)
        gen.fill_poisson(a)
        share = (a.get() == 9).sum() / a.size  # scipy.stats.poisson.pmf(9, 10) = 0.12511
        assert abs(share - 0.12511) < 0.006


def test_get_curand_version_enables_pycudas_checks() -> None:
    assert curandom.get_curand_version() >= (5, 0, 0)


# ---- bad input -------------------------------------------------------------------

@dataclass
class Case:
    name: str
    run: Callable[[Any], Any]  # given a generator
    error: type
    message: str


def _xorwow() -> Any:
    return curandom.XORWOWRandomNumberGenerator(fixed_seeds(61))


CASES = [
    Case("fill_uniform numpy array", lambda g: g.fill_uniform(np.zeros(10, np.float32)),
         TypeError, r"fill_uniform: data must be a GPUArray, got ndarray"),
    Case("fill_normal list", lambda g: g.fill_normal([0.0] * 10), TypeError,
         r"must be a GPUArray, got list"),
    Case("fill_uniform float16", lambda g: g.fill_uniform(ga.empty(10, np.float16)),
         NotImplementedError, r"dtype float16 is not supported; use float32, float64"),
    Case("fill_uniform int64 (32-bit generator)",
         lambda g: g.fill_uniform(ga.empty(10, np.int64)), NotImplementedError, r"int64"),
    Case("fill_normal int32", lambda g: g.fill_normal(ga.empty(10, np.int32)),
         NotImplementedError, r"fill_normal: dtype int32 .* float32 or float64"),
    Case("gen_normal complex64", lambda g: g.gen_normal(10, np.complex64),
         NotImplementedError, r"complex64"),
    Case("fill_log_normal uint32", lambda g: g.fill_log_normal(ga.empty(10, np.uint32), 0, 1),
         NotImplementedError, r"fill_log_normal: dtype uint32"),
    Case("fill_poisson float32 with lambda",
         lambda g: g.fill_poisson(ga.empty(10, np.float32), 3.0), NotImplementedError,
         r"fill_poisson: dtype float32 is not supported; use uint32"),
    Case("fill_poisson in place int64", lambda g: g.fill_poisson(ga.empty(10, np.int64)),
         NotImplementedError, r"in place.*float32, float64 or uint32"),
    Case("gen_poisson lambda 0", lambda g: g.gen_poisson(10, np.uint32, 0.0), ValueError,
         r"lambda_value must be > 0, got 0.0"),
    Case("gen_poisson lambda NaN", lambda g: g.gen_poisson(10, np.uint32, float("nan")),
         ValueError, r"lambda_value must be > 0"),
    Case("gen_uniform negative size", lambda g: g.gen_uniform(-5, np.float32), ValueError,
         r"negative dimensions"),
    Case("fill_uniform strided view", lambda g: g.fill_uniform(ga.empty(20, np.float32)[::2]),
         ValueError, r"contiguous"),
    Case("call_skip_ahead negative", lambda g: g.call_skip_ahead(-1), ValueError,
         r"call_skip_ahead: i must be >= 0, got -1"),
    Case("call_skip_ahead float", lambda g: g.call_skip_ahead(1.5), TypeError,
         r"i must be an integer"),
    Case("call_skip_ahead_sequence negative", lambda g: g.call_skip_ahead_sequence(-3),
         ValueError, r">= 0"),
    Case("call_skip_ahead_array numpy", lambda g: g.call_skip_ahead_array(
        np.zeros(g.generator_count, np.uint64)), TypeError,
        r"expected a contiguous uint64 GPUArray of \d+ counts .*got ndarray"),
    Case("call_skip_ahead_array uint32", lambda g: g.call_skip_ahead_array(
        ga.zeros(g.generator_count, np.uint32)), TypeError, r"got a uint32 GPUArray"),
    Case("call_skip_ahead_sequence_array short", lambda g: g.call_skip_ahead_sequence_array(
        ga.zeros(3, np.uint64)), TypeError, r"one per generator.*got a uint64 GPUArray of 3"),
    Case("seed_getter wrong dtype", lambda g: curandom.XORWOWRandomNumberGenerator(
        lambda n: ga.zeros(n, np.float32)), TypeError,
        r"seed_getter\(\d+\) must return an int32 GPUArray of \d+ seeds.*float32"),
    Case("seed_getter wrong count", lambda g: curandom.MRG32k3aRandomNumberGenerator(
        lambda n: ga.zeros(n + 1, np.int32)), TypeError, r"one per generator"),
    Case("seed_getter numpy", lambda g: curandom.XORWOWRandomNumberGenerator(
        lambda n: np.zeros(n, np.int32)), TypeError, r"got ndarray"),
    Case("offset negative", lambda g: curandom.XORWOWRandomNumberGenerator(offset=-1),
         ValueError, r"offset must be >= 0, got -1"),
]


@pytest.fixture(scope="module")
def xorwow() -> Any:
    return _xorwow()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_refused(case: Case, xorwow: Any) -> None:
    with pytest.raises(case.error, match=case.message):
        case.run(xorwow)
