"""cudakit.curandom's Sobol quasi-random generators (PyCUDA's
Sobol32/Sobol64RandomNumberGenerator and their scrambled forms): every draw
against a numpy Sobol built from the same direction vectors (the integers
exactly, the uniform floats within an ulp, the normals against the inverse
normal CDF of the standard library), skip-ahead and offsets, Poisson and
log-normal statistics, the inverse error functions kernels use, and bad
input. Backend-neutral: on a GPU the same tests exercise NVRTC's
<curand_kernel.h>; on the CPU backend, cudakit's. Needs cuRAND's host
library (libcurand) for the direction vectors."""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.curandom as curandom
import cudakit.gpuarray as ga
from cudakit import _core
from cudakit.compiler import SourceModule
from gpuarray_helpers import random_array

try:
    _core._curand_version()
except _core.LibraryNotFound as missing:  # pragma: no cover - depends on the machine
    pytest.skip(f"cuRAND's host library is not installed: {missing}", allow_module_level=True)

N = 10_007  # not a multiple of any block size
SOBOL = {
    (32, False): curandom.Sobol32RandomNumberGenerator,
    (32, True): curandom.ScrambledSobol32RandomNumberGenerator,
    (64, False): curandom.Sobol64RandomNumberGenerator,
    (64, True): curandom.ScrambledSobol64RandomNumberGenerator,
}


def draws_made(n: int, g_count: int) -> np.ndarray:
    """How many numbers each generator drew for a gen_* call of n."""
    return n // g_count + (np.arange(g_count) < n % g_count)


def reference_draws(directions: np.ndarray, scramble: np.ndarray, first,
                    n: int, bits: int) -> np.ndarray:
    """Element idx of a gen_* call of n: generator idx % G's draw idx // G,
    where draw m of generator g is its Sobol point at position first + m:
    the scramble constant xor the direction vectors the Gray code selects."""
    word = np.uint32 if bits == 32 else np.uint64
    g_count = directions.shape[0]
    idx = np.arange(n)
    g, m = idx % g_count, idx // g_count
    position = (np.broadcast_to(first, (g_count,))[g] + m).astype(np.uint64)
    gray = position ^ (position >> np.uint64(1))
    x = scramble[g].astype(word)
    for k in range(bits):
        selected = ((gray >> np.uint64(k)) & np.uint64(1)).astype(bool)
        x = np.where(selected, x ^ directions[g, k], x)
    return x.astype(word)


def make(bits: int, scrambled: bool, offset: int = 0):
    gen = SOBOL[bits, scrambled](offset=offset)
    count = gen.generator_count
    word = np.uint32 if bits == 32 else np.uint64
    table = {(32, False): curandom.direction_vector_set.VECTOR_32,
             (32, True): curandom.direction_vector_set.SCRAMBLED_VECTOR_32,
             (64, False): curandom.direction_vector_set.VECTOR_64,
             (64, True): curandom.direction_vector_set.SCRAMBLED_VECTOR_64}[bits, scrambled]
    directions = curandom.generate_direction_vectors(count, table).get()
    if scrambled:
        scramble = (curandom.generate_scramble_constants32 if bits == 32
                    else curandom.generate_scramble_constants64)(count).get()
    else:
        scramble = np.zeros(count, word)
    return gen, directions, scramble


@pytest.mark.parametrize("bits", [32, 64])
def test_direction_vectors_are_joe_kuo_and_repeat_past_their_dimensions(bits: int) -> None:
    word = np.uint32 if bits == 32 else np.uint64
    kind = (curandom.direction_vector_set.VECTOR_32 if bits == 32
            else curandom.direction_vector_set.VECTOR_64)
    rows = curandom.generate_direction_vectors(20_003, kind).get()
    assert rows.shape == (20_003, bits) and rows.dtype == word
    # Dimension 1 is van der Corput's sequence: v_k = 2^(bits-1-k).
    np.testing.assert_array_equal(rows[0], (word(1) << np.arange(bits - 1, -1, -1).astype(word)))
    # Every direction vector k has its top k bits as Joe and Kuo's m_k / 2^k.
    assert len({tuple(r) for r in rows[:2000]}) == 2000
    np.testing.assert_array_equal(rows[20_000:], rows[:3])  # cuRAND's 20000, then again
    constants = curandom.generate_scramble_constants32(5).get()
    assert constants.dtype == np.uint32 and constants.shape == (5,)


