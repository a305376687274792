"""Page-locked host memory: register_host_memory (RegisteredHostMemory),
pagelocked_* (HostAllocation), aligned_*; checked against numpy on fresh
random data at sizes that are not multiples of anything."""

from __future__ import annotations

import gc
import time

import numpy as np
import pytest

import cudakit.driver as drv
from cudakit import _core


def drv_vec_float3() -> np.dtype:
    from cudakit.gpuarray import vec
    return vec.float3


def live() -> int:
    gc.collect()  # registrations held by garbage from earlier tests end first
    return int(_core._live_host_registrations())


def test_register_host_memory_page_locks_and_copies_async() -> None:
    rng = np.random.default_rng(11)
    a = drv.aligned_empty((100_003,), np.float64)
    a[:] = rng.standard_normal(a.size)
    before = live()
    a_pin = drv.register_host_memory(a)
    assert isinstance(a_pin.base, drv.RegisteredHostMemory)
    assert a_pin.base.base is a
    assert a_pin.base.registered
    assert np.shares_memory(a_pin, a)
    assert live() == before + 1

    gpu = drv.mem_alloc_like(a)
    stream = drv.Stream()
    drv.memcpy_htod_async(gpu, a_pin, stream)
    back = drv.register_host_memory(np.zeros_like(a))
    drv.memcpy_dtoh_async(back, gpu, stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, a)
    assert live() == before + 2

    a_pin.base.unregister()
    assert not a_pin.base.registered
    assert live() == before + 1
    np.testing.assert_array_equal(a_pin, a)  # the memory stays the array's
    del back
    gc.collect()
    assert live() == before  # the last view gone ends the registration


def test_double_unregister_is_a_clear_error() -> None:
    registered = drv.register_host_memory(np.ones(1000, np.float32))
    registered.base.unregister()
    with pytest.raises(drv.ArgumentError, match="already ended"):
        registered.base.unregister()
    with pytest.raises(drv.ArgumentError, match="unregister"):
        registered.base.get_device_pointer()


def test_registering_the_same_memory_twice_is_refused() -> None:
    a = np.arange(4096, dtype=np.int32)
    first = drv.register_host_memory(a)
    before = live()
    with pytest.raises(drv.ArgumentError, match="already registered"):
        drv.register_host_memory(a[100:200])
    assert live() == before
    first.base.unregister()
    again = drv.register_host_memory(a)  # allowed once the first has ended
    again.base.unregister()


def test_register_host_memory_bad_input() -> None:
    with pytest.raises(drv.ArgumentError, match="numpy array"):
        drv.register_host_memory([1.0, 2.0])  # type: ignore[arg-type]
    with pytest.raises(drv.ArgumentError, match="not contiguous"):
        drv.register_host_memory(np.zeros((64, 64), np.float32)[:, ::3])
    with pytest.raises(drv.ArgumentError, match="empty"):
        drv.register_host_memory(np.zeros(0, np.float32))
    with pytest.raises(drv.ArgumentError, match="flags"):
        drv.register_host_memory(np.zeros(16, np.float32), flags=0x100)


def test_registered_memory_has_a_device_pointer() -> None:
    a = np.random.default_rng(3).standard_normal(777).astype(np.float32)
    pinned = drv.register_host_memory(a, drv.mem_host_register_flags.DEVICEMAP)
    assert pinned.base.flags == drv.mem_host_register_flags.DEVICEMAP
    pointer = pinned.base.get_device_pointer()
    assert pointer != 0
    if drv.backend() == "cpu":
        assert pointer == a.ctypes.data
    pinned.base.unregister()


