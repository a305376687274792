"""Hostile use of the backend, as a Python user meets it: kernels writing past
small allocations, raw integer addresses, async copies into pageable memory,
processes forked after cudakit started, Ctrl-C during an endless kernel, the
device's memory size, Out arrays after a fault. Each is a clear error or the
CUDA behaviour, never a dead, hung or silently corrupted process.

Two tables: REFUSED (the call raises `error` matching `message`) and
BEHAVES (the check asserts what happens). A case that holds only on the CPU
backend says why in `cpu_only`; the others run on a GPU as well."""

from __future__ import annotations

import math
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit import cuda
from cudakit.compiler import SourceModule
from cudakit.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32
from conftest import HAS_GPU

SOURCE = """
__global__ void write_past(int *p, int n, int extra)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n + extra) p[i] = 3 * i + 1;
}
__global__ void slow_fill(int *p, int n, int seed, int spin)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        for (volatile int k = 0; k < spin; k = k + 1) {}
    if (i < n) p[i] = 7 * i + seed;
}
__global__ void fill_then_trap(float *out, int n, int bad)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 7.0f;
    if (i == bad) __trap();
}
"""

# Below the lowest address Linux maps (vm.mmap_min_addr): never memory.
NO_MEMORY = 0x1000

GPU_ALLOCATIONS_ARE_LARGER = ("a GPU hands out whole pages (2 MiB): a small overrun goes "
                              "unnoticed there; the CPU backend guards every allocation")
GPU_REPORTS_INVALID_VALUE = ("a GPU reports CUDA_ERROR_INVALID_VALUE for an address it does not "
                             "know, without the allocation's size")
GPU_FAULT_ENDS_CONTEXT = "a kernel fault ends the context on a GPU: later tests could not run"
CUDA_WAITS_IN_DRIVER = "the CUDA backend waits inside the driver, which Ctrl-C does not reach"
CPU_DEVICE_SIZE = "CUDAKIT_CPU_MEMORY sizes the CPU backend's device"


def module() -> SourceModule:
    if not hasattr(module, "cached"):
        module.cached = SourceModule(SOURCE)  # type: ignore[attr-defined]
    return module.cached  # type: ignore[attr-defined]


def random_ints(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-100000, 100000, n).astype(np.int32)


# ---- what the cases run -------------------------------------------------------------

def overrun_small_allocation() -> None:
    victim = drv.mem_alloc(400)  # 100 ints; the kernel writes 1100
    module().get_function("write_past")(victim, np.int32(100), np.int32(1000), block=(128, 1, 1),
                                        grid=(9, 1))
    drv.Context.synchronize()


def overrun_into_rounding() -> None:
    victim = drv.mem_alloc(400)  # rounded to 512 bytes: indices 100..104 land in the rounding
    module().get_function("write_past")(victim, np.int32(100), np.int32(5), block=(128, 1, 1),
                                        grid=(1, 1))
    drv.Context.synchronize()


