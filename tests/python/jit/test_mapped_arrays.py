"""cuda.mapped_array: host memory kernels address in place (no copy), with
__cuda_array_interface__ naming the stream it was made for; cuda.pinned_array
in page-locked memory; Numba's device attributes and low-occupancy warning;
the `*_like` constructors' layout (NumPy's empty_like rule) and explicit
strides."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cudakit import cuda

RNG = np.random.default_rng(31)


def affine(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * 3 - 1
        x[i] = -x[i]


def test_kernels_read_and_write_mapped_arrays_in_place():
    x = cuda.mapped_array(45, np.float64)
    out = cuda.mapped_array_like(x)
    x[:] = RNG.standard_normal(45)
    original = x.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no copy, so no NumbaPerformanceWarning
        cuda.jit(affine)[2, 32](x, out)
    cuda.synchronize()
    # (a GPU may fuse the multiply-add: one rounding fewer than numpy)
    np.testing.assert_allclose(out, original * 3 - 1, rtol=1e-15, atol=1e-15)
    np.testing.assert_array_equal(x, -original)
    view = x[5::2]  # a view of mapped memory is mapped too
    cuda.jit(affine)[1, 32](view, out[:view.shape[0]])
    cuda.synchronize()
    np.testing.assert_array_equal(x[5::2], original[5::2])


def test_array_interfaces_name_the_stream_and_the_memory():
    s = cuda.stream()
    x = cuda.mapped_array((4, 6), np.int32, stream=s)
    interface = x.__cuda_array_interface__
    assert interface["stream"] == int(s.handle) and interface["shape"] == (4, 6)
    assert cuda.mapped_array(3).__cuda_array_interface__["stream"] is None
    assert x[1:].__cuda_array_interface__["data"][0] == interface["data"][0] + 24
    assert cuda.device_array(5, stream=s).__cuda_array_interface__["stream"] == int(s.handle)
    assert cuda.device_array(5).__cuda_array_interface__["stream"] is None
    pinned = cuda.pinned_array((3, 2), np.float32, order="F")
    assert pinned.shape == (3, 2) and pinned.flags.f_contiguous


def test_low_occupancy_warning_and_device_attributes():
    device = cuda.get_current_device()
    assert device.MULTIPROCESSOR_COUNT >= 1 and device.WARP_SIZE == 32
    kernel = cuda.jit(affine)
    old = cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS
    cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    try:
        for _ in range(2):  # each configuration warns, as Numba's
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                kernel[1, 32]
            assert any("Grid size 1 will likely result in GPU under-utilization"
                       in str(w.message) for w in caught)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            kernel[(127, 1), 32]
        assert any("Grid size 127" in str(w.message) for w in caught)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            kernel[(64, 2), 32]  # 128 blocks: Numba's threshold, on every device
    finally:
        cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = old


class _Foreign:
    """Another library's array, seen only through the protocol."""

    def __init__(self, array):
        self.__cuda_array_interface__ = array.__cuda_array_interface__


def test_consumers_wait_for_the_producers_stream(monkeypatch):
    waited = []
    monkeypatch.setattr(cuda.cudadrv.driver.Stream, "synchronize",
                        lambda self: waited.append(self.handle))
    s1, s2 = cuda.stream(), cuda.stream()
    a = cuda.to_device(np.arange(45.0))
    on_s1 = _Foreign(cuda.device_array(45, stream=s1))
    on_s2 = _Foreign(cuda.device_array(45, stream=s2))
    cuda.as_cuda_array(on_s1)
    assert waited == [int(s1.handle)]
    cuda.jit(affine)[2, 32](on_s1, on_s2)
    assert waited[1:] == [int(s1.handle), int(s2.handle)]
    cuda.jit(affine)[2, 32](a, cuda.device_array(45))  # cudakit's own arrays: no wait
    cuda.from_cuda_array_interface(on_s2.__cuda_array_interface__, sync=False)
    old = cuda.config.CUDA_ARRAY_INTERFACE_SYNC
    cuda.config.CUDA_ARRAY_INTERFACE_SYNC = False
    try:
        cuda.as_cuda_array(on_s2)
    finally:
        cuda.config.CUDA_ARRAY_INTERFACE_SYNC = old
    assert len(waited) == 3


LIKE_FUNCTIONS = [cuda.device_array_like, cuda.pinned_array_like, cuda.mapped_array_like]


def like_sources(shape, order, key):
    """The same view of a host array and of a device array."""
    host = np.zeros(shape, order=order)
    device = cuda.device_array(shape, order=order)
    if key == "permuted":
        return [host.transpose(1, 0, 2)]  # (device arrays transpose all axes only)
    return [host[key], device[key]] if key is not None else [host, device]


