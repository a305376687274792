"""Device arrays through the CUDA array interface, as Numba's consumers and
producers see them: negative-step views, empty arrays, the producer's stream,
masks refused, foreign arrays as ufunc outputs, and the kernel types of
aligned and packed records; each checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda

RNG = np.random.default_rng(3141)


class Foreign:
    """Another library's array: only __cuda_array_interface__."""

    def __init__(self, array):
        self._array = array
        self.__cuda_array_interface__ = array.__cuda_array_interface__


@pytest.mark.parametrize("key", [slice(None, None, -1), slice(7, 2, -2), slice(-1, -12, -3),
                                 slice(None, 0, -1), slice(3, None, -1)])
def test_negative_step_views_match_numpy(key):
    host = RNG.random(11)
    device = cuda.to_device(host)
    view = device[key]
    np.testing.assert_array_equal(view.copy_to_host(), host[key])
    assert view.shape == host[key].shape and view.strides == host[key].strides
    if host[key].size:  # "data" is the first element's address, as NumPy's
        offset = host[key].__array_interface__["data"][0] - host.__array_interface__["data"][0]
        assert (view.__cuda_array_interface__["data"][0]
                - device.__cuda_array_interface__["data"][0]) == offset


def test_kernel_writes_through_a_reversed_view():
    @cuda.jit
    def add_index(a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] += i

    host = RNG.random(37)
    device = cuda.to_device(host)
    add_index[2, 32](device[::-1])
    expected = host.copy()
    expected[::-1] += np.arange(37)
    np.testing.assert_array_equal(device.copy_to_host(), expected)


def test_empty_arrays_give_a_null_pointer_and_still_launch():
    empty = cuda.device_array(0)
    assert empty.__cuda_array_interface__["data"][0] == 0
    assert empty.device_ctypes_pointer.value is None

    @cuda.jit
    def touch(a):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i] = 1

    touch[1, 8](Foreign(empty))
    full = cuda.to_device(RNG.random(5))
    assert full.device_ctypes_pointer.value == full.__cuda_array_interface__["data"][0]


def test_consumed_array_takes_the_producers_stream():
    s = cuda.stream()
    view = cuda.as_cuda_array(Foreign(cuda.device_array(10, stream=s)))
    assert view.stream.external and int(view.stream.handle) == int(s.handle)
    assert cuda.as_cuda_array(Foreign(cuda.device_array(10))).stream == 0


def test_interface_without_owner_and_with_strides_is_a_device_array():
    host = np.arange(10).reshape(2, 5)
    face = dict(cuda.to_device(host).__cuda_array_interface__, strides=host.strides)
    got = cuda.from_cuda_array_interface(face).copy_to_host()
    np.testing.assert_array_equal(got, host)
    assert got.flags["C_CONTIGUOUS"]


def test_masked_interface_is_refused():
    face = dict(cuda.to_device(RNG.random(4)).__cuda_array_interface__,
                mask=cuda.to_device(np.ones(4, bool)))
    with pytest.raises(NotImplementedError, match="Masked arrays are not supported"):
        cuda.from_cuda_array_interface(face)


def test_foreign_array_as_ufunc_output_returns_a_view_of_it():
    @cuda.vectorize(["f8(f8, f8)"])
    def vadd(a, b):
        return a + b

    host = RNG.random(13)
    target = cuda.device_array(13)
    returned = vadd(host, 6.0, out=Foreign(target))
    np.testing.assert_array_equal(returned.copy_to_host(), host + 6.0)
    np.testing.assert_array_equal(target.copy_to_host(), host + 6.0)
    assert returned.device_ctypes_pointer.value == target.device_ctypes_pointer.value


def test_aligned_and_packed_records_are_different_kernel_types():
    packed = np.dtype([("x", np.float16), ("y", np.float16)])
    aligned = np.dtype([("x", np.float16), ("y", np.float16)], align=True)

    @cuda.jit
    def sum_fields(records, out):
        i = cuda.grid(1)
        if i < records.shape[0]:
            out[i] = records[i].x + records[i].y

    for dtype in (packed, aligned):
        host = np.zeros(9, dtype)
        host["x"], host["y"] = RNG.random(9), RNG.random(9)
        out = cuda.device_array(9, np.float32)
        sum_fields[1, 32](cuda.to_device(host), out)
        expected = host["x"].astype(np.float32) + host["y"].astype(np.float32)
        np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-3)
    first, second = sum_fields.signatures
    assert first != second and first[0].dtype.aligned != second[0].dtype.aligned