@cuda.jit
def draw_past_the_states(states, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = xoroshiro128p_uniform_float32(states, i)


def random_states_past_their_end() -> None:
    states = create_xoroshiro128p_states(16, seed=1)
    out = cuda.device_array(512, dtype=np.float32)
    draw_past_the_states[4, 128](states, out)
    cuda.synchronize()


def copy_to_no_memory() -> None:
    drv.memcpy_htod(NO_MEMORY, random_ints(64, 1))


def copy_from_no_memory() -> None:
    drv.memcpy_dtoh(np.empty(64, np.int32), NO_MEMORY)


def copy_past_allocation_end() -> None:
    small = drv.mem_alloc(400)
    drv.memcpy_dtoh(np.empty(200, np.int32), int(small))


def memset_past_allocation_end() -> None:
    small = drv.mem_alloc(400)
    drv.memset_d32(int(small) + 200, 5, 100)


def gpudata_at_no_memory() -> None:
    gpuarray.GPUArray((64,), np.float32, gpudata=NO_MEMORY).get()


def gpudata_larger_than_allocation() -> None:
    small = drv.mem_alloc(400)
    gpuarray.GPUArray((1000,), np.float32, gpudata=int(small)).get()


def allocate_more_than_the_device_has() -> None:
    _free, total = drv.mem_get_info()
    drv.mem_alloc(total + (1 << 30))


@dataclass(frozen=True)
class Refused:
    name: str
    run: Callable[[], object]
    error: type[BaseException]
    message: str
    cpu_only: str = ""  # why the case holds only on the CPU backend


REFUSED = [
    Refused("kernel writes 4 KiB past a 400-byte allocation", overrun_small_allocation,
            drv.KernelFault, r"past the end of the 400-byte device allocation",
            GPU_ALLOCATIONS_ARE_LARGER),
    Refused("kernel writes 20 bytes past a 400-byte allocation", overrun_into_rounding,
            drv.KernelFault, r"wrote past the end of the 400-byte device allocation",
            GPU_ALLOCATIONS_ARE_LARGER),
    Refused("xoroshiro states for 16 threads drawn by 512", random_states_past_their_end,
            drv.KernelFault, r"past the end of the \d+-byte device allocation",
            GPU_ALLOCATIONS_ARE_LARGER),
    Refused("memcpy_htod to an integer address that is no memory", copy_to_no_memory,
            drv.ArgumentError, r"256 bytes at 0x1000.*not memory this process can write",
            GPU_REPORTS_INVALID_VALUE),
    Refused("memcpy_dtoh from an integer address that is no memory", copy_from_no_memory,
            drv.ArgumentError, r"256 bytes at 0x1000.*not memory this process can read",
            GPU_REPORTS_INVALID_VALUE),
    Refused("memcpy_dtoh of 800 bytes from a 400-byte allocation's address",
            copy_past_allocation_end, drv.ArgumentError,
            r"800 bytes at 0x[0-9a-f]+ run 400 bytes past the end of the 400-byte device "
            r"allocation", GPU_REPORTS_INVALID_VALUE),
    Refused("memset_d32 past a 400-byte allocation's end", memset_past_allocation_end,
            drv.ArgumentError, r"run 200 bytes past the end of the 400-byte device allocation",
            GPU_REPORTS_INVALID_VALUE),
    # The array layer raises numpy's error classes (ArgumentError is a ValueError too).
    Refused("GPUArray(gpudata=an address that is no memory).get()", gpudata_at_no_memory,
            ValueError, r"256 bytes at 0x1000.*not memory this process can read",
            GPU_REPORTS_INVALID_VALUE),
    Refused("GPUArray(gpudata=) larger than its allocation .get()",
            gpudata_larger_than_allocation, ValueError,
            r"4000 bytes .* run 3600 bytes past the end of the 400-byte device allocation",
            GPU_REPORTS_INVALID_VALUE),
    Refused("mem_alloc beyond the device's memory", allocate_more_than_the_device_has,
            drv.MemoryError, r"out of memory: requested"),
]


def skip_on_gpu(reason: str) -> None:
    if reason and HAS_GPU:
        pytest.skip(f"CPU backend only: {reason}")


def later_allocations_are_intact() -> None:
    host = random_ints(1001, 11)
    buffer = drv.to_device(host)
    back = drv.from_device_like(buffer, host)
    np.testing.assert_array_equal(back, host)


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: c.name)
def test_refused(case: Refused) -> None:
    skip_on_gpu(case.cpu_only)
    with pytest.raises(case.error, match=case.message):
        case.run()
    # The process goes on: the next allocation and copy work.
    drv.Context.synchronize()
    later_allocations_are_intact()


# ---- behaviours --------------------------------------------------------------------

def dtoh_async_to_pageable_completes() -> None:
    n = 1001
    device = drv.mem_alloc(4 * n)
    stream = drv.Stream()
    seed = int(np.random.default_rng().integers(1, 1000))
    module().get_function("slow_fill")(device, np.int32(n), np.int32(seed), np.int32(20_000_000),
                                       block=(128, 1, 1), grid=(math.ceil(n / 128), 1),
                                       stream=stream)
    pageable = np.full(n, -1, np.int32)
    drv.memcpy_dtoh_async(pageable, device, stream)
    # No synchronize: a copy to pageable memory has completed when it returns.
    np.testing.assert_array_equal(pageable, 7 * np.arange(n, dtype=np.int32) + seed)
    stream.synchronize()


def out_untouched_after_fault() -> None:
    n = 1001
    host = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    before = host.copy()
    trap = module().get_function("fill_then_trap")
    with pytest.raises(drv.KernelFault, match="__trap"):
        trap(drv.Out(host), np.int32(n), np.int32(517), block=(128, 1, 1), grid=(8, 1))
    np.testing.assert_array_equal(host, before)
    trap(drv.Out(host), np.int32(n), np.int32(-1), block=(128, 1, 1), grid=(8, 1))
    np.testing.assert_array_equal(host, np.full(n, 7.0, np.float32))


def free_memory_follows_allocations() -> None:
    free_before, total = drv.mem_get_info()
    assert 0 < free_before <= total
    block = drv.mem_alloc(64 << 20)
    free_during, _ = drv.mem_get_info()
    assert free_during <= free_before - (64 << 20)
    block.free()
    assert drv.mem_get_info()[0] > free_during


