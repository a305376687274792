"""stream= and allocator= of gpuarray functions and methods are honoured:
work given a stream runs on it (the result's stream is it; a held stream
holds the work back), memory comes from the allocator with the right byte
count and is kept alive by the array."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import cudakit.cumath as cumath
import cudakit.driver as drv
import cudakit.gpuarray as ga
from cudakit.compiler import SourceModule
from cudakit.curandom import PhiloxRandomNumberGenerator
from gpuarray_helpers import random_array


class CountingAllocator:
    """allocator= that records the byte counts and hands out mem_alloc's memory."""

    def __init__(self) -> None:
        self.requests: list[int] = []

    def __call__(self, nbytes: int) -> drv.DeviceAllocation:
        self.requests.append(nbytes)
        return drv.mem_alloc(nbytes)


def _on(array: ga.GPUArray, stream: drv.Stream) -> bool:
    return array.stream.handle == stream.handle


# ---- stream= ---------------------------------------------------------------------

def test_results_live_on_the_given_stream() -> None:
    s = drv.Stream()
    x = random_array(1001, np.float32, 0.5, 2)
    y = random_array(1001, np.float32)
    gx, gy = ga.to_gpu(x), ga.to_gpu(y)
    results = {
        "to_gpu": (ga.to_gpu(x, stream=s), x),
        "to_gpu_async": (ga.to_gpu_async(x, stream=s), x),
        "sum": (ga.sum(gx, stream=s), x.sum()),
        "dot": (ga.dot(gx, gy, stream=s), np.dot(x, y)),
        "max": (ga.max(gx, stream=s), x.max()),
        "min": (ga.min(gx, stream=s), x.min()),
        "subset_sum": (ga.subset_sum(ga.to_gpu(np.arange(0, 1001, 3, dtype=np.int32)), gx,
                                     stream=s), x[::3].sum()),
        "take": (ga.take(gx, ga.to_gpu(np.array([5, 0, 1000], np.int64)), stream=s),
                 x[[5, 0, 1000]]),
        "astype": (gx.astype(np.float64, stream=s), x.astype(np.float64)),
        "cumath.sqrt": (cumath.sqrt(gx, stream=s), np.sqrt(x)),
        "cumath.fmod": (cumath.fmod(gx, gy + 60, stream=s), np.fmod(x, y + 60)),
        "if_positive": (ga.if_positive(gy, gx, gy, stream=s), np.where(y > 0, x, y)),
        "where": (ga.where(gy > 0, gx, gy, stream=s), np.where(y > 0, x, y)),
        "mul_add": (gx.mul_add(2, gy, 3, stream=s), 2 * x + 3 * y),
        "reverse": (gx.reverse(stream=s), x[::-1]),
    }
    # The dot's float32 terms add in another order than numpy's and may
    # cancel: its error scales with the terms' sizes, not the result's.
    dot_bound = 1e-6 * float(np.abs(x.astype(np.float64) * y).sum())
    for name, (result, expected) in results.items():
        assert _on(result, s), name
        np.testing.assert_allclose(result.get(), expected, rtol=2e-5, atol=max(1e-4, dot_bound),
                                   err_msg=name)
    assert not _on(gx, s)  # the operands stay on their own streams


def test_pending_operand_is_evaluated_on_the_stream() -> None:
    s = drv.Stream()
    x = random_array(4099, np.float64)
    gx = ga.to_gpu(x)
    total = ga.sum(gx * 2 + 1, stream=s)
    assert _on(total, s)
    np.testing.assert_allclose(total.get(), (x * 2 + 1).sum(), rtol=1e-12)


def test_out_and_set_get_fill_on_stream() -> None:
    s = drv.Stream()
    x = random_array(777, np.float32)
    out = ga.empty(777, np.float32)
    assert cumath.exp(ga.to_gpu(x) / 50, out=out, stream=s) is out
    s.synchronize()
    np.testing.assert_allclose(out.get(), np.exp(x / 50), rtol=1e-6)
    a = ga.empty(777, np.float32)
    a.set(x, stream=s)
    np.testing.assert_array_equal(a.get(stream=s), x)
    host = drv.pagelocked_empty(777, np.float32)
    a.fill(3.5, stream=s)
    a.get_async(stream=s, ary=host)
    s.synchronize()
    assert (host == 3.5).all()
    assert isinstance(a.get(pagelocked=True), np.ndarray)


