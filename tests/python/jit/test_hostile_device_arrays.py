"""Hostile input to cudakit.cuda device arrays' copies: Numba's shape rule
(numba.cuda.cudadrv.devicearray.check_array_compatibility): the same shape
once axes of extent 1 are dropped, else ValueError "incompatible shape: A vs.
B" naming both. (Numba also refuses another dtype, with a TypeError; cudakit
converts host data to the device array's dtype and refuses copying back into
a host array of another dtype.) Nothing is copied by a refused call."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda
from hostile_cases import Case, case_id, check_refused

rng = np.random.default_rng()


def device(shape=(3, 4), dtype=np.float32):
    return cuda.to_device(rng.standard_normal(shape).astype(dtype))


def host(shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


CASES = [
    Case("copy_to_device (4, 3) into (3, 4)", lambda: device().copy_to_device(host((4, 3))),
         ValueError, r"incompatible shape: \(3, 4\) vs\. \(4, 3\)"),
    Case("copy_to_device (12,) into (3, 4)", lambda: device().copy_to_device(host((12,))),
         ValueError, r"incompatible shape: \(3, 4\) vs\. \(12,\)"),
    Case("copy_to_device (3, 5) into (3, 4)", lambda: device().copy_to_device(host((3, 5))),
         ValueError, r"incompatible shape: \(3, 4\) vs\. \(3, 5\)"),
    Case("copy_to_device an empty array into (3, 4)",
         lambda: device().copy_to_device(host((0,))), ValueError,
         r"incompatible shape: \(3, 4\) vs\. \(0,\)"),
    Case("copy_to_device a device (4, 3) into (3, 4)",
         lambda: device().copy_to_device(device((4, 3))), ValueError,
         r"incompatible shape: \(3, 4\) vs\. \(4, 3\)"),
    Case("copy_to_device a list of the wrong length",
         lambda: device((3,)).copy_to_device([1.0, 2.0]), ValueError,
         r"incompatible shape: \(3,\) vs\. \(2,\)"),
    Case("copy_to_host into (4, 3)", lambda: device().copy_to_host(host((4, 3))), ValueError,
         r"incompatible shape: \(3, 4\) vs\. \(4, 3\)"),
    Case("copy_to_host into (12,)", lambda: device().copy_to_host(host((12,))), ValueError,
         r"incompatible shape: \(3, 4\) vs\. \(12,\)"),
    Case("copy_to_host into int32", lambda: device().copy_to_host(np.empty((3, 4), np.int32)),
         ValueError, r"the host array is int32 \(3, 4\), the device array float32"),
    Case("copy_to_host into (4, 3) of another dtype",
         lambda: device().copy_to_host(np.empty((4, 3), np.int32)), ValueError,
         r"the host array is int32 \(4, 3\)"),
    Case("copy_to_host into a list", lambda: device().copy_to_host([0.0] * 12), TypeError,
         "ary must be a numpy array"),
    Case("copy_to_host into a read-only array",
         lambda: device().copy_to_host(np.broadcast_to(np.float32(0), (3, 4))), ValueError,
         "read-only"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)


def test_refused_copies_change_nothing() -> None:
    before = host((3, 4))
    d = cuda.to_device(before)
    with pytest.raises(ValueError):
        d.copy_to_device(host((4, 3)))
    np.testing.assert_array_equal(d.copy_to_host(), before)
    target = host((4, 3))
    untouched = target.copy()
    with pytest.raises(ValueError):
        d.copy_to_host(target)
    np.testing.assert_array_equal(target, untouched)


@pytest.mark.parametrize("other_shape", [(3, 4), (1, 3, 4), (3, 1, 4), (3, 4, 1)])
def test_copies_allow_extent_one_axes_as_numba_does(other_shape) -> None:
    d = device((3, 4))
    values = host(other_shape)
    d.copy_to_device(values)
    np.testing.assert_array_equal(d.copy_to_host(), values.reshape(3, 4))
    out = np.empty(other_shape, np.float32)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, values)


def test_copies_between_layouts_and_device_arrays() -> None:
    values = host((5, 7))
    d = device((5, 7))
    d.copy_to_device(np.asfortranarray(values))  # any host layout of the same shape
    np.testing.assert_array_equal(d.copy_to_host(), values)
    other = device((5, 7))
    other.copy_to_device(d)
    np.testing.assert_array_equal(other.copy_to_host(), values)
    out = np.empty((7, 5), np.float32).T  # a Fortran-ordered host array of shape (5, 7)
    d.copy_to_host(out)
    np.testing.assert_array_equal(out, values)
    column = device((5, 7))[:, 2]  # a strided device view
    column.copy_to_device(values[:, 3])
    np.testing.assert_array_equal(column.copy_to_host(), values[:, 3])
    d.copy_to_device(values.astype(np.float64)[None])  # converted to float32, as documented
    np.testing.assert_array_equal(d.copy_to_host(), values)
    d_list = device((3,))
    d_list.copy_to_device([1.5, 2.5, 3.5])
    np.testing.assert_array_equal(d_list.copy_to_host(), np.float32([1.5, 2.5, 3.5]))