def test_pagelocked_arrays_know_their_allocation() -> None:
    rng = np.random.default_rng(5)
    a = drv.pagelocked_empty((37, 11), np.float32, order="F")
    assert isinstance(a.base, drv.HostAllocation)
    assert a.flags.f_contiguous and a.shape == (37, 11)
    a[:] = rng.standard_normal(a.shape)
    assert a.base.get_device_pointer() != 0
    gpu = drv.mem_alloc(a.nbytes)
    stream = drv.Stream()
    drv.memcpy_htod_async(gpu, a, stream)
    b = drv.pagelocked_zeros_like(a)
    assert b.flags.f_contiguous and (b == 0).all()
    drv.memcpy_dtoh_async(b, gpu, stream)
    stream.synchronize()
    np.testing.assert_array_equal(a, b)
    assert drv.pagelocked_empty(5, np.int16).shape == (5,)
    assert drv.pagelocked_zeros((), np.float64).shape == ()


def test_pagelocked_mem_flags_are_honoured_or_refused() -> None:
    flags = drv.host_alloc_flags
    a = drv.pagelocked_empty(10, np.float32, mem_flags=flags.PORTABLE | flags.DEVICEMAP)
    assert a.base.mem_flags == 3 and a.base.get_flags() == flags.PORTABLE | flags.DEVICEMAP
    with pytest.raises(drv.NotSupported, match="last array"):
        a.base.free()
    records = drv.pagelocked_zeros(7, drv_vec_float3())
    assert records.dtype.itemsize == 12 and records.shape == (7,) and (records["y"] == 0).all()
    with pytest.raises(drv.NotSupported, match="WRITECOMBINED"):
        drv.pagelocked_empty(10, np.float32, mem_flags=flags.WRITECOMBINED)
    with pytest.raises(drv.ArgumentError, match="unknown mem_flags"):
        drv.pagelocked_zeros(10, np.float32, mem_flags=64)
    with pytest.raises(drv.ArgumentError, match="order"):
        drv.pagelocked_empty(10, np.float32, order="K")


def test_aligned_arrays_start_on_the_boundary() -> None:
    for alignment in (64, 4096):
        a = drv.aligned_zeros((3, 1001), np.float64, alignment=alignment)
        assert a.ctypes.data % alignment == 0
        assert a.shape == (3, 1001) and (a == 0).all()
    assert drv.aligned_empty_like(np.zeros((4, 5), order="F")).flags.f_contiguous
    with pytest.raises(drv.ArgumentError, match="power of two"):
        drv.aligned_empty(10, np.float32, alignment=100)


@pytest.mark.gpu
def test_async_copy_from_registered_memory_returns_before_it_is_done() -> None:
    # 512 MiB takes tens of milliseconds over PCIe or NVLink-C2C; a copy from
    # registered memory is queued and returns at once, one from pageable
    # memory would be staged by the host first.
    a = drv.register_host_memory(np.ones(128 << 20, np.float32))
    gpu = drv.mem_alloc(a.nbytes)
    stream = drv.Stream()
    drv.memcpy_htod_async(gpu, a, stream)  # warm-up: first-touch costs
    stream.synchronize()
    start = time.perf_counter()
    drv.memcpy_htod_async(gpu, a, stream)
    queued = time.perf_counter() - start
    stream.synchronize()
    total = time.perf_counter() - start
    assert queued < 0.25 * total, (queued, total)
    a.base.unregister()


def test_kernels_reach_page_locked_memory_through_its_device_pointer() -> None:
    from cudakit.compiler import SourceModule

    twice = SourceModule("""
    __global__ void twice(float *x, int n)
    {
        const int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] *= 2.0f;
    }
    """).get_function("twice")
    n = 1000
    rng = np.random.default_rng(8)
    registered = drv.register_host_memory(rng.standard_normal(n).astype(np.float32),
                                          drv.mem_host_register_flags.DEVICEMAP)
    pinned = drv.pagelocked_empty(n, np.float32)
    pinned[:] = rng.standard_normal(n)
    for host in (registered, pinned):
        expected = host * 2
        twice(np.intp(host.base.get_device_pointer()), np.int32(n), block=(128, 1, 1),
              grid=(8, 1))
        drv.Context.synchronize()
        np.testing.assert_array_equal(host, expected)
    registered.base.unregister()
