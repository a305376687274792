"""cuda.vectorize: GPU ufuncs as Numba's, each call one generated
grid-stride kernel. Every result is checked against NumPy running the same
Python function on fresh random input (sizes not multiples of the block)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import cudakit
from cudakit import cuda
from hostile_cases import Case, case_id, check_refused

RNG = np.random.default_rng(2026)
N = 1001  # not a multiple of 256
DTYPES = [np.float32, np.float64, np.int32, np.int64]


def fresh(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return (RNG.standard_normal(shape) * 10).astype(dtype)
    return RNG.integers(-1000, 1000, size=shape).astype(dtype)


def axpb(a, x, b):
    return a * x + b


@cuda.jit(device=True)
def clipped(x, low, high):
    return min(max(x, low), high)


def clip_body(x, low, high):
    return clipped(x, low, high)


SIGNED = ["float32(float32, float32, float32)", "float64(float64, float64, float64)",
          "int32(int32, int32, int32)", "int64(int64, int64, int64)"]
fma3 = cuda.vectorize(SIGNED)(axpb)
lazy_fma3 = cuda.vectorize(axpb)
clip = cuda.vectorize(["float32(float32, float32, float32)",
                       "float64(float64, float64, float64)"])(clip_body)


@cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)",
                 "int32(int32, int32)", "int64(int64, int64)"])
def add(a, b):
    return a + b


@cuda.vectorize(["float64(float64)"])
def curve(x):
    return math.exp(-x * x) + math.sin(x)


def expected(func, *args, dtype):
    return np.vectorize(func, otypes=[dtype])(*args)


def assert_close(got, want):
    """Equal for integers; for floats within rounding (the compiler may fuse
    a * x + b into one rounding)."""
    if np.dtype(want.dtype).kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        eps = np.finfo(want.dtype).eps
        np.testing.assert_allclose(got, want, rtol=8 * eps, atol=8 * eps * np.abs(want).max())


@pytest.mark.parametrize("dtype", DTYPES)
def test_eager_signature_picked_by_dtype(dtype):
    a, x, b = (fresh(N, dtype) for _ in range(3))
    got = fma3(a, x, b)
    assert isinstance(got, np.ndarray) and got.dtype == dtype
    assert_close(got, expected(axpb, a, x, b, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_lazy_compiles_for_the_call_types(dtype):
    a, x, b = (fresh(N, dtype) for _ in range(3))
    got = lazy_fma3(a, x, b)
    assert got.dtype == dtype
    assert_close(got, expected(axpb, a, x, b, dtype=dtype))
    assert tuple(np.dtype(dtype) for _ in range(3)) in lazy_fma3.types_map


def test_lazy_result_dtype_is_what_the_function_returns():
    a = fresh(N, np.int32)
    got = lazy_fma3(a, a, a)
    assert got.dtype == np.int64  # int32 * int32 is int64 in Numba's typing
    np.testing.assert_array_equal(got, a.astype(np.int64) * a + a)


def test_math_functions():
    x = fresh(N, np.float64) / 10
    np.testing.assert_allclose(curve(x), np.exp(-x * x) + np.sin(x), rtol=1e-12)


def test_device_function_called_from_the_body():
    x = fresh(N, np.float32)
    got = clip(x, np.float32(-3.5), np.float32(4.25))
    np.testing.assert_array_equal(got, np.clip(x, np.float32(-3.5), np.float32(4.25)))


def test_broadcasting_like_numpy():
    a = fresh((3, 1, 37), np.float64)
    x = fresh((5, 1), np.float64)
    b = fresh((37,), np.float64)
    got = fma3(a, x, b)
    assert got.shape == (3, 5, 37)
    assert_close(got, a * x + b)


def test_numbers_convert_to_the_arrays_signature():
    x = fresh(N, np.float32)
    got = fma3(2.5, x, 1)
    assert got.dtype == np.float32
    assert_close(got, np.float32(2.5) * x + np.float32(1))


def test_all_numbers_give_a_one_element_array_as_numba():
    got = add(1.25, 2.5)
    assert got.shape == (1,) and got[0] == 3.75


def test_strided_and_fortran_inputs():
    a = fresh((41, 29), np.float64)
    x = np.asfortranarray(fresh((41, 29), np.float64))
    b = fresh((29, 41), np.float64).T
    assert_close(fma3(a, x, b), a * x + b)
    f = np.asfortranarray(a)
    assert_close(fma3(f, x, np.asfortranarray(b)), a * x + b)


def test_device_arrays_in_give_a_device_array_out():
    a, b = fresh(N, np.float32), fresh(N, np.float32)
    da = cuda.to_device(a)
    got = add(da, b)
    assert isinstance(got, cuda.DeviceNDArray)
    np.testing.assert_allclose(got.copy_to_host(), a + b, rtol=1e-6)


def test_strided_device_views():
    a = fresh((60, 50), np.float64)
    da = cuda.to_device(a)
    got = add(da[::3, 1::2], da[1::3, ::2])
    np.testing.assert_allclose(got.copy_to_host(), a[::3, 1::2] + a[1::3, ::2], rtol=1e-12)


@pytest.mark.parametrize("shape", [(N,), (7, 143), (3, 5, 67)])
def test_repeated_device_calls_of_one_shape(shape):
    """Calls after the first take a short path (device arrays of one shape,
    C-contiguous): the same results, a new array each time, and every other
    argument mix still going the general way."""
    a, b, c = (fresh(shape, np.float32) for _ in range(3))
    da, db, dc = (cuda.to_device(x) for x in (a, b, c))
    results = [fma3(da, db, dc) for _ in range(3)]
    assert len({id(r) for r in results}) == 3
    for got in results:
        assert got.shape == shape and got.dtype == np.float32
        np.testing.assert_allclose(got.copy_to_host(), a * b + c, rtol=1e-6, atol=1e-5)
    lazy_fma3(da, db, dc)
    np.testing.assert_allclose(lazy_fma3(da, db, dc).copy_to_host(), a * b + c, rtol=1e-6,
                               atol=1e-5)
    d64 = cuda.to_device(a.astype(np.float64))
    with pytest.raises(TypeError, match="no signature"):
        fma3(da, db, d64)  # mixed dtypes: refused as before
    if len(shape) > 1:
        view = da.T if len(shape) == 2 else da[:, ::2]
        host_view = a.T if len(shape) == 2 else a[:, ::2]
        np.testing.assert_allclose(add(view, view).copy_to_host(), host_view + host_view,
                                   rtol=1e-6)


@pytest.mark.parametrize("where", ["host", "device"])
def test_out(where):
    a, b = fresh((7, 143), np.int32), fresh((7, 143), np.int32)
    if where == "host":
        out = np.zeros((7, 143), np.int32)
        result = add(a, b, out=out)
        assert result is out
        np.testing.assert_array_equal(out, a + b)
    else:
        out = cuda.to_device(np.zeros((7, 143), np.int32))
        result = add(a, b, out=out)
        assert result is out
        np.testing.assert_array_equal(out.copy_to_host(), a + b)


def test_out_broadcasts_the_inputs_to_its_shape():
    x = fresh(37, np.float64)
    out = np.empty((4, 37))
    add(x, 1.5, out=out)
    np.testing.assert_allclose(out, np.broadcast_to(x + 1.5, (4, 37)))


def test_in_place_on_device_as_numba_test_ufunc_output_2d():
    x = fresh((2, 5), np.int32)
    dx = cuda.to_device(x)
    add(dx, dx, out=dx)
    np.testing.assert_array_equal(dx.copy_to_host(), x + x)


def test_stream():
    stream = cuda.stream()
    a = fresh(N, np.float64)
    da = cuda.to_device(a, stream)
    got = add(da, da, stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(got.copy_to_host(), a + a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 255, 1001])
def test_reduce(dtype, n):
    x = fresh(n, dtype)
    got = add.reduce(x)
    assert np.dtype(type(got)) == dtype
    want = np.add.reduce(x, dtype=dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_reduce_device_array_on_a_stream():
    stream = cuda.stream()
    x = fresh(N, np.int64)
    assert add.reduce(cuda.to_device(x, stream), stream=stream) == x.sum()


def test_one_kernel_launch_per_call(monkeypatch):
    launches = []
    original = cuda.Dispatcher.__getitem__

    def counting(self, config):
        launches.append(self.__name__)
        return original(self, config)

    monkeypatch.setattr(cuda.Dispatcher, "__getitem__", counting)
    a = fresh((3, 1, 37), np.float64)
    fma3(a, fresh((5, 1), np.float64), 2.0)
    fma3(a, a, a)
    assert launches == ["ufunc_axpb", "ufunc_axpb"]


def test_toplevel_spelling_with_target():
    @cudakit.vectorize(["float64(float64, float64)"], target="cuda")
    def mul(a, b):
        return a * b
    a, b = fresh(N, np.float64), fresh(N, np.float64)
    np.testing.assert_allclose(mul(a, b), a * b)
    assert mul.__name__ == "mul"


def two(a, b):
    return a + b


EAGER = cuda.vectorize(["float32(float32, float32)", "float64(float64, float64)"])(two)
TINY = np.arange(5, dtype=np.float32)

CASES = [
    Case("no signature for int16 arrays", lambda: EAGER(TINY.astype(np.int16), TINY),
         TypeError, r"\(int16, float32\).*float32, float32 -> float32; float64, float64"),
    Case("mixed array dtypes", lambda: EAGER(TINY, TINY.astype(np.float64)), TypeError,
         r"no signature for arguments of dtypes \(float32, float64\)"),
    Case("shapes that do not broadcast", lambda: EAGER(TINY, np.ones(4, np.float32)),
         ValueError, r"\(5,\), \(4,\) do not broadcast"),
    Case("out of the wrong shape", lambda: EAGER(TINY, TINY, out=np.empty(6, np.float32)),
         ValueError, r"out= has shape \(6,\); the result has shape \(5,\)"),
    Case("out of the wrong dtype", lambda: EAGER(TINY, TINY, out=np.empty(5, np.float64)),
         TypeError, r"out= has dtype float64; .* is float32"),
    Case("too few arguments", lambda: EAGER(TINY), TypeError, r"takes 2 input arguments"),
    Case("unknown keyword", lambda: EAGER(TINY, TINY, where=True), TypeError, r"where"),
    Case("reduce of a 2-d array", lambda: EAGER.reduce(np.ones((2, 2), np.float32)),
         ValueError, r"1-d array, got a 2-d"),
    Case("reduce of an empty array", lambda: EAGER.reduce(np.ones(0, np.float32)),
         TypeError, r"empty array"),
    Case("reduce of a unary ufunc", lambda: curve.reduce(np.ones(3)), TypeError,
         r"only binary ufuncs"),
    Case("cpu target", lambda: cudakit.vectorize(target="cpu")(two), ValueError,
         r"target='cpu' is not supported"),
    Case("cache=True", lambda: cuda.vectorize(cache=True)(two), TypeError,
         r"caching is not supported"),
    Case("unknown option", lambda: cuda.vectorize(fastmath=1)(two), KeyError,
         r"does not support option: 'fastmath'"),
    Case("signature with the wrong arity", lambda: cuda.vectorize(["f8(f8)"])(two),
         TypeError, r"has 1 argument\(s\); the function takes 2"),
    Case("unreadable signature", lambda: cuda.vectorize(["float32(flaot32)"])(two),
         TypeError, r"cannot read the signature"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case):
    check_refused(case)