def run_script(code: str, timeout: float, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **env}
    package_root = str(Path(drv.__file__).parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [package_root, environment.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=environment)


FORKED_CHILD = """
    import os, sys, time
    import numpy as np
    import cudakit.autoinit
    import cudakit.driver as drv
    import cudakit.gpuarray as gpuarray

    kept = gpuarray.to_gpu(np.arange(10, dtype=np.float32))
    drv.Context.synchronize()
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            drv.Context.synchronize()
            code = 1
        except drv.Error as e:
            ok = "a forked child cannot use it" in str(e) and "'spawn'" in str(e)
            code = 0 if ok else 2
            print(e, file=sys.stderr)
        try:
            gpuarray.to_gpu(np.ones(4, np.float32))
            code = code or 4
        except drv.Error:
            pass
        sys.exit(code)  # a normal exit: the child's finalization must not hang
    deadline = time.monotonic() + 30
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            print("child hung")
            sys.exit(1)
        time.sleep(0.02)
    print("child exit", os.waitstatus_to_exitcode(status))
    np.testing.assert_array_equal(kept.get(), np.arange(10, dtype=np.float32))
"""


def forked_child_gets_clear_error() -> None:
    result = run_script(FORKED_CHILD, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "child exit 0" in result.stdout, result.stdout + result.stderr


ENDLESS_KERNEL = """
    import time
    import cudakit.autoinit
    import cudakit.driver as drv
    from cudakit.compiler import SourceModule

    spin = SourceModule("__global__ void spin(int *p) { while (1) {} }").get_function("spin")
    scratch = drv.mem_alloc(256)
    spin(scratch, block=(32, 1, 1), grid=(8, 1))
    print("launched", flush=True)
    try:
        {wait}
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        raise
"""


def ctrl_c_ends_process(wait: str) -> None:
    """SIGINT to a process whose kernel never ends, while it runs `wait`."""
    environment = {**os.environ}
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(Path(drv.__file__).parent.parent), environment.get("PYTHONPATH")]))
    script = textwrap.dedent(ENDLESS_KERNEL).replace("{wait}", wait)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=environment)
    try:
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], 120)
        assert ready, "the child never launched its kernel"
        assert child.stdout.readline().strip() == "launched"
        time.sleep(0.5)  # the child is in `wait` now
        start = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
            pytest.fail("Ctrl-C did not end a process whose kernel never ends")
    assert time.monotonic() - start < 10
    assert "interrupted" in out, out + err
    assert "KeyboardInterrupt" in err, err


CPU_MEMORY_LIMIT = """
    import cudakit.autoinit
    import cudakit.driver as drv

    free, total = drv.mem_get_info()
    assert total == 64 << 20, total
    kept = drv.mem_alloc(16 << 20)
    assert drv.mem_get_info()[0] <= free - (16 << 20)
    try:
        drv.mem_alloc(60 << 20)
    except drv.MemoryError as e:
        assert e.requested == 60 << 20 and e.free_bytes <= free - (16 << 20), str(e)
        print("refused:", e)
"""


def cpu_memory_variable_sizes_the_device() -> None:
    result = run_script(CPU_MEMORY_LIMIT, timeout=120, CUDAKIT_BACKEND="cpu",
                        CUDAKIT_CPU_MEMORY="64M")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "refused:" in result.stdout and "CUDAKIT_CPU_MEMORY" in result.stdout, result.stdout


@dataclass(frozen=True)
class Behaves:
    name: str
    check: Callable[[], None]
    cpu_only: str = ""


BEHAVES = [
    Behaves("memcpy_dtoh_async into pageable memory has completed on return",
            dtoh_async_to_pageable_completes),
    Behaves("drv.Out array untouched after a KernelFault", out_untouched_after_fault,
            GPU_FAULT_ENDS_CONTEXT),
    Behaves("mem_get_info's free memory follows allocations", free_memory_follows_allocations),
    Behaves("a child forked after cudakit started gets a clear error and exits",
            forked_child_gets_clear_error),
    Behaves("Ctrl-C while synchronize() waits for an endless kernel ends the process",
            lambda: ctrl_c_ends_process("drv.Context.synchronize()"), CUDA_WAITS_IN_DRIVER),
    Behaves("Ctrl-C while Python sleeps beside an endless kernel ends the process",
            lambda: ctrl_c_ends_process("time.sleep(60)"), CUDA_WAITS_IN_DRIVER),
    Behaves("CUDAKIT_CPU_MEMORY=64M sizes the device", cpu_memory_variable_sizes_the_device,
            CPU_DEVICE_SIZE),
]


@pytest.mark.parametrize("case", BEHAVES, ids=lambda c: c.name)
def test_behaves(case: Behaves) -> None:
    skip_on_gpu(case.cpu_only)
    case.check()
    later_allocations_are_intact()
