"""complex64/complex128 and float16 values and arrays in kernels: operators,
abs, .real/.imag/.conjugate(), cmath, complex(), Numba's promotion, float16
rounded after every operation, cuda.fp16's intrinsics; each against the same
function run by the interpreter."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

from cudakit import cuda
from cudakit import driver as drv
from cudakit.cuda.translate.errors import TypingError, UnsupportedError

from .interpreted import run_threads

RNG = np.random.default_rng(1618)
HAS_GPU = drv.backend() == "cuda"
N = 41  # not a multiple of the block


def complex_values(dtype):
    return (RNG.uniform(-2, 2, N) + 1j * RNG.uniform(-2, 2, N)).astype(dtype)


def complex_arithmetic(a, b, c, out, parts):
    i = cuda.grid(1)
    if i < a.shape[0]:
        z = a[i] * b[i] + a[i] / b[i] - c
        z = z * z.conjugate() + (z - 1) ** 2 + 2 * a[i] - 0.5j
        out[i] = z + abs(b[i]) + complex(a[i].imag, b[i].real)
        parts[i] = z.real - z.imag + (a[i] == b[i]) + (a[i] != b[i])


def complex_functions(a, out, real):
    i = cuda.grid(1)
    if i < a.shape[0]:
        z = a[i]
        out[i] = (cmath.exp(z) + cmath.log(z) + cmath.sqrt(z) + cmath.sin(z) + cmath.cos(z)
                  + cmath.tanh(z) + cmath.asin(z) + cmath.atanh(z) + cmath.log10(z)
                  + cmath.rect(1.5, z.real) + cmath.sqrt(-z.real))
        r, phi = cmath.polar(z)
        real[i] = r + phi + cmath.phase(z) + cmath.isnan(z) + cmath.isfinite(z)


@pytest.mark.parametrize("dtype,rtol", [(np.complex128, 1e-12), (np.complex64, 2e-5)])
def test_complex_arithmetic_matches_the_interpreter(dtype, rtol):
    a, b = complex_values(dtype), complex_values(dtype)
    c = complex(0.25, -1.5)
    out, parts = np.zeros(N, dtype), np.zeros(N)
    expected = run_threads(complex_arithmetic, N, a, b, c, out, parts)
    d_out, d_parts = cuda.to_device(out), cuda.to_device(parts)
    cuda.jit(complex_arithmetic)[2, 32](cuda.to_device(a), cuda.to_device(b), c, d_out,
                                        d_parts)
    np.testing.assert_allclose(d_out.copy_to_host(), expected[3], rtol=rtol)
    np.testing.assert_allclose(d_parts.copy_to_host(), expected[4], rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype,rtol", [(np.complex128, 1e-12), (np.complex64, 1e-5)])
def test_cmath_functions_match_the_interpreter(dtype, rtol):
    a = complex_values(dtype)
    out, real = np.zeros(N, dtype), np.zeros(N)
    expected = run_threads(complex_functions, N, a, out, real)
    d_out, d_real = cuda.to_device(out), cuda.to_device(real)
    cuda.jit(complex_functions)[2, 32](cuda.to_device(a), d_out, d_real)
    np.testing.assert_allclose(d_out.copy_to_host(), expected[1], rtol=rtol)
    np.testing.assert_allclose(d_real.copy_to_host(), expected[2], rtol=rtol)


def test_complex_promotion_follows_numba():
    @cuda.jit
    def mixed(a, x, out):
        out[0] = a[0] * x[0]  # complex64 * float64 -> complex128
        out[1] = a[0] * np.float32(3)  # stays complex64

    a = np.array([1 / 3 + 1j / 7], np.complex64)
    x = np.array([1 / 3])
    out = cuda.to_device(np.zeros(2, np.complex128))
    mixed[1, 1](cuda.to_device(a), cuda.to_device(x), out)
    (types,) = mixed.overloads
    local = mixed.overloads[types].translation.source
    assert "cudakit_c128(" in local and "cudakit_c64(" in local
    got = out.copy_to_host()
    assert got[0] == np.complex128(a[0]) * x[0]
    assert got[1] == a[0] * np.float32(3)


def half_arithmetic(x, y, k, out, wide):
    i = cuda.grid(1)
    if i < x.shape[0]:
        h = x[i] * y[i] + x[i]
        h = h / y[i] - np.float16(0.1) * h
        out[i] = -h + np.sqrt(abs(h)) + h ** 2
        wide[i] = x[i] + k[i]  # float16 with int64: float64
        if h and x[i] < y[i]:
            wide[i] += (x[i] > 0) + (h == x[i])


def test_float16_rounds_after_every_operation():
    x = RNG.uniform(-4, 4, N).astype(np.float16)
    y = RNG.uniform(0.5, 3, N).astype(np.float16)
    k = RNG.integers(-3, 3, N).astype(np.int64)
    out, wide = np.zeros(N, np.float16), np.zeros(N)
    expected = run_threads(half_arithmetic, N, x, y, k, out, wide)
    d_out, d_wide = cuda.to_device(out), cuda.to_device(wide)
    cuda.jit(half_arithmetic)[2, 32](cuda.to_device(x), cuda.to_device(y),
                                     cuda.to_device(k), d_out, d_wide)
    if HAS_GPU:
        # The GPU contracts f16 multiplies and adds into fma.rn.f16 (as nvcc's
        # and numba-cuda's code does): each fused pair rounds once, not twice.
        # A few float16 ulps of the terms; the CPU backend rounds every step.
        terms = expected[3].astype(np.float64)
        np.testing.assert_allclose(d_out.copy_to_host(), terms, rtol=8e-3,
                                   atol=8e-3 * np.abs(terms).max())
    else:
        np.testing.assert_array_equal(d_out.copy_to_host(), expected[3])
    np.testing.assert_array_equal(d_wide.copy_to_host(), expected[4])


def test_fp16_intrinsics():
    @cuda.jit
    def intrinsics(x, y, out, flags):
        i = cuda.grid(1)
        if i < x.shape[0]:
            a, b = x[i], y[i]
            out[i, 0] = cuda.fp16.hadd(a, b)
            out[i, 1] = cuda.fp16.hmul(a, b)
            out[i, 2] = cuda.fp16.hfma(a, b, a)
            out[i, 3] = cuda.fp16.hsqrt(cuda.fp16.habs(a))
            out[i, 4] = cuda.fp16.hmax(a, cuda.fp16.hneg(b))
            out[i, 5] = cuda.fp16.hdiv(a, b)
            flags[i] = cuda.fp16.hlt(a, b)

    x = RNG.uniform(-4, 4, N).astype(np.float16)
    y = RNG.uniform(0.5, 3, N).astype(np.float16)
    out = cuda.to_device(np.zeros((N, 6), np.float16))
    flags = cuda.to_device(np.zeros(N, np.bool_))
    intrinsics[2, 32](cuda.to_device(x), cuda.to_device(y), out, flags)
    a, b = x.astype(np.float64), y.astype(np.float64)
    expected = np.stack([a + b, a * b, a * b + a, np.sqrt(np.abs(a)), np.maximum(a, -b),
                         a / b], axis=1).astype(np.float16)
    np.testing.assert_array_equal(out.copy_to_host(), expected)
    np.testing.assert_array_equal(flags.copy_to_host(), x < y)


def test_complex_and_half_scalar_arguments():
    @cuda.jit
    def scale(a, c, h, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = a[i] * c + h

    a = complex_values(np.complex128)
    out = cuda.to_device(np.zeros(N, np.complex128))
    scale[2, 32](cuda.to_device(a), 2 - 0.5j, np.float16(1.5), out)
    np.testing.assert_allclose(out.copy_to_host(), a * (2 - 0.5j) + 1.5, rtol=1e-14)


def test_complex_misuse_is_a_typing_error_naming_the_line():
    @cuda.jit
    def ordered(a, out):
        out[0] = a[0] < a[1]

    @cuda.jit
    def to_float(a, out):
        out[0] = float(a[0])

    a = cuda.to_device(complex_values(np.complex128))
    with pytest.raises(TypingError, match=r"not ordered(.|\n)*line \d+"):
        ordered[1, 1](a, cuda.device_array(1, np.bool_))
    with pytest.raises(TypingError, match=r"cannot convert complex128 to float64"):
        to_float[1, 1](a, cuda.device_array(1))


def test_tuple_arguments_of_complex_and_half_numbers():
    @cuda.jit
    def takes(pair, out):
        out[0] = pair[0] + pair[1] + pair[2]

    out = cuda.device_array(1, np.complex128)
    takes[1, 1]((1 + 2j, 3.0, np.float16(0.5)), out)
    assert out.copy_to_host()[0] == 4.5 + 2j


HALVES = np.array([0.5, 1.5], np.float16)


def test_float16_constant_arrays_are_unsupported_with_the_way_out():
    @cuda.jit
    def reads(out):
        out[0] = HALVES[1]

    with pytest.raises(UnsupportedError, match=r"pass it to the kernel as an argument"):
        reads[1, 1](cuda.device_array(1, np.float16))
