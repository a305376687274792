"""Debugging and tuning aids from Python: Function.occupancy and
tools.OccupancyRecord (one model), the printf buffer's limit and the report
of lost output, context limits, and SourceModule's source_name."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit import tools
from cudakit.compiler import SourceModule

SCALE = """
extern __shared__ float staging[];
__global__ void scale(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Each thread its own slot (a slot shared by threads of different warps
    // would be a race on a GPU).
    if (i < n) { staging[threadIdx.x] = p[i]; p[i] = staging[threadIdx.x] * 1.5f; }
}
"""

RESOURCES = ("registers", "shared memory", "threads (warps) per multiprocessor",
             "blocks per multiprocessor")


@pytest.fixture(scope="module")
def scale() -> drv.Function:
    return SourceModule(SCALE).get_function("scale")


def test_occupancy_reports_blocks_warps_fraction_and_the_limit(scale: drv.Function) -> None:
    dev = drv.Context.get_device()
    max_warps = (dev.get_attribute(drv.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR)
                 // dev.get_attribute(drv.device_attribute.WARP_SIZE))
    for block in (32, 100, 256, 1024):
        o = scale.occupancy(block)
        assert o.block_size == block
        assert o.max_warps_per_multiprocessor == max_warps
        warps_per_block = -(-block // 32)
        assert o.active_warps_per_multiprocessor == (
            o.active_blocks_per_multiprocessor * warps_per_block)
        assert o.fraction == pytest.approx(o.active_warps_per_multiprocessor / max_warps)
        assert 0 < o.fraction <= 1
        assert o.limited_by in RESOURCES
        assert o.limit_by_warps == max_warps // warps_per_block
        assert o.limit_by_shared_memory is None  # no shared memory asked for
        assert f"limited by {o.limited_by}" in str(o)
    assert scale.occupancy(1024).limited_by == "threads (warps) per multiprocessor"
    assert scale.occupancy(32).limited_by == "blocks per multiprocessor"
    assert str(scale.occupancy((16, 16))) == str(scale.occupancy(256))


def test_occupancy_names_shared_memory_when_it_limits(scale: drv.Function) -> None:
    dev = drv.Context.get_device()
    per_mp = dev.get_attribute(drv.device_attribute.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
    shared = per_mp // 2 - 4096
    scale.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
    o = scale.occupancy(128, shared=shared)
    assert o.limited_by == "shared memory"
    assert o.limit_by_shared_memory == 2
    assert o.active_blocks_per_multiprocessor == 2


@pytest.mark.parametrize("threads,shared", [(32, 0), (96, 0), (256, 0), (1024, 0),
                                            (128, 40000), (256, 100000)])
def test_occupancy_record_agrees_with_function_occupancy(scale: drv.Function, threads: int,
                                                         shared: int) -> None:
    if shared:
        scale.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
    o = scale.occupancy(threads, shared=shared)
    record = tools.OccupancyRecord(tools.DeviceData(), threads,
                                   shared_mem=scale.shared_size_bytes + shared,
                                   registers=scale.num_regs)
    assert record.tb_per_mp == o.active_blocks_per_multiprocessor
    assert record.warps_per_mp == o.active_warps_per_multiprocessor
    assert record.occupancy == pytest.approx(o.fraction)
    assert record.limiting_resource == o.limited_by


def test_occupancy_rejects_impossible_blocks(scale: drv.Function) -> None:
    with pytest.raises(drv.ArgumentError, match="block size 2048"):
        scale.occupancy(2048)
    with pytest.raises(drv.ArgumentError):
        scale.occupancy(0)
    with pytest.raises(drv.ArgumentError):
        scale.occupancy((1, 2, 3, 4))
    with pytest.raises(drv.ArgumentError):
        tools.OccupancyRecord(tools.DeviceData(), 0)


CHATTY = r"""
__global__ void chatty(int tag)
{
    printf("tag %d thread %06u\n", tag, threadIdx.x + blockDim.x * blockIdx.x);
}
"""


@pytest.fixture
def printf_limit():
    saved = drv.Context.get_limit(drv.limit.PRINTF_FIFO_SIZE)
    yield
    drv.Context.set_limit(drv.limit.PRINTF_FIFO_SIZE, saved)


@pytest.mark.skipif(drv.backend() != "cpu",
                    reason="a GPU drops printf output silently; the CPU backend reports it")
def test_printf_beyond_the_buffer_is_reported_as_lost(printf_limit, capfd) -> None:
    chatty = SourceModule(CHATTY).get_function("chatty")
    drv.Context.set_limit(drv.limit.PRINTF_FIFO_SIZE, 1000)
    assert drv.Context.get_limit(drv.limit.PRINTF_FIFO_SIZE) == 1000
    chatty(np.int32(3), block=(64, 1, 1), grid=(2, 1))
    drv.Context.synchronize()
    out, err = capfd.readouterr()
    assert out.count("\n") == 50  # 20-byte lines: 1000 bytes hold 50
    assert ("1560 bytes of printf output (78 calls) from kernel chatty were lost: "
            "the printf buffer (1000 bytes) is full") in err
    assert "PRINTF_FIFO_SIZE" in err

    drv.Context.set_limit(drv.limit.PRINTF_FIFO_SIZE, 1 << 20)
    chatty(np.int32(4), block=(64, 1, 1), grid=(2, 1))
    drv.Context.synchronize()
    out, err = capfd.readouterr()
    assert out.count("\n") == 128
    assert "were lost" not in err


def test_context_limits_read_back_what_was_set() -> None:
    # A GPU's driver refuses a new printf FIFO or malloc heap size once a kernel
    # that uses them has run in the context (earlier tests did); the stack size
    # may change at any time. The CPU backend takes each of them at any time.
    limits = [drv.limit.STACK_SIZE]
    if drv.backend() == "cpu":
        limits += [drv.limit.PRINTF_FIFO_SIZE, drv.limit.MALLOC_HEAP_SIZE]
    for which in limits:
        saved = drv.Context.get_limit(which)
        assert saved > 0
        drv.Context.set_limit(which, saved * 2)
        # A GPU may round up (the stack to its granularity), never down.
        assert drv.Context.get_limit(which) >= saved * 2
        drv.Context.set_limit(which, saved)


def test_source_name_appears_in_compile_errors() -> None:
    with pytest.raises(drv.CompileError) as info:
        SourceModule("__global__ void k(int *p)\n{\n    undeclared_thing = 1;\n}\n",
                     source_name="my_filter.cu", cache_dir=False)
    assert "my_filter.cu(3)" in str(info.value) or "my_filter.cu:3" in str(info.value)
    with pytest.raises(drv.ArgumentError, match="source_name"):
        SourceModule("__global__ void k() {}", source_name="")


def test_debug_build_runs_in_a_plain_process() -> None:
    # -G: -O0 -g on the CPU backend (no sanitizer runtime needed), -G on a GPU.
    mod = SourceModule(SCALE, options=["-G"], source_name="scale_debug.cu", cache_dir=False)
    f = mod.get_function("scale")
    x = np.random.default_rng(7).standard_normal(1001).astype(np.float32)
    expected = x * np.float32(1.5)
    f(drv.InOut(x), np.int32(x.size), block=(128, 1, 1), grid=(8, 1), shared=128 * 4)
    np.testing.assert_allclose(x, expected, rtol=1e-6)
