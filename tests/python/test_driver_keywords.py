"""Keywords and flags of driver-level calls are applied or refused with a
clear error (or, where a PyCUDA program may pass a flag cudakit cannot apply
and the result is the same, a warning): never silently dropped."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit.compiler import SourceModule


def test_init_and_context_flags() -> None:
    drv.init()
    with pytest.raises(drv.ArgumentError, match="flags must be 0"):
        drv.init(1)
    device = drv.Device(0)
    with pytest.warns(RuntimeWarning, match="primary context"):
        ctx = device.make_context(drv.ctx_flags.SCHED_BLOCKING_SYNC)
    ctx.pop()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ctx = device.make_context()
        ctx.pop()


def test_stream_and_event_flags() -> None:
    drv.Stream(0)
    drv.Stream(1)
    with pytest.raises(drv.ArgumentError, match="unknown stream flags"):
        drv.Stream(6)
    untimed = drv.Event(drv.event_flags.DISABLE_TIMING)
    timed = drv.Event()
    timed.record()
    untimed.record()
    with pytest.raises(drv.Error):
        untimed.time_since(timed)  # timing disabled: the flag was applied
    with pytest.warns(RuntimeWarning, match="BLOCKING_SYNC"):
        drv.Event(drv.event_flags.BLOCKING_SYNC).record().synchronize()
    with pytest.raises(drv.NotSupported, match="between processes"):
        drv.Event(drv.event_flags.INTERPROCESS | drv.event_flags.DISABLE_TIMING)
    with pytest.raises(drv.ArgumentError, match="unknown event flags"):
        drv.Event(64)


def test_async_copies_and_memsets_use_the_stream_given() -> None:
    n = 100_003
    rng = np.random.default_rng(21)
    a = drv.pagelocked_empty(n, np.float32)
    a[:] = rng.standard_normal(n)
    gpu = drv.mem_alloc(a.nbytes)
    stream = drv.Stream()
    drv.memset_d32_async(gpu, 0, n, stream)
    drv.memcpy_htod_async(gpu, a, stream)
    copy = drv.mem_alloc(a.nbytes)
    drv.memcpy_dtod_async(copy, gpu, a.nbytes, stream=stream)
    back = drv.pagelocked_zeros_like(a)
    drv.memcpy_dtoh_async(back, copy, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, a)
    with pytest.raises(drv.ArgumentError, match="expected a stream"):
        drv.memcpy_htod_async(gpu, a, stream="default")  # type: ignore[arg-type]


def test_prepare_takes_shared_positionally_and_refuses_block() -> None:
    kernel = SourceModule("""
    __global__ void fill_shared(float *out)
    {
        extern __shared__ float tile[];
        tile[threadIdx.x] = threadIdx.x * 2.0f;
        __syncthreads();
        out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
    }
    """).get_function("fill_shared")
    threads = 97
    kernel.prepare("P", threads * 4)  # PyCUDA's prepare(arg_types, shared=None, texrefs=[])
    out = drv.mem_alloc(threads * 4)
    kernel.prepared_call((1, 1), (threads, 1, 1), out)
    host = np.empty(threads, np.float32)
    drv.memcpy_dtoh(host, out)
    np.testing.assert_array_equal(host, (np.arange(threads)[::-1] * 2).astype(np.float32))
    with pytest.raises(drv.ArgumentError, match=r"prepared_call\(grid, block"):
        kernel.prepare("P", block=(threads, 1, 1))


def test_typed_pointer_check_and_its_deliberate_escape() -> None:
    # PyCUDA does not check pointee types (its test_large_smem passes float32
    # memory to an int*); cudakit refuses, and says how to reinterpret on purpose.
    n = 300
    kernel = SourceModule("""
    __global__ void iota(int *d_data) { d_data[threadIdx.x] = threadIdx.x; }
    """).get_function("iota")
    arg = gpuarray.zeros((n,), dtype=np.float32)
    with pytest.raises(drv.ArgumentError, match=r"numpy.intp\(a.gpudata\)"):
        kernel(arg, block=(n, 1, 1))
    kernel(np.intp(arg.gpudata), block=(n, 1, 1))
    np.testing.assert_array_equal(arg.get().view(np.int32), np.arange(n, dtype=np.int32))


def test_a_call_site_reads_new_extents_and_keywords_on_every_call() -> None:
    # A launch keeps the last keyword names and extents it read: a list
    # changed between calls, a new tuple, other keywords must still be read
    # (and refused) as on a first call.
    kernel = SourceModule("""
    __global__ void count(int *out) { atomicAdd(out, 1); }
    """).get_function("count")
    out = drv.mem_alloc(4)
    rng = np.random.default_rng(5)
    block = [int(rng.integers(2, 40)), 1, 1]
    expected = 0
    for grid in ((3, 1), (int(rng.integers(2, 9)), 1)):
        for _ in range(2):
            drv.memset_d32(out, 0, 1)
            kernel(out, block=block, grid=grid)
            host = np.empty(1, np.int32)
            drv.memcpy_dtoh(host, out)
            expected = block[0] * grid[0]
            assert host[0] == expected
            block[0] += 3  # a list: read anew on the next call
            kernel.prepared_call(grid, tuple(block), out)
    bad = (0, 1, 1)
    with pytest.raises(drv.ArgumentError, match=r"block extent 0"):
        kernel(out, block=bad, grid=(1, 1))
    with pytest.raises(drv.ArgumentError, match=r"unknown keyword\(s\): blocks"):
        kernel(out, blocks=(1, 1, 1), grid=(1, 1))
    with pytest.raises(drv.ArgumentError, match="no block= was given"):
        kernel(out, grid=(1, 1))
    kernel(out, grid=(1, 1), block=(1, 1, 1))  # the same keywords in another order
    kernel(out, **{"bl" + "ock": (1, 1, 1)})  # a name built at run time
