"""cuda.mapped_array: host memory kernels address in place (no copy), with
__cuda_array_interface__ naming the stream it was made for; cuda.pinned_array
in page-locked memory; Numba's device attributes and low-occupancy warning."""

from __future__ import annotations

import warnings

import numpy as np

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
