"""PyCUDA's _driver enums and the remaining pycuda.driver calls: 2D memsets,
peer copies, set_debugging, profiler control, grid/block given as numpy
integers, and their refusals of bad input."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit.compiler import SourceModule
from hostile_cases import Case, case_id, check_refused

rng = np.random.default_rng()
CUDA_H = Path("/usr/local/cuda/include/cuda.h")

# (enum, member, cuda.h constant): a sample across the enums the issue names.
ENUM_VALUES = [
    ("limit", "DEV_RUNTIME_SYNC_DEPTH", "CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH"),
    ("limit", "DEV_RUNTIME_PENDING_LAUNCH_COUNT", "CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT"),
    ("function_attribute", "PREFERRED_SHARED_MEMORY_CARVEOUT",
     "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT"),
    ("function_attribute", "MAX", "CU_FUNC_ATTRIBUTE_MAX"),
    ("ctx_flags", "SCHED_BLOCKING_SYNC", "CU_CTX_SCHED_BLOCKING_SYNC"),
    ("ctx_flags", "FLAGS_MASK", "CU_CTX_FLAGS_MASK"),
    ("event_flags", "INTERPROCESS", "CU_EVENT_INTERPROCESS"),
    ("mem_attach_flags", "SINGLE", "CU_MEM_ATTACH_SINGLE"),
    ("jit_target", "COMPUTE_90A", "CU_TARGET_COMPUTE_90A"),
    ("jit_fallback", "PREFER_BINARY", "CU_PREFER_BINARY"),
    ("array_format", "FLOAT", "CU_AD_FORMAT_FLOAT"),
    ("address_mode", "BORDER", "CU_TR_ADDRESS_MODE_BORDER"),
    ("filter_mode", "LINEAR", "CU_TR_FILTER_MODE_LINEAR"),
    ("memory_type", "UNIFIED", "CU_MEMORYTYPE_UNIFIED"),
    ("pointer_attribute", "HOST_POINTER", "CU_POINTER_ATTRIBUTE_HOST_POINTER"),
    ("compute_mode", "EXCLUSIVE_PROCESS", "CU_COMPUTEMODE_EXCLUSIVE_PROCESS"),
    ("func_cache", "PREFER_EQUAL", "CU_FUNC_CACHE_PREFER_EQUAL"),
    ("shared_config", "EIGHT_BYTE_BANK_SIZE", "CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE"),
    ("device_attribute", "MEMORY_POOLS_SUPPORTED", "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED"),
    ("ipc_mem_flags", "LAZY_ENABLE_PEER_ACCESS", "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS"),
    ("graphics_register_flags", "TEXTURE_GATHER", "CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER"),
    ("array_cubemap_face", "NEGATIVE_Z", "CU_CUBEMAP_FACE_NEGATIVE_Z"),
    ("array3d_flags", "TEXTURE_GATHER", "CUDA_ARRAY3D_TEXTURE_GATHER"),
    ("host_alloc_flags", "WRITECOMBINED", "CU_MEMHOSTALLOC_WRITECOMBINED"),
    ("mem_host_register_flags", "DEVICEMAP", "CU_MEMHOSTREGISTER_DEVICEMAP"),
    ("jit_option", "FALLBACK_STRATEGY", "CU_JIT_FALLBACK_STRATEGY"),
    ("jit_input_type", "LIBRARY", "CU_JIT_INPUT_LIBRARY"),
]


@pytest.mark.parametrize("enum,member,constant", ENUM_VALUES,
                         ids=[f"{e}.{m}" for e, m, _ in ENUM_VALUES])
def test_enum_value_is_cuda_h(enum: str, member: str, constant: str) -> None:
    if not CUDA_H.exists():
        pytest.skip("cuda.h is not installed")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import pycuda_driver_enums as gen

    known, _ = gen.cuda_h_constants(CUDA_H.read_text())
    assert int(getattr(getattr(drv, enum), member)) == known[constant]


def test_enums_print_as_pycuda_does() -> None:
    assert repr(drv.limit.STACK_SIZE) == "cudakit.driver.limit.STACK_SIZE"
    assert str(drv.limit.MALLOC_HEAP_SIZE) == "MALLOC_HEAP_SIZE"
    assert drv.limit.names["PRINTF_FIFO_SIZE"] is drv.limit.PRINTF_FIFO_SIZE
    assert drv.limit.values[3] is drv.limit.DEV_RUNTIME_SYNC_DEPTH
    assert drv.device_attribute.values[int(drv.device_attribute.WARP_SIZE)].name == "WARP_SIZE"
    assert getattr(drv.array3d_flags, "2DARRAY") == drv.array3d_flags.ARRAY3D_2DARRAY
    assert drv.event_flags.BLOCKING_SYNC | drv.event_flags.DISABLE_TIMING == 3
    assert f"{drv.func_cache.PREFER_L1:d}" == "2"


# CUlimit's values; PyCUDA's enum has no names for the two L2 ones (5, 6).
CU_LIMIT = {"MAX_L2_FETCH_GRANULARITY": 5, "PERSISTING_L2_CACHE_SIZE": 6}
SETTABLE_LIMITS = [("STACK_SIZE", 2048), ("PRINTF_FIFO_SIZE", 2 << 20),
                   ("MALLOC_HEAP_SIZE", 16 << 20), ("DEV_RUNTIME_SYNC_DEPTH", 3),
                   ("DEV_RUNTIME_PENDING_LAUNCH_COUNT", 4096), ("MAX_L2_FETCH_GRANULARITY", 32),
                   ("PERSISTING_L2_CACHE_SIZE", 0)]


@pytest.mark.parametrize("name,value", SETTABLE_LIMITS, ids=[n for n, _ in SETTABLE_LIMITS])
def test_every_settable_limit_round_trips_or_is_refused_clearly(name: str, value: int) -> None:
    which = getattr(drv.limit, name, None)
    which = CU_LIMIT[name] if which is None else which
    try:
        drv.Context.set_limit(which, value)
    except drv.Error as e:  # the driver may refuse one in this context: it says which
        assert drv.backend() != "cpu", e
        assert "limit" in str(e).lower() or "size" in str(e).lower() or "depth" in str(e), e
    else:
        got = drv.Context.get_limit(which)
        if drv.backend() == "cpu":
            assert got == value  # recorded as given
        else:
            assert got >= value or name == "MAX_L2_FETCH_GRANULARITY"  # the driver may round


@pytest.mark.parametrize("value", [7, 9, 42, -1])
def test_unknown_limit_is_refused_with_the_names(value: int) -> None:
    with pytest.raises(drv.ArgumentError, match="(?s)unknown limit .*DEV_RUNTIME_SYNC_DEPTH"):
        drv.Context.set_limit(value, 1)


@pytest.mark.parametrize("bits,dtype", [(8, np.uint8), (16, np.uint16), (32, np.uint32)])
@pytest.mark.parametrize("use_stream", [False, True])
def test_memset_2d_sets_the_rectangle_only(bits: int, dtype: type, use_stream: bool) -> None:
    width, height = 37, 11  # elements, rows
    allocation, pitch = drv.mem_alloc_pitch(width * bits // 8, height, 4)
    rows = pitch // np.dtype(dtype).itemsize
    before = rng.integers(0, 2**bits - 1, rows * height, dtype=np.uint64).astype(dtype)
    drv.memcpy_htod(allocation, before)
    value = int(rng.integers(1, 2**bits - 1))
    if use_stream:
        stream = drv.Stream()
        getattr(drv, f"memset_d2d{bits}_async")(allocation, pitch, value, width, height, stream)
        stream.synchronize()
    else:
        getattr(drv, f"memset_d2d{bits}")(allocation, pitch, value, width, height)
    after = np.empty_like(before)
    drv.memcpy_dtoh(after, allocation)
    expected = before.reshape(height, rows).copy()
    expected[:, :width] = value
    np.testing.assert_array_equal(after.reshape(height, rows), expected)


def test_memcpy_peer_copies() -> None:
    data = rng.standard_normal(1001)
    src, dest = drv.to_device(data), drv.mem_alloc(data.nbytes)
    drv.memcpy_peer(dest, src, data.nbytes)
    np.testing.assert_array_equal(drv.from_device(dest, data.shape, data.dtype), data)
    stream = drv.Stream()
    dest2 = drv.mem_alloc(data.nbytes)
    drv.memcpy_peer_async(dest2, src, data.nbytes, stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(drv.from_device(dest2, data.shape, data.dtype), data)


def test_small_names() -> None:
    assert drv.bitlog2(1000) == 9 and drv.bitlog2(1024) == 10
    assert isinstance(drv.In(np.zeros(3)), drv.ArgumentHandler)
    assert isinstance(drv.mem_alloc(16), drv.PooledDeviceAllocation)
    assert drv.CUDA_DEBUGGING is False
    drv.start_profiler()
    drv.stop_profiler()


def test_initialize_profiler_says_cuda_12_removed_it() -> None:
    with pytest.raises(drv.NotSupported, match=r"(?s)removed in CUDA 12.*start_profiler"):
        drv.initialize_profiler("config.txt", "out.csv", drv.profiler_output_mode.CSV)


def test_grid_and_block_take_numpy_integers() -> None:
    n = 1001
    kernel = SourceModule("__global__ void iota(float *a, int n) { int i = blockIdx.x * "
                          "blockDim.x + threadIdx.x; if (i < n) a[i] = i; }").get_function("iota")
    for grid, block in [((np.int64(4), np.uint8(1)), (np.int32(256), 1, 1)),
                        (np.intp(4), np.uint16(256))]:
        out = np.full(n, -1, np.float32)
        kernel(drv.Out(out), np.int32(n), grid=grid, block=block)
        np.testing.assert_array_equal(out, np.arange(n, dtype=np.float32))


def _prepared() -> object:
    function = SourceModule("__global__ void k() {}").get_function("k")
    function.prepare("")
    return function


REFUSED = [
    Case("memset_d2d8 negative height", lambda: drv.memset_d2d8(drv.mem_alloc(64), 8, 1, 4, -1),
         drv.ArgumentError, r"height \(rows\) must be >= 0, got -1"),
    Case("memset_d2d32 row longer than pitch",
         lambda: drv.memset_d2d32(drv.mem_alloc(256), 8, 1, 4, 2), drv.ArgumentError,
         r"width=4 32-bit elements \(16 bytes\) is longer than pitch=8"),
    Case("memset_d2d16 float width", lambda: drv.memset_d2d16(drv.mem_alloc(64), 8, 1, 2.0, 1),
         TypeError, r"width .* must be an int, got float"),
    Case("memcpy_peer float size", lambda: drv.memcpy_peer(drv.mem_alloc(8), drv.mem_alloc(8),
                                                           8.0), TypeError,
         r"size must be an int, got float"),
    Case("bitlog2 of 0", lambda: drv.bitlog2(0), ValueError, r"positive int, got 0"),
    Case("grid of floats", lambda: SourceModule("__global__ void k() {}").get_function("k")(
        grid=(2.0, 1), block=(32, 1, 1)), TypeError,
         r"(?s)grid entries must be ints, got float 2\.0.*int\(x\)"),
    Case("prepared_call block of a numpy float", lambda: _prepared().prepared_call(
        (1, 1), (np.float64(32), 1, 1)), TypeError,
         r"(?s)block entries must be ints, got numpy.float64.*int\(x\)"),
    Case("enum value not a member", lambda: drv.limit(99), ValueError, r"99 is not a valid limit"),
    Case("enum name not a member", lambda: drv.limit["STACK"], KeyError, r"STACK"),
    Case("flag class instantiated", lambda: drv.array3d_flags(), TypeError,
         r"array3d_flags holds constants"),
]


@pytest.mark.parametrize("case", REFUSED, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)


def test_set_debugging_turns_debug_mode_on_and_off() -> None:
    drv.set_debugging()
    try:
        assert drv.CUDA_DEBUGGING is True
        data = rng.standard_normal(300).astype(np.float32)
        kernel = SourceModule("__global__ void twice(float *a, int n) { int i = blockIdx.x * "
                              "blockDim.x + threadIdx.x; if (i < n) a[i] *= 2; }"
                              ).get_function("twice")
        out = data.copy()
        kernel(drv.InOut(out), np.int32(300), grid=(2, 1), block=(256, 1, 1))
        np.testing.assert_array_equal(out, data * 2)
    finally:
        drv.set_debugging(False)
    assert drv.CUDA_DEBUGGING is False