def test_random_draws_on_stream_are_the_same_numbers() -> None:
    s = drv.Stream()
    g1, g2 = PhiloxRandomNumberGenerator(seed=7), PhiloxRandomNumberGenerator(seed=7)
    on_s = g1.gen_uniform(1001, np.float32, stream=s)
    plain = g2.gen_uniform(1001, np.float32)
    assert _on(on_s, s)
    np.testing.assert_array_equal(on_s.get(), plain.get())
    # The generator's offset advanced the same way.
    np.testing.assert_array_equal(g1.gen_normal(37, np.float64, stream=s).get(),
                                  g2.gen_normal(37, np.float64).get())


def test_stream_or_out_as_pycuda_cumath_takes_it() -> None:
    x = random_array(99, np.float32, 0, 3)
    out = ga.empty(99, np.float32)
    assert cumath.sin(ga.to_gpu(x), out) is out
    np.testing.assert_allclose(out.get(), np.sin(x), rtol=1e-6)
    with pytest.raises(TypeError, match="GPUArray"):
        ga.sum(ga.to_gpu(x), stream=out)


HOLD = SourceModule("""
__global__ void hold(volatile int *flag, long long max_spins)
{
    for (long long k = 0; k < max_spins && *flag == 0; ++k) { }
}
""").get_function("hold")


def test_work_given_a_stream_waits_behind_that_stream() -> None:
    # A kernel holds stream s until a flag is set. fill(stream=s) queued
    # behind it has not run while s is held (a copy on another stream still
    # sees the old values); once released, it has. The hold gives up after a
    # bounded spin (seconds), so a broken release fails instead of hanging.
    s = drv.Stream(flags=1)
    other = drv.Stream(flags=1)
    flag = drv.mem_alloc(4)
    drv.memset_d32(flag, 0, 1)
    a = ga.to_gpu(np.ones(1001, np.float32))
    a.fill(1, stream=s)  # compile what runs while s is held first
    float(ga.sum(a, stream=s).get())
    spins = 2_000_000_000 if drv.backend() == "cpu" else 20_000_000
    one = drv.pagelocked_zeros(1, np.int32)
    one[0] = 1
    HOLD(flag, np.int64(spins), block=(1, 1, 1), grid=(1, 1), stream=s)
    a.fill(5, stream=s)
    total = ga.sum(a, stream=s)
    before = a.get(stream=other)
    drv.memcpy_htod_async(flag, one, stream=other)
    s.synchronize()
    assert (before == 1).all()
    assert (a.get() == 5).all()
    assert float(total.get()) == 5 * 1001


# ---- allocator= ------------------------------------------------------------------

@pytest.mark.parametrize("shape,dtype", [((1001,), np.float32), ((3, 37), np.complex128),
                                         ((5, 7, 2), np.int16)])
def test_creation_uses_the_allocator(shape: tuple[int, ...], dtype: type) -> None:
    alloc = CountingAllocator()
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    x = random_array(shape, dtype)
    made = {
        "empty": ga.empty(shape, dtype, allocator=alloc),
        "zeros": ga.zeros(shape, dtype, allocator=alloc),
        "ones": ga.ones(shape, dtype, allocator=alloc),
        "to_gpu": ga.to_gpu(x, allocator=alloc),
        "to_gpu_async": ga.to_gpu_async(x, allocator=alloc),
        "GPUArray": ga.GPUArray(shape, dtype, allocator=alloc),
        "fortran": ga.to_gpu(np.asfortranarray(x), allocator=alloc),
    }
    assert alloc.requests == [nbytes] * len(made)
    for name, array in made.items():
        assert array.allocator is alloc, name
    assert (made["zeros"].get() == 0).all() and (made["ones"].get() == 1).all()
    np.testing.assert_array_equal(made["to_gpu"].get(), x)
    np.testing.assert_array_equal(made["to_gpu_async"].get(), x)
    assert made["fortran"].flags.f_contiguous
    np.testing.assert_array_equal(made["fortran"].get(), x)
    # *_like use the allocator of the array they copy (as PyCUDA).
    like = ga.zeros_like(made["to_gpu"])
    assert like.allocator is alloc and alloc.requests[-1] == nbytes


