"""Hostile input to cudakit.gpuarray: memory too small for the array, boolean
masks, integer powers with negative exponents, numpy's arange for narrow
integer dtypes, shapes and indices out of range. Each gives numpy's result or
a clear error naming what was wrong."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit import curandom, gpuarray
from gpuarray_helpers import random_array
from hostile_cases import Case, case_id, check_refused

NEGATIVE_POWER = "Integers to negative integer powers are not allowed."
rng = np.random.default_rng()


def freed() -> drv.DeviceAllocation:
    allocation = drv.mem_alloc(64)
    allocation.free()
    return allocation


def ints(shape=(37,), dtype=np.int32, low=-5, high=5) -> gpuarray.GPUArray:
    return gpuarray.to_gpu(random_array(shape, dtype, low, high))


def with_negative(n: int = 37) -> gpuarray.GPUArray:
    values = random_array((n,), np.int32, 0, 4)
    values[rng.integers(n)] = -1
    return gpuarray.to_gpu(values)


def in_place_power() -> None:
    a = ints()
    a **= with_negative()


CASES = [
    Case("GPUArray over a freed allocation",
         lambda: gpuarray.GPUArray((16,), np.float32, gpudata=freed()), drv.ArgumentError,
         r"GPUArray\(gpudata=\.\.\.\): the DeviceAllocation of 64 bytes at 0x[0-9a-f]+ was freed"),
    Case("GPUArray over too small an allocation",
         lambda: gpuarray.GPUArray((17,), np.float32, gpudata=drv.mem_alloc(64)),
         drv.ArgumentError,
         r"shape \(17,\) and dtype float32 needs 68 bytes, but gpudata holds 64 bytes"),
    Case("GPUArray 2-D over too small an allocation",
         lambda: gpuarray.GPUArray((5, 4), np.float64, gpudata=drv.mem_alloc(152)),
         drv.ArgumentError, "needs 160 bytes, but gpudata holds 152 bytes"),
    Case("GPUArray Fortran order over too small an allocation",
         lambda: gpuarray.GPUArray((4, 5), np.float32, gpudata=drv.mem_alloc(64), order="F"),
         drv.ArgumentError, "needs 80 bytes, but gpudata holds 64 bytes"),
    Case("GPUArray strides past the allocation",
         lambda: gpuarray.GPUArray((4, 4), np.float32, gpudata=drv.mem_alloc(64),
                                   strides=(32, 4)),
         drv.ArgumentError, "needs 112 bytes, but gpudata holds 64 bytes"),
    Case("GPUArray negative strides before the allocation",
         lambda: gpuarray.GPUArray((4,), np.float32, gpudata=drv.mem_alloc(64), strides=(-4,)),
         drv.ArgumentError, "memory before its start"),
    Case("GPUArray huge strides",
         lambda: gpuarray.GPUArray((4,), np.float32, gpudata=drv.mem_alloc(64),
                                   strides=(2**62,)),
         drv.ArgumentError, "more than 2\\*\\*63 bytes"),
    Case("GPUArray gpudata -1", lambda: gpuarray.GPUArray((4,), np.float32, gpudata=-1),
         drv.ArgumentError, r"the device address must be in 0\.\.18446744073709551615"),
    Case("mask of the wrong length", lambda: ints((5,))[np.ones(4, bool)], IndexError,
         "size of axis is 5 but size of corresponding boolean axis is 4"),
    Case("GPU mask of the wrong length",
         lambda: ints((5,))[gpuarray.to_gpu(np.ones(6, bool))], IndexError,
         "size of axis is 5 but size of corresponding boolean axis is 6"),
    Case("mask of the wrong shape", lambda: ints((3, 4))[np.ones((4, 3), bool)], IndexError,
         "along axis 0; size of axis is 3 but size of corresponding boolean axis is 4"),
    Case("mask of too many dimensions", lambda: ints((4,))[np.ones((4, 1), bool)], IndexError,
         "too many indices for array: array is 1-dimensional"),
    Case("setitem mask of the wrong length",
         lambda: ints((5,)).__setitem__(np.ones(3, bool), 0), IndexError,
         "size of axis is 5 but size of corresponding boolean axis is 3"),
    Case("setitem mask with too few values",
         lambda: ints((5,)).__setitem__(np.array([1, 1, 1, 0, 0], bool), np.arange(2)),
         ValueError, r"value array of shape \(2,\) could not be broadcast to indexing result "
                     r"of shape \(3,\)"),
    Case("array ** negative array", lambda: ints() ** with_negative(), ValueError,
         NEGATIVE_POWER),
    Case("array ** negative int", lambda: ints() ** -1, ValueError, NEGATIVE_POWER),
    Case("array ** negative numpy int", lambda: ints() ** np.int64(-2), ValueError,
         NEGATIVE_POWER),
    Case("int ** negative array", lambda: 2 ** with_negative(), ValueError, NEGATIVE_POWER),
    Case("array ** pending negative array", lambda: ints() ** (with_negative() * 1),
         ValueError, NEGATIVE_POWER),
    Case("uint8 array ** negative int16 array",
         lambda: ints(dtype=np.uint8, low=0) ** with_negative().astype(np.int16), ValueError,
         NEGATIVE_POWER),
    Case("array **= negative array", in_place_power, ValueError, NEGATIVE_POWER),
    Case("empty 2**64", lambda: gpuarray.empty((2**64,), np.float32), drv.ArgumentError,
         r"shape: an extent must be in -9223372036854775808\.\.9223372036854775807, got "
         r"18446744073709551616"),
    Case("zeros -2**64", lambda: gpuarray.zeros(-2**64, np.float32), drv.ArgumentError,
         "shape: an extent must be in"),
    Case("empty float extent", lambda: gpuarray.empty((2.5,), np.float32), TypeError,
         "shape: an extent must be an integer, got float"),
    Case("index 2**64", lambda: ints()[2**64], IndexError, "index 18446744073709551616 is out"),
    Case("slice of floats", lambda: ints()[1.5:3], TypeError,
         "slice indices must be integers or None"),
    Case("zeros(None)", lambda: gpuarray.zeros(None, np.float32), TypeError,
         "shape must be an integer or a sequence of integers, got NoneType"),
    Case("GPUArray(None)", lambda: gpuarray.GPUArray(None, np.float32), TypeError,
         "shape must be an integer or a sequence of integers, got NoneType"),
    Case("to_gpu(None)", lambda: gpuarray.to_gpu(None), TypeError, "no dtype object"),
    Case("fill(None)", lambda: ints().fill(None), TypeError, "the value must be a number"),
    Case("setitem None", lambda: ints().__setitem__(0, None), TypeError,
         "the value must be a number or array"),
    Case("sum(None)", lambda: gpuarray.sum(None), TypeError,
         "expected a GPUArray or a number, got NoneType"),
    Case("take(a, None)", lambda: gpuarray.take(ints(), None), TypeError,
         "take: indices must be an array of integers, got None"),
    Case("arange(None)", lambda: gpuarray.arange(None), TypeError, "arange: stop is required"),
    Case("take axis 2**40", lambda: gpuarray.take(ints((3, 4)), gpuarray.to_gpu(np.int64([0])),
                                                  axis=2**40),
         drv.ArgumentError, "take: axis must be in"),
    Case("concatenate axis 1.5", lambda: gpuarray.concatenate([ints(), ints()], axis=1.5),
         TypeError, "concatenate: axis must be an integer, got float"),
    Case("empty (2**40, 2**40)", lambda: gpuarray.empty((2**40, 2**40), np.float32),
         ValueError, "array is too big"),
    Case("seed -1", lambda: curandom.seed(-1), drv.ArgumentError,
         r"seed: seed must be in 0\.\.18446744073709551615, got -1"),
    Case("rand of 2**64", lambda: curandom.rand((2**64,)), drv.ArgumentError,
         "shape: an extent must be in"),
    Case("sum over axis 2**40", lambda: gpuarray.sum(ints((3, 4)), axis=2**40),
         drv.ArgumentError, "reduction: axis must be in"),
    Case("swapaxes 2**40", lambda: ints((3, 4)).swapaxes(2**40, 0), drv.ArgumentError,
         "swapaxes: axis1 must be in"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)


# ---- arange: numpy's values (and numpy's errors), whatever the dtype -------------------

ARANGE = [
    ((300,), np.uint8), ((0, 300), np.uint8), ((250, 260), np.uint8), ((0, 300, 7), np.uint8),
    ((256,), np.uint8), ((200,), np.int8), ((10, 0, -3), np.uint8), ((0.5, 5), np.int32),
    ((0, 5, 1.5), np.int64), ((2**60, 2**60 + 10), np.int64), ((0, 1, 0.1), np.float32),
    ((70000,), np.int16), ((-5, 5), np.uint8), ((255, 257), np.uint8), ((300, 0, -1), np.uint8),
    ((1, 300, 255), np.int8), ((37,), None), ((0.0, 3.3, 0.25), None), ((5,), np.bool_),
]


@pytest.mark.parametrize("args, dtype", ARANGE, ids=lambda v: repr(v))
def test_arange_is_numpys(args, dtype) -> None:
    try:
        expected = np.arange(*args, dtype=dtype)
    except Exception as error:  # numpy refuses: so does gpuarray, with its error class
        with pytest.raises(type(error)):
            gpuarray.arange(*args, dtype=dtype)
        return
    result = gpuarray.arange(*args, dtype=dtype).get()
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


# ---- boolean masks: numpy's results ------------------------------------------------------

def mask_cases():
    yield (37,), (37,)
    yield (7, 9), (7, 9)
    yield (7, 9), (7,)
    yield (3, 5, 4), (3, 5)
    yield (1000,), (1000,)


@pytest.mark.parametrize("shape, mask_shape", list(mask_cases()))
@pytest.mark.parametrize("on_device", [False, True], ids=["numpy-mask", "gpu-mask"])
def test_mask_getitem_is_numpys(shape, mask_shape, on_device) -> None:
    host = random_array(shape, np.float32)
    mask = rng.integers(0, 2, mask_shape).astype(bool)
    key = gpuarray.to_gpu(mask) if on_device else mask
    result = gpuarray.to_gpu(host)[key]
    np.testing.assert_array_equal(result.get(), host[mask])


def test_none_as_a_new_axis() -> None:
    host = random_array((5, 3), np.float64)
    device = gpuarray.to_gpu(host)
    np.testing.assert_array_equal(device[None].get(), host[None])
    device[None] = 2.5
    host[None] = 2.5
    np.testing.assert_array_equal(device.get(), host)


def test_mask_getitem_of_views_lists_and_empty_masks() -> None:
    host = random_array((8, 6), np.int64)
    device = gpuarray.to_gpu(host)
    rows = rng.integers(0, 2, 4).astype(bool)
    np.testing.assert_array_equal(device[::2][rows].get(), host[::2][rows])
    columns_mask = rng.integers(0, 2, (6, 8)).astype(bool)
    np.testing.assert_array_equal(device.T[columns_mask].get(), host.T[columns_mask])
    as_list = [bool(b) for b in rng.integers(0, 2, 8)]
    np.testing.assert_array_equal(device[as_list].get(), host[as_list])
    nothing = device[np.zeros(8, bool)]
    assert nothing.shape == (0, 6) and nothing.dtype == host.dtype
    # (a[mask] with the array's own comparison, the common spelling)
    np.testing.assert_array_equal(device[device > 10].get(), host[host > 10])


@pytest.mark.parametrize("value", [0, -7.0, np.int64(3)], ids=repr)
def test_mask_setitem_with_one_value(value) -> None:
    host = random_array((9, 11), np.int64)
    device = gpuarray.to_gpu(host)
    mask = host > 0
    device[gpuarray.to_gpu(mask)] = value
    host[mask] = value
    np.testing.assert_array_equal(device.get(), host)


def test_mask_setitem_with_arrays_and_rows() -> None:
    host = random_array((9, 11), np.float32)
    device = gpuarray.to_gpu(host)
    mask = host > 0
    values = random_array((int(mask.sum()),), np.float32)
    device[mask] = values
    host[mask] = values
    np.testing.assert_array_equal(device.get(), host)
    rows = np.array([1, 0, 1, 1, 0, 0, 0, 1, 0], bool)
    row_values = random_array((4, 11), np.float32)
    device[rows] = gpuarray.to_gpu(row_values)
    host[rows] = row_values
    np.testing.assert_array_equal(device.get(), host)
    one_row = random_array((11,), np.float32)  # broadcast to every selected row
    device[rows] = one_row
    host[rows] = one_row
    np.testing.assert_array_equal(device.get(), host)


def test_mask_setitem_writes_through_a_strided_view() -> None:
    host = random_array((10, 6), np.float64)
    device = gpuarray.to_gpu(host)
    view, host_view = device[::2, 1:], host[::2, 1:]
    mask = host_view < 0
    values = random_array((int(mask.sum()),), np.float64)
    view[mask] = values
    host_view[mask] = values
    np.testing.assert_array_equal(device.get(), host)


# ---- integer powers: numpy's values where the exponents are not negative -----------------

@pytest.mark.parametrize("base_dtype, exponent_dtype",
                         [(np.int32, np.int32), (np.int64, np.int8), (np.uint8, np.uint8),
                          (np.int16, np.uint16)])
def test_integer_powers_with_non_negative_exponents_are_numpys(base_dtype, exponent_dtype):
    base = random_array((1000,), base_dtype, -6, 6)
    exponent = random_array((1000,), exponent_dtype, 0, 5)
    a, b = gpuarray.to_gpu(base), gpuarray.to_gpu(exponent)
    np.testing.assert_array_equal((a ** b).get(), base ** exponent)
    np.testing.assert_array_equal((a ** 3).get(), base ** 3)
    # A negative exponent of a float power is fine, as in numpy (0 ** -k is inf).
    with np.errstate(divide="ignore"):
        expected = base.astype(np.float64) ** -(exponent.astype(np.int32))
    np.testing.assert_allclose((a.astype(np.float64) ** -(b.astype(np.int32))).get(), expected)


def test_refused_power_leaves_the_target_unchanged() -> None:
    host = random_array((37,), np.int32, 1, 9)
    device = gpuarray.to_gpu(host)
    with pytest.raises(ValueError, match=NEGATIVE_POWER):
        device **= with_negative()
    np.testing.assert_array_equal(device.get(), host)


# ---- gpudata that is large enough -------------------------------------------------------

def test_gpuarray_over_an_allocation_that_fits() -> None:
    host = random_array((5, 7), np.float32)
    allocation = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod(allocation, host)
    np.testing.assert_array_equal(
        gpuarray.GPUArray(host.shape, host.dtype, gpudata=allocation).get(), host)
    # A smaller array over a larger allocation is a view of its start.
    np.testing.assert_array_equal(
        gpuarray.GPUArray((7,), host.dtype, gpudata=allocation).get(), host[0])
    # Strides within the allocation: every other column.
    np.testing.assert_array_equal(
        gpuarray.GPUArray((5, 4), host.dtype, gpudata=allocation, strides=(28, 8)).get(),
        host[:, ::2])
    assert gpuarray.GPUArray((0,), host.dtype, gpudata=drv.mem_alloc(1)).size == 0
