"""CUDA IPC: device memory shared with another process.

PyCUDA's names (driver.mem_get_ipc_handle, driver.IPCMemoryHandle) and
Numba's (DeviceNDArray.get_ipc_handle, cuda.open_ipc_array). The processes
that open a handle are real ones (a subprocess, a 'spawn' pool): CUDA maps a
handle only in a process other than the one that exported it. Bad input is
refused the same way on both backends; the CPU backend refuses IPC itself
with what to do instead; the rest needs a GPU and is marked `gpu`.
"""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import os
import pickle
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit import cuda
from conftest import HAS_GPU
from hostile_cases import Case, case_id, check_refused

N = 1000  # float32 elements: not a multiple of the block size
BLOCK = 128
CHILD_TIMEOUT_S = 300

TWICE = r"""
__global__ void twice(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
"""

cpu_only = pytest.mark.skipif(HAS_GPU, reason="the CPU backend's refusal")


# ---- bad input: the same error on both backends --------------------------------------------

def _unopened_numba_handle() -> Any:
    from cudakit.cuda.ipc import IpcHandle
    return IpcHandle(None, bytes(range(64)), 4096, offset=256)


BAD_INPUT = [
    Case("a handle of 63 bytes", lambda: drv.IPCMemoryHandle(bytearray(63)),
         drv.ArgumentError, "63 bytes, not 64"),
    Case("a handle of 65 bytes", lambda: drv.IPCMemoryHandle(bytes(65)),
         drv.ArgumentError, "65 bytes, not 64"),
    Case("a str handle", lambda: drv.IPCMemoryHandle("x" * 64),
         drv.ArgumentError, "bytes-like"),
    Case("an int handle", lambda: drv.IPCMemoryHandle(12345),
         drv.ArgumentError, "bytes-like"),
    Case("flags that are not a number", lambda: drv.IPCMemoryHandle(bytearray(64), flags="lazy"),
         drv.ArgumentError, "ipc_mem_flags"),
    Case("exporting a str", lambda: drv.mem_get_ipc_handle("memory"),
         drv.ArgumentError, "expected device memory"),
    Case("open_ipc_array with 10 bytes",
         lambda: cuda.open_ipc_array(b"0123456789", shape=4, dtype=np.float32).__enter__(),
         drv.ArgumentError, "10 bytes, not 64"),
    Case("closing a Numba IpcHandle never opened", lambda: _unopened_numba_handle().close(),
         ValueError, "IpcHandle not opened"),
]


@pytest.mark.parametrize("case", BAD_INPUT, ids=case_id)
def test_bad_input_is_refused(case: Case) -> None:
    check_refused(case)


def test_numba_ipc_handle_pickles_as_its_bytes_size_and_offset() -> None:
    handle = _unopened_numba_handle()
    back = pickle.loads(pickle.dumps(handle))
    assert back.base is None
    assert back.handle.reserved == handle.handle.reserved == bytes(range(64))
    assert (back.size, back.offset) == (4096, 256)


# ---- the Python classes over a stand-in mapping (any backend) ---------------------------------

class _StandInMapping:
    """Takes the place of the driver's mapping: `address` is memory of this process."""

    address = 0

    def __init__(self, handle: Any, flags: int) -> None:
        assert len(bytes(handle)) == 64 and flags == 1
        self.is_open = True

    def close(self) -> None:
        self.is_open = False


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> type[_StandInMapping]:
    from cudakit import _core
    monkeypatch.setattr(_core, "_IpcMemoryHandle", _StandInMapping)
    return _StandInMapping