@pytest.mark.parametrize("bits,scrambled", list(SOBOL), ids=lambda v: str(v))
def test_integers_match_the_sobol_sequence(bits: int, scrambled: bool) -> None:
    gen, directions, scramble = make(bits, scrambled, offset=3)
    dtype = np.uint32 if bits == 32 else np.uint64
    got = gen.gen_uniform(N, dtype).get()
    np.testing.assert_array_equal(got, reference_draws(directions, scramble, 3, N, bits))
    # The next call continues each generator's sequence.
    got = gen.gen_uniform(N, dtype).get()
    first = 3 + draws_made(N, gen.generator_count)
    np.testing.assert_array_equal(got, reference_draws(directions, scramble, first, N, bits))


@pytest.mark.parametrize("bits,scrambled", list(SOBOL), ids=lambda v: str(v))
def test_uniform_floats_and_doubles(bits: int, scrambled: bool) -> None:
    gen, directions, scramble = make(bits, scrambled)
    x = reference_draws(directions, scramble, 0, N, bits)
    floats = gen.gen_uniform(N, np.float32).get()
    top = (x >> np.uint64(32)).astype(np.uint32) if bits == 64 else x
    expected = top.astype(np.float64) * 2.0**-32 + 2.0**-33
    np.testing.assert_allclose(floats, expected, rtol=2.5e-7)
    assert floats.min() > 0 and floats.max() <= 1
    x = reference_draws(directions, scramble, draws_made(N, gen.generator_count), N, bits)
    doubles = gen.gen_uniform(N, np.float64).get()
    if bits == 32:
        expected = x.astype(np.float64) * 2.3283064365386963e-10 + 2.3283064365386963e-10
    else:
        expected = (x >> np.uint64(11)).astype(np.float64) * 2.0**-53 + 2.0**-54
    np.testing.assert_array_equal(doubles, expected)


def normal_reference(x: np.ndarray, bits: int, double: bool = False) -> np.ndarray:
    """curand_normal(_double) of a draw: the normal quantile of its uniform,
    mirrored at one half (the 32 top bits; 53 for a 64-bit draw's double)."""
    quantile = statistics.NormalDist().inv_cdf
    if bits == 64 and double:
        words, half, top, scale = x >> np.uint64(11), 2**52, 2**53 - 1, 2.0**-53
    else:
        words = (x >> np.uint64(32)).astype(np.uint32) if bits == 64 else x
        half, top, scale = 2**31, 2**32 - 1, 2.0**-32
    out = np.empty(len(x))
    for i, t in enumerate(words.tolist()):
        mirrored = t > half
        t = top - t if mirrored else t
        value = quantile(t * scale + scale / 2)
        out[i] = -value if mirrored else value
    return out


@pytest.mark.parametrize("bits,scrambled", list(SOBOL), ids=lambda v: str(v))
def test_normals_are_the_inverse_normal_cdf_of_the_draws(bits: int, scrambled: bool) -> None:
    gen, directions, scramble = make(bits, scrambled)
    got = gen.gen_normal(N, np.float32).get()
    expected = normal_reference(reference_draws(directions, scramble, 0, N, bits), bits)
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=2e-6)
    doubles = gen.gen_normal(N, np.float64).get()
    x = reference_draws(directions, scramble, draws_made(N, gen.generator_count), N, bits)
    np.testing.assert_allclose(doubles, normal_reference(x, bits, double=True), rtol=1e-12)


def poisson_reference(x: np.ndarray, lam: float) -> np.ndarray:
    """cuRAND's Poisson by inversion of one 32-bit draw (lambda < 500): the
    first k whose cumulative probability reaches the draw's uniform."""
    out = np.empty(len(x), np.uint32)
    start = math.exp(-lam)
    for i, t in enumerate(x.tolist()):
        u = t * 2.3283064365386963e-10 + 2.3283064365386963e-10 / 2
        p = q = start
        k = 0
        while u > q:
            k += 1
            p *= lam / k
            q += p
        out[i] = k
    return out


def test_log_normal_and_poisson() -> None:
    gen, directions, scramble = make(32, False)
    g_count = gen.generator_count
    logs = gen.gen_log_normal(N, np.float32, 0.5, 0.25).get()
    x = reference_draws(directions, scramble, 0, N, 32)
    np.testing.assert_allclose(logs, np.exp(0.5 + 0.25 * normal_reference(x, 32)), rtol=3e-6)
    made = draws_made(N, g_count)
    counts = gen.gen_poisson(N, np.uint32, 13.0).get()
    x = reference_draws(directions, scramble, made, N, 32)
    np.testing.assert_array_equal(counts, poisson_reference(x, 13.0))
    means = ga.to_gpu(np.full(N, 4.0, np.float32))
    gen.fill_poisson(means)
    x = reference_draws(directions, scramble, 2 * made, N, 32)
    np.testing.assert_array_equal(means.get(), poisson_reference(x, 4.0).astype(np.float32))


