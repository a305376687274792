"""NumPy ufuncs called inside kernels, as Numba has them: on numbers they
are the operator or math function; on arrays they run elementwise in the
calling thread, into the out array. Checked against the same function run
by the interpreter."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda.translate.errors import UnsupportedError

from .interpreted import run_threads

RNG = np.random.default_rng(97)
N = 37  # not a multiple of the block


def whole_arrays(x, y, added, scaled, squared, biggest, sines):
    if cuda.grid(1) == 0:
        np.add(x, y, added)
        np.multiply(x, 2.0, scaled)
        np.power(x, 2, out=squared)
        np.maximum(x, y, biggest)
        np.sin(x, sines)


def row_per_thread(a, b, row, out, diff):
    i = cuda.grid(1)
    if i < a.shape[0]:
        np.subtract(a[i], b[i], diff[i])
    if i == 0:
        np.add(a, row, out)  # the 1-d row broadcasts over a's rows


def on_numbers(x, y, out, flags):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = np.add(x[i], y[i]) * np.true_divide(x[i], 4) - np.floor_divide(x[i], y[i])
        flags[i] = np.greater(x[i], y[i]) + 2 * np.logical_and(x[i] > 0, y[i] > 0)


def integer_ufuncs(a, b, out):
    if cuda.grid(1) == 0:
        np.remainder(a, b, out)
        np.bitwise_xor(out, a, out)


def test_binary_and_unary_ufuncs_over_whole_arrays():
    x, y = RNG.standard_normal(N), RNG.standard_normal(N)
    outs = [np.zeros(N) for _ in range(5)]
    expected = run_threads(whole_arrays, 40, x, y, *outs)[2:]
    d_outs = [cuda.to_device(o) for o in outs]
    cuda.jit(whole_arrays)[2, 32](cuda.to_device(x), cuda.to_device(y), *d_outs)
    for got, want in zip(d_outs, expected):
        np.testing.assert_allclose(got.copy_to_host(), want, rtol=1e-12)


def test_ufuncs_on_row_views_and_broadcasting_a_row():
    a = RNG.standard_normal((9, 13)).astype(np.float32)
    b = RNG.standard_normal((9, 13)).astype(np.float32)
    row = RNG.standard_normal(13).astype(np.float32)
    out, diff = np.zeros_like(a), np.zeros_like(a)
    expected = run_threads(row_per_thread, 40, a, b, row, out, diff)[3:]
    d_out, d_diff = cuda.to_device(out), cuda.to_device(diff)
    cuda.jit(row_per_thread)[2, 32](cuda.to_device(a), cuda.to_device(b),
                                    cuda.to_device(row), d_out, d_diff)
    np.testing.assert_allclose(d_out.copy_to_host(), expected[0], rtol=1e-6)
    np.testing.assert_allclose(d_diff.copy_to_host(), expected[1], rtol=1e-6)


def test_ufuncs_on_numbers_follow_the_operators():
    x = RNG.integers(-50, 50, N).astype(np.int64)
    y = RNG.integers(1, 9, N).astype(np.int64) * RNG.choice([-1, 1], N)
    out, flags = np.zeros(N), np.zeros(N, np.int64)
    expected = run_threads(on_numbers, 40, x, y, out, flags)[2:]
    d_out, d_flags = cuda.to_device(out), cuda.to_device(flags)
    cuda.jit(on_numbers)[2, 32](cuda.to_device(x), cuda.to_device(y), d_out, d_flags)
    np.testing.assert_allclose(d_out.copy_to_host(), expected[0], rtol=1e-12)
    np.testing.assert_array_equal(d_flags.copy_to_host(), expected[1])


def test_integer_ufuncs_with_python_remainder():
    a = RNG.integers(-100, 100, N).astype(np.int32)
    b = RNG.integers(1, 7, N).astype(np.int32) * RNG.choice([-1, 1], N).astype(np.int32)
    expected = run_threads(integer_ufuncs, 1, a, b, np.zeros(N, np.int32))[2]
    out = cuda.to_device(np.zeros(N, np.int32))
    cuda.jit(integer_ufuncs)[1, 32](cuda.to_device(a), cuda.to_device(b), out)
    np.testing.assert_array_equal(out.copy_to_host(), expected)


def test_ufuncs_on_numbers_take_numpys_loop_types():
    @cuda.jit
    def typed(a, out, neg):
        i = cuda.grid(1)
        if i < a.shape[0]:
            s = np.add(a[i], a[i])  # int32 + int32 in NumPy's loop: int32 (wraps)
            out[i] = s
            neg[i] = np.negative(np.float32(a[i]))

    a = np.array([2**30 + 5, -7, 3], np.int32)
    out = cuda.to_device(np.zeros(3, np.int64))
    neg = cuda.to_device(np.zeros(3, np.float32))
    typed[1, 32](cuda.to_device(a), out, neg)
    np.testing.assert_array_equal(out.copy_to_host(), np.add(a, a).astype(np.int64))
    np.testing.assert_array_equal(neg.copy_to_host(), -a.astype(np.float32))
    (types,) = typed.overloads
    assert typed.overloads[types].translation.local_types["s"].name == "int32"


def test_ufunc_on_arrays_without_out_is_unsupported_naming_the_line():
    @cuda.jit
    def no_out(x, y):
        y[0] = np.add(x, x)[0]

    with pytest.raises(UnsupportedError, match=r"needs the out array(.|\n)*line \d+"):
        no_out[1, 1](cuda.to_device(np.ones(3)), cuda.to_device(np.ones(3)))


def complex_and_half_arrays(z, zout, h, hout):
    if cuda.grid(1) == 0:
        np.exp(z, zout)
        np.multiply(zout, z, zout)
        np.multiply(h, h, hout)
        np.sqrt(hout, hout)


def test_ufuncs_on_complex_and_float16_arrays():
    z = (RNG.uniform(-1, 1, N) + 1j * RNG.uniform(-1, 1, N)).astype(np.complex64)
    h = RNG.uniform(-3, 3, N).astype(np.float16)
    expected = run_threads(complex_and_half_arrays, 1, z, np.zeros_like(z), h,
                           np.zeros_like(h))
    d_z, d_h = cuda.to_device(np.zeros_like(z)), cuda.to_device(np.zeros_like(h))
    cuda.jit(complex_and_half_arrays)[1, 32](cuda.to_device(z), d_z, cuda.to_device(h), d_h)
    np.testing.assert_allclose(d_z.copy_to_host(), expected[1], rtol=2e-6)
    # (float16: the square rounds to half, then the root rounds again: exact.)
    np.testing.assert_array_equal(d_h.copy_to_host(), expected[3])


def orders_and_extremes(x, y, less, greater_equal, biggest, smallest, fbiggest, fsmallest):
    i = cuda.grid(1)
    if i < x.shape[0]:
        less[i] = np.less(x[i], y[i])
        greater_equal[i] = np.greater_equal(x[i], y[i])
        biggest[i] = np.maximum(x[i], y[i])
        smallest[i] = np.minimum(x[i], y[i])
        fbiggest[i] = np.fmax(x[i], y[i])
        fsmallest[i] = np.fmin(x[i], y[i])


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.complex64])
def test_orderings_and_extremes_with_nans_as_numpy(dtype):
    # Ties in the real part (so the imaginary part decides) and NaNs on
    # either side, where NumPy's maximum keeps the NaN and fmax the number.
    x = RNG.integers(-2, 3, N).astype(dtype)
    y = RNG.integers(-2, 3, N).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x += 1j * RNG.integers(-2, 3, N)
        y += 1j * RNG.integers(-2, 3, N)
    x[3], y[7], x[11], y[11] = np.nan, np.nan, np.nan, np.nan
    outs = [np.zeros(N, bool), np.zeros(N, bool)] + [np.zeros(N, dtype) for _ in range(4)]
    cuda.jit(orders_and_extremes)[2, 32](x, y, *outs)
    expected = [np.less(x, y), np.greater_equal(x, y), np.maximum(x, y), np.minimum(x, y),
                np.fmax(x, y), np.fmin(x, y)]
    for got, want in zip(outs, expected):
        np.testing.assert_array_equal(got, want)
