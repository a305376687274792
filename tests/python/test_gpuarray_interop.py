"""Zero-copy exchange: DLPack both ways (numpy on the CPU backend, torch and
CuPy on a GPU), __cuda_array_interface__, streams, and GPUArrays as kernel
pointer arguments."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.driver as drv
import cudakit.gpuarray as ga
from cudakit.compiler import SourceModule
from gpuarray_helpers import random_array

ON_CPU = drv.backend() != "cuda"
needs_cpu_backend = pytest.mark.skipif(
    not ON_CPU, reason="numpy.from_dlpack takes only kDLCPU memory: CPU-backend arrays")


def test_dlpack_device() -> None:
    kind, ordinal = ga.to_gpu(np.arange(3.0)).__dlpack_device__()
    assert (kind, ordinal) == ((1, 0) if ON_CPU else (2, 0))


@needs_cpu_backend
def test_numpy_from_dlpack_shares_memory() -> None:
    a = random_array((5, 7), np.float32)
    g = ga.to_gpu(a)
    host_view = np.from_dlpack(g)
    np.testing.assert_array_equal(host_view, a)
    g.fill(3)
    drv.Context.synchronize()  # fill is queued on the stream, as on a GPU
    np.testing.assert_array_equal(host_view, 3)  # the same memory


@needs_cpu_backend
def test_numpy_from_dlpack_of_a_transposed_view() -> None:
    a = random_array((4, 6), np.int16)
    t = np.from_dlpack(ga.to_gpu(a).T)
    np.testing.assert_array_equal(t, a.T)


@needs_cpu_backend
def test_from_dlpack_of_numpy_shares_memory() -> None:
    a = random_array((3, 9), np.float64)
    g = ga.from_dlpack(a)
    np.testing.assert_array_equal(g.get(), a)
    g *= 2
    np.testing.assert_array_equal(a, g.get())  # written through


@needs_cpu_backend
def test_round_trip_through_dlpack_keeps_the_owner_alive() -> None:
    g = ga.from_dlpack(np.arange(1000, dtype=np.int32))
    import gc

    gc.collect()
    np.testing.assert_array_equal(g.get(), np.arange(1000))


def test_from_dlpack_of_a_gpuarray() -> None:
    a = random_array(10, np.complex64)
    g = ga.to_gpu(a)
    h = ga.from_dlpack(g)
    assert h.gpudata == g.gpudata
    np.testing.assert_array_equal(h.get(), a)


def test_dlpack_versioned_and_legacy_capsules() -> None:
    g = ga.to_gpu(np.arange(4.0))
    assert "dltensor_versioned" in repr(g.__dlpack__(max_version=(1, 0)))
    assert "dltensor" in repr(g.__dlpack__())


def test_from_dlpack_of_a_used_capsule_is_refused() -> None:
    g = ga.to_gpu(np.arange(4.0))
    capsule = g.__dlpack__()
    ga.from_dlpack(capsule)
    with pytest.raises(TypeError):
        ga.from_dlpack(capsule)
    with pytest.raises(TypeError):
        ga.from_dlpack(object())


def test_cuda_array_interface_is_absent_on_the_cpu_backend_and_complete_on_a_gpu() -> None:
    g = ga.to_gpu(random_array((3, 4), np.float32))
    if ON_CPU:
        assert not hasattr(g, "__cuda_array_interface__")
        return
    cai = g.__cuda_array_interface__
    assert cai["shape"] == (3, 4) and cai["typestr"] == "<f4" and cai["version"] == 3
    # strides always, as PyCUDA's GPUArray (and its test_gpuarray_cai) has them
    assert cai["data"] == (g.gpudata, False) and cai["strides"] == (16, 4)
    assert g.T.__cuda_array_interface__["strides"] == (4, 16)


def test_gpuarray_is_a_kernel_pointer_argument() -> None:
    mod = SourceModule("""
    __global__ void twice(float *x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] *= 2;
    }""")
    a = random_array(1000, np.float32)
    g = ga.to_gpu(a)
    pending = g + 1  # reads g: evaluated before the kernel writes g
    mod.get_function("twice")(g, np.int32(1000), block=(128, 1, 1), grid=(8, 1))
    np.testing.assert_array_equal(g.get(), a * 2)
    np.testing.assert_allclose(pending.get(), a + 1)


def test_stream_arguments_accept_cudakit_streams() -> None:
    s = drv.Stream()
    a = random_array(100, np.float32)
    g = ga.to_gpu_async(a, stream=s)
    host = g.get_async(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(host, a)


# ---- PyTorch and CuPy (GPU) ------------------------------------------------------



def _torch():
    torch_module = pytest.importorskip("torch")
    if not torch_module.cuda.is_available() or ON_CPU:
        pytest.skip("needs torch with CUDA and a GPU")
    return torch_module


def _cupy():
    cupy_module = pytest.importorskip("cupy")
    if ON_CPU:
        pytest.skip("needs a GPU")
    return cupy_module


@pytest.mark.gpu
def test_torch_to_gpuarray_zero_copy_both_protocols() -> None:
    torch_module = _torch()
    t = torch_module.arange(12, dtype=torch_module.float32, device="cuda").reshape(3, 4)
    for g in (ga.from_dlpack(t), ga.from_cuda_array_interface(t), ga.as_gpuarray(t)):
        assert g.gpudata == t.data_ptr()
        np.testing.assert_array_equal(g.get(), t.cpu().numpy())
    g = ga.from_dlpack(t)
    g += 1  # writes the tensor in place
    torch_module.cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(12).reshape(3, 4) + 1)


@pytest.mark.gpu
def test_gpuarray_to_torch_zero_copy() -> None:
    torch_module = _torch()
    a = random_array((5, 6), np.float32)
    g = ga.to_gpu(a)
    pending = g * 3  # reads g; exporting g evaluates it, so torch's write comes after
    t = torch_module.from_dlpack(g)
    assert not pending.is_pending
    assert t.data_ptr() == g.gpudata
    t2 = torch_module.as_tensor(g, device="cuda")  # __cuda_array_interface__
    assert t2.data_ptr() == g.gpudata
    t.mul_(2)  # torch writes g in place
    torch_module.cuda.synchronize()
    np.testing.assert_array_equal(g.get(), a * 2)
    np.testing.assert_allclose(pending.get(), a * 3)


@pytest.mark.gpu
def test_torch_stream_is_accepted() -> None:
    torch_module = _torch()
    s = torch_module.cuda.Stream()
    a = random_array(1000, np.float32)
    g = ga.to_gpu_async(a, stream=s)
    host = g.get_async(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(host, a)


@pytest.mark.gpu
def test_cupy_zero_copy_both_ways() -> None:
    cp = _cupy()
    x = cp.arange(10, dtype=cp.float64)
    g = ga.from_dlpack(x)
    assert g.gpudata == x.data.ptr
    g *= 2
    np.testing.assert_array_equal(cp.asnumpy(x), np.arange(10) * 2)
    back = cp.asarray(g)  # __cuda_array_interface__
    assert back.data.ptr == g.gpudata
    back2 = cp.from_dlpack(g)
    assert back2.data.ptr == g.gpudata


def test_interface_strides_none_or_explicit_read_the_same() -> None:
    # GPUArrays give strides always (PyCUDA's rule); cudakit.cuda's device
    # arrays keep Numba's None for C-contiguous ones. cudakit's consumers take
    # both alike: gpuarray.from_cuda_array_interface, cuda.as_cuda_array and
    # @cuda.jit kernel arguments.
    from cudakit import cuda

    @cuda.jit
    def twice(x):
        i, j = cuda.grid(2)
        if i < x.shape[0] and j < x.shape[1]:
            x[i, j] *= 2

    host = random_array((37, 5), np.float32)
    device = cuda.to_device(host)
    cai = device.__cuda_array_interface__
    assert cai["strides"] is None and cai["stream"] is None and cai["version"] == 3
    assert device.T.__cuda_array_interface__["strides"] == (4, 20)

    class Producer:
        def __init__(self, interface: dict) -> None:
            self.__cuda_array_interface__ = interface

    for strides in (None, (20, 4)):
        memory = cuda.to_device(host)
        producer = Producer(dict(memory.__cuda_array_interface__, strides=strides))
        viewed = ga.from_cuda_array_interface(producer)
        assert viewed.strides == (20, 4)
        np.testing.assert_array_equal(viewed.get(), host)
        twice[(5, 1), (8, 8)](producer)
        np.testing.assert_array_equal(memory.copy_to_host(), host * 2)
        twice[(5, 1), (8, 8)](cuda.as_cuda_array(producer))
        np.testing.assert_array_equal(memory.copy_to_host(), host * 4)


def test_as_cuda_array_is_a_device_array_view() -> None:
    # Numba's as_cuda_array gives a DeviceNDArray: copy_to_host, slicing,
    # shape/strides, and writes through it land in the producer's memory.
    from cudakit import cuda

    class Producer:
        def __init__(self, interface: dict) -> None:
            self.__cuda_array_interface__ = interface

    host = random_array((37, 5), np.float32)
    memory = cuda.to_device(host)
    for strides in (None, (20, 4)):
        producer = Producer(dict(memory.__cuda_array_interface__, strides=strides))
        view = cuda.as_cuda_array(producer)
        assert isinstance(view, cuda.DeviceNDArray)
        assert view.shape == (37, 5) and view.strides == (20, 4) and view.dtype == np.float32
        assert view.device_ctypes_pointer.value == memory.device_ctypes_pointer.value
        np.testing.assert_array_equal(view.copy_to_host(), host)
        np.testing.assert_array_equal(view[3:9, 1].copy_to_host(), host[3:9, 1])
        np.testing.assert_array_equal(view.T.copy_to_host(), host.T)
    # A transposed producer (F order) and a write through the view.
    producer = Producer(memory.T.__cuda_array_interface__)
    view = cuda.as_cuda_array(producer)
    assert view.shape == (5, 37) and not view.is_c_contiguous()
    np.testing.assert_array_equal(view.copy_to_host(), host.T)
    replacement = random_array((5, 37), np.float32)
    view.copy_to_device(replacement)
    np.testing.assert_array_equal(memory.copy_to_host(), replacement.T)
    # Records come through with their fields.
    pair = np.dtype([("a", np.int32), ("b", np.float32)])
    records = np.zeros(11, dtype=pair)
    records["a"] = np.arange(11)
    records["b"] = random_array(11, np.float32)
    stored = cuda.to_device(records)
    viewed = cuda.as_cuda_array(Producer(stored.__cuda_array_interface__))
    assert viewed.dtype == pair and viewed.shape == (11,)
    np.testing.assert_array_equal(viewed.copy_to_host(), records)
    # A layout a cudakit array cannot hold (a stride that is not a multiple of
    # the itemsize) still gives a view kernels take, without copy_to_host.
    odd = Producer(dict(memory.__cuda_array_interface__, shape=(10,), strides=(6,)))
    assert cuda.is_cuda_array(cuda.as_cuda_array(odd))


def test_as_cuda_array_of_host_data_is_a_clear_error() -> None:
    from cudakit import cuda

    for host in (5, np.arange(3.0), [1.0, 2.0]):
        with pytest.raises(TypeError, match=r"not a device array .*cuda\.to_device"):
            cuda.as_cuda_array(host)