@pytest.mark.parametrize("bits", [32, 64])
def test_skip_ahead(bits: int) -> None:
    gen, directions, scramble = make(bits, False)
    dtype = np.uint32 if bits == 32 else np.uint64
    gen.call_skip_ahead(1000)
    np.testing.assert_array_equal(gen.gen_uniform(N, dtype).get(),
                                  reference_draws(directions, scramble, 1000, N, bits))
    gen, directions, scramble = make(bits, False)
    skips = random_array(gen.generator_count, np.int64, low=0, high=5000).astype(dtype)
    gen.call_skip_ahead_array(ga.to_gpu(skips))
    one = gen.gen_uniform(gen.generator_count, dtype).get()
    for g in (0, 1, gen.generator_count - 1):
        single = reference_draws(directions[g:g + 1], scramble[g:g + 1], int(skips[g]), 1, bits)
        assert one[g] == single[0]


def test_given_direction_vectors_and_scramble_constants() -> None:
    probe = curandom.ScrambledSobol32RandomNumberGenerator()
    count = probe.generator_count
    directions = curandom.generate_direction_vectors(count + 7)[7:]
    scramble = ga.to_gpu(random_array(count, np.int64, low=0, high=2**31).astype(np.uint32))
    gen = curandom.ScrambledSobol32RandomNumberGenerator(directions.copy(), scramble)
    np.testing.assert_array_equal(
        gen.gen_uniform(N, np.uint32).get(),
        reference_draws(directions.get(), scramble.get(), 0, N, 32))


def test_bad_input() -> None:
    gen = curandom.Sobol32RandomNumberGenerator()
    count = gen.generator_count
    with pytest.raises(TypeError, match=r"dir_vector must be a C-contiguous uint32 GPUArray of "
                                        rf"shape \({count}, 32\).*got a uint32 GPUArray of shape "
                                        rf"\(5, 32\)"):
        curandom.Sobol32RandomNumberGenerator(curandom.generate_direction_vectors(5))
    with pytest.raises(TypeError, match=r"dir_vector must be .*uint64.*got ndarray"):
        curandom.Sobol64RandomNumberGenerator(np.zeros((count, 64), np.uint64))
    with pytest.raises(TypeError, match=r"scramble_vector must be .*shape \(\d+,\)"):
        curandom.ScrambledSobol32RandomNumberGenerator(
            scramble_vector=ga.to_gpu(np.zeros(3, np.uint32)))
    with pytest.raises(ValueError, match=r"offset must be >= 0, got -1"):
        curandom.Sobol32RandomNumberGenerator(offset=-1)
    with pytest.raises(ValueError, match=r"offset must be below 2\*\*32"):
        curandom.Sobol32RandomNumberGenerator(offset=2**32)
    with pytest.raises(ValueError, match=r"direction must be one of"):
        curandom.generate_direction_vectors(4, 7)
    with pytest.raises(ValueError, match=r"generate_direction_vectors: count must be >= 0"):
        curandom.generate_direction_vectors(-1)
    with pytest.raises(TypeError, match=r"generate_scramble_constants64: count must be an int"):
        curandom.generate_scramble_constants64(2.5)
    assert curandom.generate_scramble_constants32(0).shape == (0,)
    with pytest.raises(TypeError, match=r"expected a contiguous uint32 GPUArray"):
        gen.call_skip_ahead_array(ga.to_gpu(np.zeros(count, np.uint64)))
    with pytest.raises(NotImplementedError, match="fill_normal: dtype int32"):
        gen.fill_normal(ga.empty(10, np.int32))


def test_missing_libcurand_is_a_clear_error() -> None:
    code = ("import cudakit.autoinit, cudakit.curandom as c\n"
            "print(c.get_curand_version())\n"
            "try:\n    c.Sobol32RandomNumberGenerator()\n"
            "except Exception as e:\n    print(type(e).__name__, e)\n")
    env = dict(os.environ, CUDAKIT_CURAND="/nonexistent/libcurand.so")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("(5, 0, 0)\nLibraryNotFound"), out.stdout
    assert "libcurand (cuRAND)" in out.stdout and "CUDAKIT_CURAND is set" in out.stdout