def test_an_ipc_memory_handle_is_a_pointer_everywhere(stand_in: Any) -> None:
    import cudakit.gpuarray as gpuarray
    from cudakit.compiler import SourceModule
    host = np.random.default_rng(22).standard_normal(N).astype(np.float32)
    memory = drv.to_device(host)
    stand_in.address = int(memory)
    h = drv.IPCMemoryHandle(bytearray(64))
    assert int(h) == h.get_pointer() == int(memory)
    twice = SourceModule(TWICE).get_function("twice")
    twice(h, np.int32(N), block=(BLOCK, 1, 1), grid=((N + BLOCK - 1) // BLOCK, 1))
    back = np.empty_like(host)
    drv.memcpy_dtoh(back, h)
    np.testing.assert_array_equal(back, host * 2)
    np.testing.assert_array_equal(gpuarray.GPUArray((N,), np.float32, gpudata=h).get(), host * 2)
    with pytest.raises(TypeError, match="mem_get_ipc_handle"):
        pickle.dumps(h)


def test_a_numba_array_handle_views_its_offset_and_outlives_close(stand_in: Any) -> None:
    from cudakit.cuda.ipc import IpcArrayHandle, IpcHandle
    host = np.random.default_rng(23).standard_normal(N).astype(np.float32)
    source = cuda.to_device(host)
    stand_in.address = source.device_ctypes_pointer.value
    ipc = IpcHandle(None, bytes(64), host.nbytes - 12, offset=12)
    array_handle = pickle.loads(pickle.dumps(IpcArrayHandle(
        ipc, {"shape": (N - 3,), "strides": (4,), "dtype": np.dtype(np.float32)})))
    with array_handle as array:
        np.testing.assert_array_equal(array.copy_to_host(), host[3:])
        with pytest.raises(ValueError, match="IpcHandle is already opened"):
            array_handle.open()
    np.testing.assert_array_equal(array.copy_to_host(), host[3:])  # the array keeps the mapping
    with pytest.raises(ValueError, match="IpcHandle not opened"):
        array_handle.close()
    with pytest.raises(drv.ArgumentError, match="needs 4000 bytes"):
        ipc.open_array(None, N, np.float32)


# ---- the CPU backend ---------------------------------------------------------------------------

@cpu_only
def test_cpu_backend_refuses_exporting_and_says_what_to_do() -> None:
    memory = drv.mem_alloc(4 * N)
    with pytest.raises(drv.NotSupported, match="CUDA IPC") as refused:
        drv.mem_get_ipc_handle(memory)
    assert "pickle the array" in str(refused.value)
    assert "multiprocessing.shared_memory" in str(refused.value)


@cpu_only
def test_cpu_backend_refuses_opening() -> None:
    with pytest.raises(drv.NotSupported, match="CUDA backend"):
        drv.IPCMemoryHandle(bytearray(64))


@cpu_only
def test_cpu_backend_refuses_a_numba_array_handle() -> None:
    array = cuda.to_device(np.arange(10, dtype=np.float32))
    with pytest.raises(drv.NotSupported, match="CUDA IPC"):
        array.get_ipc_handle()


# ---- two processes on one GPU: PyCUDA's API ----------------------------------------------------

# Run in a fresh interpreter: opens the handle from argv, doubles the memory
# in place, reads it back through GPUArray(gpudata=h), then checks the
# errors of a closed handle; prints one JSON report.
CHILD = r"""
import json, sys
import numpy as np
import cudakit.autoinit
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit.compiler import SourceModule

handle = bytearray.fromhex(sys.argv[1])
n, block = int(sys.argv[2]), int(sys.argv[3])
report = {}
h = drv.IPCMemoryHandle(handle)
report["repr"] = repr(h)
twice = SourceModule(sys.argv[4]).get_function("twice")
twice(h, np.int32(n), block=(block, 1, 1), grid=((n + block - 1) // block, 1))
drv.Context.synchronize()
report["view"] = gpuarray.GPUArray((n,), np.float32, gpudata=h).get().tolist()
try:
    pickle_error = None
    import pickle
    pickle.dumps(h)
except Exception as e:
    pickle_error = f"{type(e).__name__}: {e}"
report["pickle"] = pickle_error
h.close()
report["closed_repr"] = repr(h)
def error_of(call):
    try:
        call()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return None
report["close_twice"] = error_of(h.close)
report["int_after_close"] = error_of(lambda: int(h))
report["launch_after_close"] = error_of(
    lambda: twice(h, np.int32(n), block=(block, 1, 1), grid=(1, 1)))
report["memcpy_after_close"] = error_of(
    lambda: drv.memcpy_dtoh(np.empty(n, np.float32), h))
print(json.dumps(report))
"""


def _run_child(script: str, *args: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                          text=True, timeout=CHILD_TIMEOUT_S, env=env, check=False)
    assert done.returncode == 0, f"the child process failed:\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def doubled_by_child() -> tuple[np.ndarray, Any, dict[str, Any]]:
    """(the parent's values, its allocation after the child ran, the child's report)."""
    host = np.random.default_rng(19).standard_normal(N).astype(np.float32)
    memory = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod(memory, host)
    handle = drv.mem_get_ipc_handle(memory)
    report = _run_child(CHILD, bytes(handle).hex(), str(N), str(BLOCK), TWICE)
    return host, memory, report


@pytest.mark.gpu
def test_mem_get_ipc_handle_is_a_64_byte_bytearray() -> None:
    memory = drv.mem_alloc(4 * N)
    handle = drv.mem_get_ipc_handle(memory)
    assert isinstance(handle, bytearray) and len(handle) == 64
    by_address = drv.mem_get_ipc_handle(int(memory))
    assert isinstance(by_address, bytearray) and len(by_address) == 64


@pytest.mark.gpu
def test_another_process_doubles_the_memory_in_place(doubled_by_child: Any) -> None:
    host, memory, report = doubled_by_child
    back = np.empty_like(host)
    drv.memcpy_dtoh(back, memory)
    np.testing.assert_array_equal(back, host * 2)  # doubling is exact in float32
    np.testing.assert_array_equal(np.asarray(report["view"], np.float32), host * 2)
    assert report["repr"].startswith("<IPCMemoryHandle at 0x")


@pytest.mark.gpu
def test_an_opened_handle_does_not_pickle(doubled_by_child: Any) -> None:
    assert "NotPicklableError" in report_of(doubled_by_child)["pickle"]
    assert "mem_get_ipc_handle" in report_of(doubled_by_child)["pickle"]


@pytest.mark.gpu
def test_a_closed_handle_says_so_when_closed_again_or_used(doubled_by_child: Any) -> None:
    report = report_of(doubled_by_child)
    assert report["closed_repr"] == "<IPCMemoryHandle (closed)>"
    assert "already closed" in report["close_twice"]
    for use in ("int_after_close", "launch_after_close", "memcpy_after_close"):
        assert report[use] is not None and "the handle is closed" in report[use], use


def report_of(doubled: Any) -> dict[str, Any]:
    return doubled[2]


@pytest.mark.gpu
def test_opening_in_the_exporting_process_is_refused() -> None:
    memory = drv.mem_alloc(4 * N)
    with pytest.raises(drv.ArgumentError, match="another process"):
        drv.IPCMemoryHandle(drv.mem_get_ipc_handle(memory))


@pytest.mark.gpu
def test_exporting_an_address_inside_an_allocation_is_refused() -> None:
    memory = drv.mem_alloc(4 * N)
    with pytest.raises(drv.ArgumentError, match="256 bytes into an allocation"):
        drv.mem_get_ipc_handle(int(memory) + 256)


@pytest.mark.gpu
def test_unknown_flags_are_refused() -> None:
    memory = drv.mem_alloc(4 * N)
    with pytest.raises(drv.ArgumentError, match="unknown flags 6"):
        drv.IPCMemoryHandle(drv.mem_get_ipc_handle(memory), flags=6)


# ---- two processes on one GPU: Numba's API -----------------------------------------------------

@cuda.jit
def _double(x: Any) -> None:
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2


def _double_in_child(ipc_array: Any, parent_pid: int) -> np.ndarray:
    """Runs in a spawned process: opens the array, doubles it, returns it."""
    assert os.getpid() != parent_pid
    with ipc_array as array:
        _double[(array.size + BLOCK - 1) // BLOCK, BLOCK](array)
        cuda.synchronize()
        with pytest.raises(ValueError, match="IpcHandle is already opened"):
            ipc_array.open()
        return array.copy_to_host()


def _read_in_child(handle: bytes, count: int, parent_pid: int) -> np.ndarray:
    assert os.getpid() != parent_pid
    with cuda.open_ipc_array(handle, shape=count, dtype=np.float32) as array:
        return array.copy_to_host()


@pytest.fixture(scope="module")
def spawn_pool() -> Any:
    with concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield pool


@pytest.mark.gpu
@pytest.mark.parametrize("view", [slice(None), slice(3, 900)], ids=["whole", "slice"])
def test_numba_array_handle_doubles_in_another_process(spawn_pool: Any, view: slice) -> None:
    host = np.random.default_rng(20).standard_normal(N).astype(np.float32)
    array = cuda.to_device(host)[view]
    expect = host[view] * 2
    handle = array.get_ipc_handle()
    out = spawn_pool.submit(_double_in_child, handle, os.getpid()).result(
        timeout=CHILD_TIMEOUT_S)
    np.testing.assert_array_equal(out, expect)
    np.testing.assert_array_equal(array.copy_to_host(), expect)


@pytest.mark.gpu
def test_open_ipc_array_reads_the_raw_handle(spawn_pool: Any) -> None:
    host = np.random.default_rng(21).standard_normal(N).astype(np.float32)
    array = cuda.to_device(host)
    ipc = cuda.current_context().get_ipc_handle(array.gpu_data)
    assert (ipc.size, ipc.offset) == (host.nbytes, 0)
    assert pickle.loads(pickle.dumps(ipc)).handle.reserved == ipc.handle.reserved
    out = spawn_pool.submit(_read_in_child, ipc.handle.reserved, ipc.size // 4,
                            os.getpid()).result(timeout=CHILD_TIMEOUT_S)
    np.testing.assert_array_equal(out, host)