@pytest.mark.parametrize("like", LIKE_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape,order,key", [
    ((10, 12), "F", np.s_[::2, ::2]), ((10, 12), "C", np.s_[::2, ::2]),
    ((7, 9), "F", None), ((4, 5, 6), "C", np.s_[:, ::2, 1:]), ((4, 5, 6), "F", np.s_[::3]),
    ((3, 4, 5), "C", "permuted"), ((9,), "C", np.s_[::2])])
def test_like_keeps_the_axis_order_of_views_as_numpy(like, shape, order, key):
    for source in like_sources(shape, order, key):
        made = like(source)
        expected = np.empty_like(like_sources(shape, order, key)[0])
        assert made.shape == expected.shape and made.dtype == expected.dtype
        assert made.strides == expected.strides, (type(source), made.strides, expected.strides)
        assert bool(made.flags["C_CONTIGUOUS"]) == bool(expected.flags["C_CONTIGUOUS"])
        assert bool(made.flags["F_CONTIGUOUS"]) == bool(expected.flags["F_CONTIGUOUS"])


@pytest.mark.parametrize("like", LIKE_FUNCTIONS, ids=lambda f: f.__name__)
def test_like_of_an_empty_view(like):
    for source in like_sources((0, 4), "F", np.s_[:, ::2]):
        made = like(source)
        assert made.shape == (0, 2) and made.size == 0 and made.dtype == np.float64


def offset_sum(a, out):
    i, j, k = cuda.grid(3)
    if i < a.shape[0] and j < a.shape[1] and k < a.shape[2]:
        out[i, j, k] = a[i, j, k] * 2 + i - j + k


def test_an_array_with_permuted_strides_runs_in_kernels_and_copies():
    host = RNG.standard_normal((3, 4, 5)).transpose(1, 0, 2)  # strides neither C nor F
    device = cuda.device_array_like(host)
    assert device.strides == host.strides
    device.copy_to_device(host)
    np.testing.assert_array_equal(device.copy_to_host(), host)
    out = cuda.device_array_like(host)
    cuda.jit(offset_sum)[(1, 1, 1), (4, 3, 5)](device, out)
    i, j, k = np.indices(host.shape)
    np.testing.assert_array_equal(out.copy_to_host(), host * 2 + i - j + k)
    pinned = cuda.pinned_array_like(host)
    pinned[...] = host
    np.testing.assert_array_equal(cuda.to_device(pinned).copy_to_host(), host)


@pytest.mark.parametrize("make", [cuda.device_array, cuda.pinned_array, cuda.mapped_array],
                         ids=lambda f: f.__name__)
def test_explicit_strides(make):
    a = make((3, 4), np.float32, strides=(4, 12))  # Fortran order, given as strides
    assert a.strides == (4, 12) and a.flags["F_CONTIGUOUS"]
    b = make((2, 3), np.float64, strides=(8, 16))  # spread: every other element
    assert b.strides == (8, 16) and not b.flags["C_CONTIGUOUS"]
    with pytest.raises(ValueError, match="one stride .in bytes. per axis"):
        make((3, 4), np.float32, strides=(4,))
    with pytest.raises(ValueError, match="negative strides"):
        make((3, 4), np.float32, strides=(-4, 12))
    with pytest.raises(TypeError):
        make((3, 4), np.float32, strides=(4.5, 12))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint64", "float16", "float32",
                                   "float64", "complex64", "complex128", "bool",
                                   "datetime64[ns]", "timedelta64[s]"])
def test_like_with_permuted_strides_for_every_dtype(dtype):
    for _ in range(2):  # a second call behaves as the first
        host = RNG.integers(0, 100, (3, 4, 5)).astype(dtype).transpose(1, 0, 2)
        for like in LIKE_FUNCTIONS:
            made = like(host)
            assert made.dtype == host.dtype and made.strides == np.empty_like(host).strides
        device = cuda.device_array_like(host)
        device.copy_to_device(host)
        np.testing.assert_array_equal(device.copy_to_host(), host)


def test_records_take_c_order_strides_only():
    record = np.dtype([("a", "i4"), ("b", "f8")], align=True)
    assert cuda.device_array((2, 3), record, strides=(48, 16)).strides == (48, 16)
    with pytest.raises(NotImplementedError, match="records are C-ordered"):
        cuda.device_array((2, 3), record, strides=(16, 32))  # Fortran order
    with pytest.raises(NotImplementedError, match="records take C-order strides only"):
        cuda.device_array((2, 3), record, strides=(96, 32))  # spread out