INVERSE_ERF = r"""
extern "C" __global__ void inverse_erf(const double* x, double* out, float* out_f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[4 * i + 0] = erfinv(x[i]);
  out[4 * i + 1] = erfcinv(x[i] + 1.0);
  out[4 * i + 2] = normcdfinv(0.5 * (x[i] + 1.0));
  out[4 * i + 3] = erfcinv(fabs(x[i]) * 1e-200);
  float xf = (float)x[i];
  out_f[3 * i + 0] = erfinvf(xf);
  out_f[3 * i + 1] = erfcinvf(xf + 1.0f);
  out_f[3 * i + 2] = normcdfinvf(0.5f * (xf + 1.0f));
}
"""


def test_inverse_error_functions_in_kernels() -> None:
    x = random_array(1001, np.float64, low=-1, high=1)
    x[:6] = [0.0, 1e-12, -1e-300, 0.999999999, -0.5, 0.5]
    out = ga.zeros(4 * x.size, np.float64)
    out_f = ga.zeros(3 * x.size, np.float32)
    kernel = SourceModule(INVERSE_ERF).get_function("inverse_erf")
    kernel(ga.to_gpu(x), out, out_f, np.int32(x.size), block=(128, 1, 1),
           grid=((x.size + 127) // 128, 1))
    got = out.get().reshape(-1, 4)
    quantile = statistics.NormalDist().inv_cdf
    root2 = math.sqrt(2)
    # erf(erfinv(x)) = x to double precision, also for tiny x.
    np.testing.assert_allclose([math.erf(t) for t in got[:, 0]], x, rtol=1e-14, atol=1e-300)
    expected = np.array([quantile(0.5 * (v + 1)) / root2 for v in x.tolist()])
    np.testing.assert_allclose(got[:, 0], expected, rtol=1e-7, atol=1e-15)
    np.testing.assert_allclose(got[:, 1], -got[:, 0], rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(got[:, 2], got[:, 0] * root2, rtol=1e-7, atol=1e-12)
    tiny = np.abs(x) * 1e-200
    ok = tiny > 0
    np.testing.assert_allclose([math.erfc(t) for t in got[ok, 3]], tiny[ok], rtol=1e-12)
    # float: the double result of the float argument (computed as the kernel
    # does, in float), rounded.
    xf = x.astype(np.float32)
    yf = xf + np.float32(1)
    pf = np.float32(0.5) * yf
    keep = (np.abs(xf) < 1) & (yf > 0) & (yf < 2) & (pf > 0) & (pf < 1)
    got_f = out_f.get().reshape(-1, 3)[keep]
    wide = xf.astype(np.float64)[keep]
    np.testing.assert_allclose(got_f[:, 0], [quantile(0.5 * (v + 1)) / root2 for v in wide],
                               rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got_f[:, 1], [-quantile(float(v) / 2) / root2 for v in yf[keep]],
                               rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got_f[:, 2], [quantile(float(v)) for v in pf[keep]],
                               rtol=2e-6, atol=1e-6)


EDGES = r"""
extern "C" __global__ void edges(const double* x, double* out, int n) {
  for (int i = 0; i < n; ++i) {
    out[3 * i] = erfinv(x[i]);
    out[3 * i + 1] = erfcinv(x[i]);
    out[3 * i + 2] = normcdfinv(x[i]);
  }
}
"""


def test_inverse_error_function_edges() -> None:
    x = np.array([-1.0, 1.0, 0.0, 2.0, -0.5, 2.5, np.nan, -0.0])
    out = ga.zeros(3 * x.size, np.float64)
    SourceModule(EDGES).get_function("edges")(ga.to_gpu(x), out, np.int32(x.size),
                                              block=(1, 1, 1), grid=(1, 1))
    got = out.get().reshape(-1, 3)
    assert got[0, 0] == -np.inf and got[1, 0] == np.inf and got[2, 0] == 0
    assert got[2, 1] == np.inf and got[3, 1] == -np.inf  # erfcinv(0), erfcinv(2)
    assert got[2, 2] == -np.inf and got[1, 2] == np.inf  # normcdfinv(0), normcdfinv(1)
    assert np.isnan(got[4, 1]) and np.isnan(got[4, 2]) and np.isnan(got[5]).all()
    assert np.isnan(got[6]).all()
    assert got[7, 0] == 0 and np.signbit(got[7, 0])
