"""cudakit.cumath against numpy on fresh random data."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.cumath as cumath
import cudakit.gpuarray as ga
from gpuarray_helpers import assert_matches, random_array

UNARY = [("exp", np.exp, -5, 5), ("log", np.log, 0.1, 50), ("log10", np.log10, 0.1, 50),
         ("sqrt", np.sqrt, 0, 50), ("sin", np.sin, -5, 5), ("cos", np.cos, -5, 5),
         ("tan", np.tan, -1, 1), ("asin", np.arcsin, -1, 1), ("acos", np.arccos, -1, 1),
         ("atan", np.arctan, -5, 5), ("sinh", np.sinh, -3, 3), ("cosh", np.cosh, -3, 3),
         ("tanh", np.tanh, -3, 3), ("fabs", np.fabs, -5, 5), ("ceil", np.ceil, -5, 5),
         ("floor", np.floor, -5, 5), ("log2", np.log2, 0.1, 9), ("expm1", np.expm1, -1, 1),
         ("log1p", np.log1p, 0, 3)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,reference,low,high", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, reference, low, high, dtype) -> None:
    a = random_array(1001, dtype, low=low, high=high)
    result = getattr(cumath, name)(ga.to_gpu(a))
    host = result.get()
    assert host.dtype == reference(a).dtype
    rtol = 3e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(host, reference(a), rtol=rtol, atol=rtol)


def test_integer_input_computes_in_float64() -> None:
    a = random_array(100, np.int32, low=1, high=50)
    assert_matches(cumath.sqrt(ga.to_gpu(a)), np.sqrt(a))


def test_complex_exp() -> None:
    a = random_array(100, np.complex128, low=-2, high=2)
    np.testing.assert_allclose(cumath.exp(ga.to_gpu(a)).get(), np.exp(a), rtol=1e-13)


def test_fmod_ldexp_frexp_modf() -> None:
    a = random_array(1001, np.float64, low=-20, high=20)
    b = random_array(1001, np.float64, low=1, high=5)
    assert_matches(cumath.fmod(ga.to_gpu(a), ga.to_gpu(b)), np.fmod(a, b))
    e = random_array(1001, np.int32, low=-4, high=4)
    assert_matches(cumath.ldexp(ga.to_gpu(a), ga.to_gpu(e)), np.ldexp(a, e))
    mantissa, exponent = cumath.frexp(ga.to_gpu(a))
    m, x = np.frexp(a)
    assert_matches(mantissa, m)
    np.testing.assert_array_equal(exponent.get(), x)
    frac, whole = cumath.modf(ga.to_gpu(a))
    f, w = np.modf(a)
    assert_matches(frac, f)
    assert_matches(whole, w)


def test_out_argument_writes_in_place() -> None:
    a = random_array(300, np.float32, low=0, high=2)
    out = ga.empty(300, np.float32)
    r = cumath.exp(ga.to_gpu(a), out=out)
    assert r is out
    np.testing.assert_allclose(out.get(), np.exp(a), rtol=3e-6)


def test_stream_argument_is_accepted() -> None:
    a = random_array(10, np.float32)
    np.testing.assert_allclose(cumath.sin(ga.to_gpu(a), stream=None).get(), np.sin(a),
                               rtol=3e-6, atol=1e-6)


def test_bad_operand() -> None:
    with pytest.raises(TypeError):
        cumath.exp("x")


def test_ldexp_truncates_a_floating_exponent_like_pycuda() -> None:
    a = random_array(100, np.float32, low=-3, high=3)
    e = random_array(100, np.float32, low=-4, high=4)
    assert_matches(cumath.ldexp(ga.to_gpu(a), ga.to_gpu(e)), np.ldexp(a, e.astype(np.int32)))
