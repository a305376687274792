"""GPUArray operators against numpy: every arithmetic, comparison, bitwise and
in-place operator, numpy broadcasting, NEP 50 promotion, bad input."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import cudakit.gpuarray as ga
from gpuarray_helpers import (ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, ODD_SIZES,
                              assert_matches, random_array)

ARITHMETIC = [operator.add, operator.sub, operator.mul, operator.truediv]
NUMERIC = INT_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES


@pytest.mark.parametrize("size", ODD_SIZES)
@pytest.mark.parametrize("op", ARITHMETIC + [operator.pow])
def test_float32_binary_operators_match_numpy(op, size: int) -> None:
    low = 0.5 if op is operator.pow else -50
    a = random_array(size, np.float32, low=low, high=3 if op is operator.pow else 50)
    b = random_array(size, np.float32, low=-3 if op is operator.pow else -50,
                     high=3 if op is operator.pow else 50, nonzero=True)
    assert_matches(op(ga.to_gpu(a), ga.to_gpu(b)), op(a, b))


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("op", ARITHMETIC)
def test_every_dtype_with_itself(op, dtype) -> None:
    a = random_array(1001, dtype, low=-10, high=10)
    b = random_array(1001, dtype, low=-10, high=10, nonzero=True)
    with np.errstate(all="ignore"):
        expected = op(a, b)
    assert_matches(op(ga.to_gpu(a), ga.to_gpu(b)), expected)


@pytest.mark.parametrize("pair", [(np.int8, np.uint8), (np.int32, np.float32),
                                  (np.uint64, np.int64), (np.float16, np.float64),
                                  (np.int16, np.complex64), (np.bool_, np.int8),
                                  (np.uint32, np.float16), (np.float32, np.complex128)])
def test_mixed_dtype_promotion_is_numpys(pair) -> None:
    a = random_array(513, pair[0], low=0, high=20)
    b = random_array(513, pair[1], low=1, high=20, nonzero=True)
    for op in (operator.add, operator.mul, operator.sub):
        with np.errstate(all="ignore"):
            expected = op(a, b)
        assert_matches(op(ga.to_gpu(a), ga.to_gpu(b)), expected)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.float16, np.float32,
                                   np.complex64])
@pytest.mark.parametrize("scalar", [3, 2.5, 1 + 2j, True])
def test_python_scalars_are_weak_nep50(dtype, scalar) -> None:
    if isinstance(scalar, complex) and np.dtype(dtype).kind != "c" and False:
        pytest.skip("")
    a = random_array(299, dtype, low=0, high=20)
    for op in (operator.add, operator.mul):
        expected = op(a, scalar)
        assert_matches(op(ga.to_gpu(a), scalar), expected)
        assert_matches(op(scalar, ga.to_gpu(a)), op(scalar, a))


def test_numpy_scalars_keep_their_dtype() -> None:
    a = random_array(77, np.float32)
    assert_matches(ga.to_gpu(a) * np.float64(2.5), a * np.float64(2.5))
    i = random_array(77, np.int8, low=0, high=10)
    assert_matches(ga.to_gpu(i) + np.int32(7), i + np.int32(7))


def test_python_int_out_of_range_for_the_dtype_is_an_error() -> None:
    a = ga.to_gpu(random_array(10, np.uint8, low=0, high=10))
    with pytest.raises((OverflowError, ValueError, TypeError)):
        (a + 300).get()


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("op", [operator.floordiv, operator.mod])
def test_floor_division_and_modulo_follow_python_sign_rules(op, dtype) -> None:
    a = random_array(999, dtype, low=-40 if np.dtype(dtype).kind != "u" else 0, high=40)
    b = random_array(999, dtype, low=-7 if np.dtype(dtype).kind != "u" else 1, high=7,
                     nonzero=True)
    assert_matches(op(ga.to_gpu(a), ga.to_gpu(b)), op(a, b))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.uint64, np.float32,
                                   np.float64, np.complex64])
@pytest.mark.parametrize("op", [operator.eq, operator.ne, operator.lt, operator.le,
                                operator.gt, operator.ge])
def test_comparisons_give_bool_arrays(op, dtype) -> None:
    a = random_array(1003, dtype, low=0, high=5)
    b = random_array(1003, dtype, low=0, high=5)
    assert_matches(op(ga.to_gpu(a), ga.to_gpu(b)), op(a, b))
    assert_matches(op(ga.to_gpu(a), 2), op(a, 2))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.uint32, np.int64])
@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor])
def test_bitwise_operators(op, dtype) -> None:
    a = random_array(515, dtype, low=0, high=100)
    b = random_array(515, dtype, low=0, high=100)
    assert_matches(op(ga.to_gpu(a), ga.to_gpu(b)), op(a, b))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64])
def test_shifts_and_invert(dtype) -> None:
    a = random_array(300, dtype, low=0, high=100)
    s = random_array(300, dtype, low=0, high=3)
    assert_matches(ga.to_gpu(a) << ga.to_gpu(s), a << s)
    assert_matches(ga.to_gpu(a) >> ga.to_gpu(s), a >> s)
    assert_matches(~ga.to_gpu(a), ~a)


def test_bitwise_on_floats_is_a_type_error() -> None:
    a = ga.to_gpu(random_array(10, np.float32))
    with pytest.raises(TypeError):
        (a & a).get()


@pytest.mark.parametrize("dtype", [np.int16, np.int64, np.float32, np.float64, np.complex64])
def test_unary_operators(dtype) -> None:
    a = random_array(1001, dtype)
    g = ga.to_gpu(a)
    assert_matches(-g, -a)
    assert_matches(+g, +a)
    assert_matches(abs(g), np.abs(a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_power_with_scalars(dtype) -> None:
    a = random_array(257, dtype, low=1, high=5)
    assert_matches(ga.to_gpu(a) ** 2, a ** 2)
    assert_matches(2 ** ga.to_gpu(a), 2 ** a)
    if np.dtype(dtype).kind == "f":
        assert_matches(ga.to_gpu(a) ** 0.5, a ** 0.5)


def test_integer_to_negative_power_is_refused() -> None:
    with pytest.raises(ValueError):
        (ga.to_gpu(np.arange(1, 5)) ** -1).get()


@pytest.mark.parametrize("shapes", [((3, 1), (1, 4)), ((5, 4), (4,)), ((2, 1, 3), (7, 1)),
                                    ((1,), (6, 5)), ((), (3, 3))])
def test_broadcasting(shapes) -> None:
    a = random_array(shapes[0], np.float32)
    b = random_array(shapes[1], np.float64)
    assert_matches(ga.to_gpu(a) * ga.to_gpu(b) + 1, a * b + 1)


def test_shape_mismatch_is_numpys_value_error() -> None:
    a = ga.to_gpu(random_array((3, 4), np.float32))
    b = ga.to_gpu(random_array((5,), np.float32))
    with pytest.raises(ValueError, match="broadcast"):
        a + b
    with np.testing.assert_raises(ValueError):
        np.ones((3, 4)) + np.ones(5)


def test_unsupported_operand_is_type_error() -> None:
    a = ga.to_gpu(random_array(4, np.float32))
    with pytest.raises(TypeError):
        a + "text"
    with pytest.raises(TypeError):
        a + object()


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/="])
def test_in_place_operators(op, dtype) -> None:
    if op == "/=" and np.dtype(dtype).kind == "i":
        pytest.skip("numpy refuses int /= (float result): tested below")
    a = random_array(1001, dtype)
    b = random_array(1001, dtype, nonzero=True)
    g = ga.to_gpu(a)
    before = g.gpudata
    expected = a.copy()
    exec(f"g {op} ga.to_gpu(b)")
    exec(f"expected {op} b")
    assert g.gpudata == before  # same memory
    assert_matches(g, expected)


def test_in_place_same_kind_casting() -> None:
    g = ga.to_gpu(np.arange(5, dtype=np.int32))
    with pytest.raises(TypeError):
        g /= ga.to_gpu(np.ones(5, np.float32))
    g += 2  # weak int: fine
    f = ga.to_gpu(np.arange(5, dtype=np.float32))
    f *= ga.to_gpu(np.arange(5, dtype=np.float64))  # same kind: float64 -> float32
    np.testing.assert_allclose(f.get(), np.arange(5) ** 2)


def test_in_place_bitwise_shift_pow_floordiv() -> None:
    a = random_array(100, np.int32, low=1, high=50)
    g = ga.to_gpu(a)
    e = a.copy()
    g &= 7
    e &= 7
    g |= 16
    e |= 16
    g ^= 3
    e ^= 3
    g <<= 1
    e <<= 1
    g >>= 2
    e >>= 2
    g **= 2
    e **= 2
    g //= 3
    e //= 3
    g %= 5
    e %= 5
    assert_matches(g, e)


def test_numpy_array_on_the_left_defers_to_gpuarray() -> None:
    g = ga.to_gpu(np.arange(3.0))
    with pytest.raises(TypeError):
        np.arange(3.0) + g
