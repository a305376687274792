"""Functions numba-cuda's kernels call that cudakit translates: cuda.libdevice,
numpy_support.carray / farray over a CPointer, literal_unroll, NumPy's
whole-array reductions, the operator module's functions, ufuncs of numbers
into an out array, np.invert / fmin / fmax / logical_xor / degrees; each
against NumPy or the same function run by the interpreter on fresh random
input."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import libdevice, types
from cudakit.cuda.misc.special import literal_unroll
from cudakit.cuda.np.numpy_support import carray, farray
from cudakit.cuda.translate.errors import TypingError, UnsupportedError

from .interpreted import run_threads

RNG = np.random.default_rng(4242)
N = 45  # not a multiple of the block


def libdevice_calls(s, c, frac, exp, whole, ints, x, k):
    i = cuda.grid(1)
    if i < x.shape[0]:
        s[i], c[i] = libdevice.sincos(x[i])
        frac[i], exp[i] = libdevice.frexp(x[i])
        _, whole[i] = libdevice.modf(x[i])
        ints[i] = (libdevice.sad(k[i], 3, 7) + libdevice.umax(k[i], 5) * 0
                   + libdevice.max(k[i], -4) + libdevice.brev(libdevice.brev(k[i])))


def test_libdevice_functions_match_numpy():
    x = RNG.uniform(-20, 20, N)
    k = RNG.integers(-1000, 1000, N).astype(np.int32)
    s, c, frac, whole = (np.zeros(N) for _ in range(4))
    exp, ints = np.zeros(N, np.int32), np.zeros(N, np.int32)
    cuda.jit(libdevice_calls)[2, 32](s, c, frac, exp, whole, ints, x, k)
    np.testing.assert_allclose(s, np.sin(x), rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(c, np.cos(x), rtol=1e-15, atol=1e-15)
    expected_frac, expected_exp = np.frexp(x)
    np.testing.assert_array_equal(frac, expected_frac)
    np.testing.assert_array_equal(exp, expected_exp)
    np.testing.assert_array_equal(whole, np.trunc(x))
    np.testing.assert_array_equal(ints, np.abs(k - 3) + 7 + np.maximum(k, -4) + k)


def test_libdevice_on_the_host_says_where_it_works():
    with pytest.raises(RuntimeError, match="only be called inside a @cuda.jit function"):
        libdevice.sinf(1.0)


def test_libdevice_wrong_arguments_are_refused():
    def kernel(out):
        out[0] = libdevice.sincos(1.0, 2.0)[0]

    with pytest.raises(TypingError, match=r"libdevice.sincos\(x: float64\) takes 1 number"):
        cuda.jit(kernel)[1, 1](np.zeros(1))


def pointer_views(p, rows, cols):
    c_view = carray(p, (rows, cols), dtype=np.float32)
    f_view = farray(p, (rows, cols))
    for i in range(rows):
        for j in range(cols):
            c_view[i, j] += 1.0
    f_view[rows - 1, 0] += 100.0


def test_carray_farray_in_kernels_view_the_pointer():
    rows, cols = 3, 5
    data = RNG.random(rows * cols).astype(np.float32)
    device = cuda.to_device(data)
    kernel = cuda.jit(types.void(types.CPointer(types.float32), types.int64, types.int64))(
        pointer_views)
    kernel[1, 1](device.__cuda_array_interface__["data"][0], rows, cols)
    expected = data + 1
    expected[rows - 1] += 100  # (rows - 1, 0) in Fortran order is element rows - 1
    np.testing.assert_allclose(device.copy_to_host(), expected, rtol=1e-6)


MIXED_ARRAYS = (np.arange(4.0), np.array([3, 1, 2], dtype=np.int32))


def unrolled(out, x):
    i = cuda.grid(1)
    if i < out.shape[0]:
        total = 0.0
        for item in literal_unroll((x[i], 7, 1.5)):
            if item == 7:
                continue  # ends this item's copy of the body only
            total += item * 2
        for array in literal_unroll(MIXED_ARRAYS):
            total += array[0] + len(array)
        out[i] = total


def test_literal_unroll_runs_the_body_per_item():
    x = RNG.random(N)
    out = np.zeros(N)
    cuda.jit(unrolled)[2, 32](out, x)
    (expected, _) = run_threads(unrolled, N, np.zeros(N), x)
    np.testing.assert_allclose(out, expected)


def test_literal_unroll_refuses_break():
    def kernel(out):
        for v in literal_unroll((1, 2.0)):
            if v > 1:
                break
            out[0] = v

    with pytest.raises(UnsupportedError, match="break in a loop over literal_unroll"):
        cuda.jit(kernel)[1, 1](np.zeros(1))


REDUCTIONS = [np.sum, np.prod, np.min, np.max, np.mean, np.var, np.std, np.all, np.any,
              np.count_nonzero, np.nansum, np.nanprod, np.nanmin, np.nanmax, np.nanmean]


def reduce_rows(out, a):
    # One thread per reduction: out[k] = reduction k of the whole array.
    out[0] = np.sum(a)
    out[1] = np.prod(a)
    out[2] = np.min(a)
    out[3] = np.max(a)
    out[4] = np.mean(a)
    out[5] = np.var(a)
    out[6] = np.std(a)
    out[7] = np.all(a)
    out[8] = np.any(a)
    out[9] = np.count_nonzero(a)
    out[10] = np.nansum(a)
    out[11] = np.nanprod(a)
    out[12] = np.nanmin(a)
    out[13] = np.nanmax(a)
    out[14] = np.nanmean(a)


@pytest.mark.parametrize("shape,with_nan", [((N,), False), ((5, 7), True), ((3, 4, 2), False),
                                            ((4, 3), True)])
def test_array_reductions_match_numpy(shape, with_nan):
    a = RNG.uniform(0.5, 1.5, shape)
    if with_nan:
        a.flat[RNG.integers(0, a.size)] = np.nan
    view = a if len(shape) < 2 else a[:, ::-1]  # a strided view too
    out = np.zeros(len(REDUCTIONS))
    cuda.jit(reduce_rows)[1, 1](out, view)
    with np.errstate(invalid="ignore"):
        expected = [float(f(view)) for f in REDUCTIONS]
    np.testing.assert_allclose(out, expected, rtol=1e-12, equal_nan=True)


def integer_reductions(out, a):
    out[0] = np.sum(a)
    out[1] = np.min(a)
    out[2] = np.max(a)
    out[3] = np.count_nonzero(a)


def test_integer_reductions_match_numpy():
    a = RNG.integers(-100, 100, (6, 5)).astype(np.int16)
    out = np.zeros(4, np.int64)
    cuda.jit(integer_reductions)[1, 1](out, a)
    np.testing.assert_array_equal(out, [a.sum(), a.min(), a.max(), np.count_nonzero(a)])


def test_reduction_with_an_axis_is_refused():
    def kernel(out, a):
        out[0] = np.sum(a, 0)

    with pytest.raises(TypingError, match="numpy.sum.. in a kernel takes one array"):
        cuda.jit(kernel)[1, 1](np.zeros(1), np.zeros((2, 2)))


BINARY_OPERATORS = (operator.add, operator.sub, operator.mul, operator.truediv,
                    operator.floordiv, operator.mod, operator.pow, operator.lt, operator.ne)


def operator_functions(out, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a, b = x[i], y[i]
        k = 0
        for op in literal_unroll(BINARY_OPERATORS):
            out[i, k] = op(a, b)
            k += 1
        out[i, 9] = operator.neg(a)
        out[i, 10] = operator.abs(a - b)


def test_operator_functions_match_the_interpreter():
    x = RNG.uniform(0.5, 3.0, N)
    y = RNG.uniform(0.5, 3.0, N)
    out = np.zeros((N, len(BINARY_OPERATORS) + 2))
    cuda.jit(operator_functions)[2, 32](out, x, y)
    (expected, _, _) = run_threads(operator_functions, N, np.zeros_like(out), x, y)
    np.testing.assert_allclose(out, expected, rtol=1e-13)


def ufunc_extras(out, numbers, x, y, k, j):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i, 0] = np.fmin(x[i], y[i])
        out[i, 1] = np.fmax(x[i], y[i])
        out[i, 2] = np.logical_xor(x[i] > 0.5, y[i] > 0.5)
        out[i, 3] = np.degrees(x[i]) + np.radians(y[i])
        out[i, 4] = np.invert(k[i]) + np.invert(j[i] > 0)
    if i == 0:
        np.add(2.5, 1.0, numbers)  # numbers into an out array: broadcast to all of it


def test_ufunc_extras_match_numpy():
    x = RNG.random(N)
    y = RNG.random(N)
    x[3] = np.nan
    k = RNG.integers(-50, 50, N).astype(np.int32)
    j = RNG.integers(-5, 5, N).astype(np.int64)
    out = np.zeros((N, 5))
    numbers = np.zeros((2, 3))
    cuda.jit(ufunc_extras)[2, 32](out, numbers, x, y, k, j)
    np.testing.assert_array_equal(out[:, 0], np.fmin(x, y))
    np.testing.assert_array_equal(out[:, 1], np.fmax(x, y))
    np.testing.assert_array_equal(out[:, 2], np.logical_xor(x > 0.5, y > 0.5))
    np.testing.assert_allclose(out[:, 3], np.degrees(x) + np.radians(y), equal_nan=True)
    np.testing.assert_array_equal(out[:, 4], np.invert(k) + np.invert(j > 0))
    np.testing.assert_array_equal(numbers, np.full((2, 3), 3.5))


def math_nextafter(out, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = math.nextafter(x[i], y[i])


def test_math_nextafter_matches_the_interpreter():
    x = RNG.random(N)
    y = RNG.uniform(-1, 2, N)
    out = np.zeros(N)
    cuda.jit(math_nextafter)[2, 32](out, x, y)
    np.testing.assert_array_equal(out, [math.nextafter(a, b) for a, b in zip(x, y)])


def cache_hinted_copy(out, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        value = cuda.ldcg(x, i) + cuda.ldca(x, i) + cuda.ldcs(x, i) + cuda.ldlu(x, i) \
            + cuda.ldcv(x, i)
        cuda.stcg(out, (i, 0), value)
        cuda.stcs(out, (i, 1), cuda.ldcg(y, i))
        cuda.stwb(out, (i, 2), -value)
        cuda.stwt(out, (i, 3), 1.5)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.float16, np.float32, np.int64])
def test_cache_hinted_loads_and_stores_move_the_elements(dtype):
    x = (RNG.random(N) * 20).astype(dtype)
    y = (RNG.random(N) * 20).astype(dtype)
    out = np.zeros((N, 4), dtype)
    cuda.jit(cache_hinted_copy)[2, 32](out, x, y)
    if np.dtype(dtype).kind in "iu":  # Numba's int64 / uint64 sums, stored back wrapped
        total = x.astype(np.int64) * 5
        expected_value, expected_negated = total.astype(dtype), (-total).astype(dtype)
    else:  # rounded to the type after each addition, as NumPy's own arithmetic
        expected_value = x + x + x + x + x
        expected_negated = -expected_value
    np.testing.assert_array_equal(out[:, 0], expected_value)
    np.testing.assert_array_equal(out[:, 1], y)
    np.testing.assert_array_equal(out[:, 2], expected_negated)
    np.testing.assert_array_equal(out[:, 3], np.full(N, 1.5).astype(dtype))


def frexp_ldexp(mantissa, exponent, scaled, x, k):
    i = cuda.grid(1)
    if i < x.shape[0]:
        mantissa[i], exponent[i] = math.frexp(x[i])
        scaled[i] = math.ldexp(x[i], int(k[i]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_math_frexp_ldexp_match_the_interpreter(dtype):
    x = RNG.uniform(-1e3, 1e3, N).astype(dtype)
    k = RNG.integers(-20, 20, N).astype(np.int32)
    mantissa, scaled = np.zeros(N, dtype), np.zeros(N, dtype)
    exponent = np.zeros(N, np.int32)
    cuda.jit(frexp_ldexp)[2, 32](mantissa, exponent, scaled, x, k)
    expected = run_threads(frexp_ldexp, N, np.zeros(N, dtype), np.zeros(N, np.int32),
                           np.zeros(N, dtype), x, k)
    np.testing.assert_array_equal(mantissa, expected[0])
    np.testing.assert_array_equal(exponent, expected[1])
    np.testing.assert_array_equal(scaled, expected[2])


def all_nan_min_max(out, a):
    out[0] = np.nanmin(a)
    out[1] = np.nanmax(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nanmin_nanmax_of_only_nans_are_nan(dtype):
    out = np.zeros(2, dtype)
    cuda.jit(all_nan_min_max)[1, 1](out, np.full(3, np.nan, dtype))
    assert np.isnan(out).all()
    a = RNG.random(7).astype(dtype)
    cuda.jit(all_nan_min_max)[1, 1](out, a)
    np.testing.assert_array_equal(out, [a.min(), a.max()])