def test_array_memory_is_the_allocations_and_kept_alive() -> None:
    handed_out: list[drv.DeviceAllocation] = []

    def alloc(nbytes: int) -> drv.DeviceAllocation:
        handed_out.append(drv.mem_alloc(nbytes))
        return handed_out[-1]

    x = random_array(4099, np.float64)
    a = ga.to_gpu(x, allocator=alloc)
    assert a.gpudata == int(handed_out[0])
    handed_out.clear()
    gc.collect()
    # The array keeps the allocation alive: its memory still holds the values.
    np.testing.assert_array_equal((a * 2).get(), 2 * x)


def test_reductions_and_joins_return_allocator_memory() -> None:
    alloc = CountingAllocator()
    x = random_array(1001, np.float32)
    y = random_array(1001, np.float32)
    gx, gy = ga.to_gpu(x), ga.to_gpu(y)
    subset = ga.to_gpu(np.arange(1, 1001, 2, dtype=np.int32))
    checks = [
        (ga.sum(gx, allocator=alloc), x.sum(), 4),
        (ga.sum(gx, dtype=np.float64, allocator=alloc), x.astype(np.float64).sum(), 8),
        (ga.dot(gx, gy, allocator=alloc), np.dot(x, y), 4),
        (ga.subset_sum(subset, gx, allocator=alloc), x[1::2].sum(), 4),
        (ga.subset_dot(subset, gx, gy, allocator=alloc), np.dot(x[1::2], y[1::2]), 4),
        (ga.any(gx > 0, allocator=alloc), (x > 0).any(), 1),
        (ga.concatenate([gx, gy], allocator=alloc), np.concatenate([x, y]), 8008),
        (ga.stack([gx, gy], allocator=alloc), np.stack([x, y]), 8008),
        (ga.logical_and(gx > 0, gy > 0, allocator=alloc), np.logical_and(x > 0, y > 0), 1001),
        (ga.logical_not(gx > 0, allocator=alloc), x <= 0, 1001),
    ]
    assert alloc.requests == [nbytes for _, _, nbytes in checks]
    # float32 sums and dots add in another order than numpy: their error
    # scales with the size of the terms (|x| up to 50, |x*y| up to 2500).
    sum_bound = 1e-6 * float(np.abs(x.astype(np.float64)).sum())
    for result, expected, _ in checks:
        assert result.allocator is alloc
        np.testing.assert_allclose(result.get(), expected, rtol=1e-5, atol=50 * sum_bound)


def test_reduction_kernel_allocator_and_empty_arrays() -> None:
    from cudakit.reduction import ReductionKernel

    alloc = CountingAllocator()
    k = ReductionKernel(np.float64, "0", "a+b", arguments="const double *x", allocator=alloc)
    x = random_array(37, np.float64)
    assert float(k(ga.to_gpu(x)).get()) == pytest.approx(x.sum())
    other = CountingAllocator()
    k(ga.to_gpu(x), allocator=other)
    assert alloc.requests == [8] and other.requests == [8]
    # An empty array calls no allocator (as PyCUDA).
    empty = ga.empty((0, 5), np.float32, allocator=alloc)
    assert empty.shape == (0, 5) and alloc.requests == [8]


def test_bad_allocators_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="no int"):
        ga.empty(10, np.float32, allocator=lambda nbytes: "not memory")
    with pytest.raises(ValueError, match="null"):
        ga.zeros(10, np.float32, allocator=lambda nbytes: 0)
    with pytest.raises(ZeroDivisionError):
        ga.to_gpu(np.ones(3), allocator=lambda nbytes: 1 // 0)
