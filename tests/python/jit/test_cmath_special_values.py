"""cmath functions in kernels give Python's cmath values where a part is
infinite, NaN or a signed zero (CPython's special-value tables, which differ
from C99 Annex G in a few cells), and the same digits elsewhere; each against
the interpreter running the same function."""

from __future__ import annotations

import cmath
import itertools
import math

import numpy as np
import pytest

from cudakit import cuda

from .interpreted import run_threads

RNG = np.random.default_rng(2718)
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan]
FUNCTIONS = ["exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos",
             "atan", "asinh", "acosh", "atanh"]


def arguments(dtype):
    """Every pair of special parts and random finite ones, shuffled (a count
    that is not a multiple of the block)."""
    parts = SPECIAL + list(RNG.uniform(-4, 4, 3))
    values = [complex(x, y) for x, y in itertools.product(parts, parts)]
    RNG.shuffle(values)
    return np.array(values, dtype)


def make_kernel(name):
    function = getattr(cmath, name)

    def apply(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i] = function(a[i])
    return apply


def assert_same_parts(got, expected, rtol, where):
    for g, e in zip((got.real, got.imag), (expected.real, expected.imag)):
        g, e = float(g), float(e)
        if math.isnan(e):
            assert math.isnan(g), where
        elif e == 0 or math.isinf(e):
            assert g == e and math.copysign(1, g) == math.copysign(1, e), where
        else:
            assert abs(g - e) <= rtol * max(abs(e), abs(complex(expected))), where


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype,rtol", [(np.complex128, 1e-13), (np.complex64, 1e-5)])
def test_cmath_special_values_match_the_interpreter(name, dtype, rtol):
    a = arguments(dtype)
    kernel = make_kernel(name)
    d_out = cuda.to_device(np.zeros(a.size, dtype))
    cuda.jit(kernel)[2, 64](cuda.to_device(a), d_out)
    got = d_out.copy_to_host()
    for i, z in enumerate(a):
        try:
            (_, out) = run_threads(kernel, 1, a[i:i + 1], np.zeros(1, dtype))
        except ValueError:  # cmath's domain error: no value to compare
            continue
        assert_same_parts(got[i], out[0], rtol, f"cmath.{name}({complex(z)})")


def rect_kernel(r, phi, out):
    i = cuda.grid(1)
    if i < r.shape[0]:
        out[i] = cmath.rect(r[i], phi[i])


def log_base_kernel(z, base, out):
    i = cuda.grid(1)
    if i < z.shape[0]:
        out[i] = cmath.log(z[i], base[i])


def test_cmath_rect_special_values_match_the_interpreter():
    parts = SPECIAL + list(RNG.uniform(-4, 4, 3))
    pairs = list(itertools.product(parts, parts))
    r, phi = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    d_out = cuda.to_device(np.zeros(r.size, np.complex128))
    cuda.jit(rect_kernel)[2, 64](cuda.to_device(r), cuda.to_device(phi), d_out)
    got = d_out.copy_to_host()
    for i in range(r.size):
        try:
            (_, _, out) = run_threads(rect_kernel, 1, r[i:i + 1], phi[i:i + 1],
                                      np.zeros(1, np.complex128))
        except ValueError:
            continue
        assert_same_parts(got[i], out[0], 1e-13, f"cmath.rect({r[i]}, {phi[i]})")


def test_cmath_log_base_of_complex64_keeps_the_digits_of_the_quotient():
    # In float, log(z) / log(base) of nearby values cancels; Python's is double.
    z = (RNG.uniform(-4, 4, 37) + 1j * RNG.uniform(-4, 4, 37)).astype(np.complex64)
    base = (z * np.complex64(1 + 1e-3j)).astype(np.complex64)
    out = np.zeros(z.size, np.complex64)
    expected = run_threads(log_base_kernel, z.size, z, base, out)[2]
    d_out = cuda.to_device(out)
    cuda.jit(log_base_kernel)[2, 32](cuda.to_device(z), cuda.to_device(base), d_out)
    np.testing.assert_allclose(d_out.copy_to_host().real, expected.real, rtol=2e-7)
    np.testing.assert_allclose(d_out.copy_to_host().imag, expected.imag, rtol=2e-7, atol=1e-12)
