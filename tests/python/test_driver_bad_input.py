"""Every bad input of issue 'What it must show' (driver and compiler half):
a clear error that says what was wrong and what to do, nothing written."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit.compiler import SourceModule

SOURCE = """
__global__ void scale(float *x, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}
__global__ void count(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}
"""


@pytest.fixture(scope="module")
def mod() -> SourceModule:
    return SourceModule(SOURCE)


@pytest.fixture()
def data() -> tuple[np.ndarray, drv.DeviceAllocation]:
    host = np.random.default_rng(7).standard_normal(300).astype(np.float32)
    dev = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod(dev, host)
    return host, dev


def device_copy(dev: drv.DeviceAllocation, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    drv.memcpy_dtoh(out, dev)
    return out


def test_missing_argument(mod, data) -> None:
    host, dev = data
    with pytest.raises(drv.ArgumentError, match="expected 3 arguments, got 2") as info:
        mod.get_function("scale")(dev, np.float32(2), block=(128, 1, 1), grid=(3, 1))
    assert "scale(float * x, float s, int n)" in str(info.value)
    assert info.value.hint
    np.testing.assert_array_equal(device_copy(dev, host), host)


def test_float_array_for_int_pointer(mod) -> None:
    values = np.random.default_rng(1).standard_normal(10).astype(np.float32)
    before = values.copy()
    with pytest.raises(drv.ArgumentError, match="int32") as info:
        mod.get_function("count")(drv.InOut(values), np.int32(10), block=(16, 1, 1))
    assert "float32" in str(info.value) and "astype" in info.value.hint
    np.testing.assert_array_equal(values, before)


def test_float_device_array_for_int_pointer_through_cuda_array_interface(mod, data) -> None:
    host, dev = data

    class Tensor:  # what torch / CuPy expose
        __cuda_array_interface__ = {"shape": (300,), "typestr": "<f4", "data": (int(dev), False),
                                    "version": 3, "strides": None}

    with pytest.raises(drv.ArgumentError, match="float32"):
        mod.get_function("count")(Tensor(), 300, block=(128, 1, 1), grid=(3, 1))
    np.testing.assert_array_equal(device_copy(dev, host), host)


@pytest.mark.parametrize("strides", [None, (4,)], ids=["no-strides", "c-strides"])
def test_copy_into_a_cuda_array_interface_is_bounded_by_its_size(data, strides) -> None:
    # Explicit C-contiguous strides (GPUArrays and PyCUDA give them) mark the
    # memory as exactly its elements, as no strides do.
    host, dev = data

    class Tensor:
        __cuda_array_interface__ = {"shape": (300,), "typestr": "<f4", "data": (int(dev), False),
                                    "version": 3, "strides": strides}

    with pytest.raises(drv.ArgumentError, match="do not fit"):
        drv.memcpy_htod(Tensor(), np.zeros(301, np.float32))
    np.testing.assert_array_equal(device_copy(dev, host), host)


def test_float_gpuarray_for_int_pointer(mod) -> None:
    import cudakit.gpuarray as gpuarray

    host = np.random.default_rng(2).standard_normal(300).astype(np.float32)
    array = gpuarray.to_gpu(host)
    with pytest.raises(drv.ArgumentError, match="float32") as info:
        mod.get_function("count")(array, np.int32(300), block=(128, 1, 1), grid=(3, 1))
    assert "GPUArray" in str(info.value) and "int32" in str(info.value)
    assert "astype" in info.value.hint
    np.testing.assert_array_equal(array.get(), host)
    # The same array is accepted where the kernel reads float.
    mod.get_function("scale")(array, np.float32(2), np.int32(300), block=(128, 1, 1), grid=(3, 1))
    np.testing.assert_allclose(array.get(), host * 2, rtol=1e-6)


def test_gpuarray_shape_mismatch_is_value_error() -> None:
    import cudakit.gpuarray as gpuarray

    rng = np.random.default_rng(3)
    host = rng.standard_normal((3, 4)).astype(np.float32)
    a = gpuarray.to_gpu(host)
    b = gpuarray.to_gpu(rng.standard_normal(5).astype(np.float32))
    with pytest.raises(ValueError):
        a + b
    with pytest.raises(ValueError):
        a += b
    with pytest.raises(ValueError):
        a.set(np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(a.get(), host)


def test_python_int_too_large_for_int(mod, data) -> None:
    host, dev = data
    with pytest.raises(drv.ArgumentError, match=r"1099511627776,? (which )?does not fit") as info:
        mod.get_function("scale")(dev, 2.0, 2**40, block=(128, 1, 1), grid=(3, 1))
    assert "parameter 2 'n'" in str(info.value) and info.value.hint
    np.testing.assert_array_equal(device_copy(dev, host), host)


def test_negative_int_for_unsigned_and_float_for_int() -> None:
    mod = SourceModule("__global__ void k(unsigned int *o, unsigned int n) { o[0] = n; }")
    out = drv.mem_alloc(4)
    with pytest.raises(drv.ArgumentError, match="does not fit"):
        mod.get_function("k")(out, -1, block=(1, 1, 1))
    with pytest.raises(drv.ArgumentError, match="1.5"):
        mod.get_function("k")(out, 1.5, block=(1, 1, 1))


def test_block_of_2048_threads(mod, data) -> None:
    host, dev = data
    with pytest.raises(drv.LaunchConfigError, match="2048") as info:
        mod.get_function("scale")(dev, np.float32(2), np.int32(300), block=(2048, 1, 1))
    assert isinstance(info.value, drv.LogicError)
    assert info.value.requested == 2048 and 0 < info.value.device_value < 2048
    np.testing.assert_array_equal(device_copy(dev, host), host)


def test_memcpy_htod_4mb_into_16_bytes() -> None:
    target = drv.mem_alloc(16)
    drv.memset_d32(target, 0x7F7F7F7F, 4)
    with pytest.raises(drv.ArgumentError, match="4194304 bytes do not fit the destination \\(16 bytes\\)"):
        drv.memcpy_htod(target, np.ones(1 << 20, dtype=np.float32))
    back = np.empty(4, dtype=np.uint32)
    drv.memcpy_dtoh(back, target)
    assert (back == 0x7F7F7F7F).all()


def test_memcpy_dtoh_more_than_the_allocation() -> None:
    source = drv.mem_alloc(16)
    host = np.zeros(100, dtype=np.float32)
    with pytest.raises(drv.ArgumentError, match="do not fit the source"):
        drv.memcpy_dtoh(host, source)
    assert not host.any()


def test_freed_allocation_used_again(mod) -> None:
    dev = drv.mem_alloc(64)
    dev.free()
    assert dev.freed
    with pytest.raises(drv.ArgumentError, match="was freed"):
        mod.get_function("scale")(dev, 1.0, 16, block=(16, 1, 1))
    with pytest.raises(drv.ArgumentError, match="was freed"):
        drv.memcpy_htod(dev, np.zeros(16, np.float32))
    with pytest.raises(drv.ArgumentError, match="was freed"):
        int(dev)
    dev.free()  # twice is harmless


def test_non_contiguous_array_to_memcpy_htod_and_in() -> None:
    strided = np.arange(64, dtype=np.float32).reshape(8, 8)[:, 1]
    with pytest.raises(drv.ArgumentError, match="not contiguous") as info:
        drv.memcpy_htod(drv.mem_alloc(64), strided)
    assert "ascontiguousarray" in info.value.hint
    with pytest.raises(drv.ArgumentError, match="not contiguous"):
        drv.In(strided)
    with pytest.raises(drv.ArgumentError, match="read-only"):
        readonly = np.zeros(4, np.float32)
        readonly.flags.writeable = False
        drv.Out(readonly)


def test_unknown_nvcc_option() -> None:
    with pytest.raises(drv.ArgumentError, match="'-Xcompiler' cannot be passed to NVRTC"):
        SourceModule("__global__ void k() {}", options=["-Xcompiler", "-fPIC"])
    with pytest.raises(drv.ArgumentError, match="'--keep-dir'"):
        SourceModule("__global__ void k() {}", options=["--keep-dir"])


def test_mem_alloc_of_10_terabytes() -> None:
    with pytest.raises(drv.MemoryError) as info:
        drv.mem_alloc(10 * 2**40)
    error = info.value
    assert isinstance(error, builtins.MemoryError) and isinstance(error, drv.Error)
    assert error.requested == 10 * 2**40
    assert 0 < error.free_bytes <= error.total_bytes
    assert "10.00 TiB" in str(error)


def test_host_array_passed_without_in_out(mod) -> None:
    with pytest.raises(drv.ArgumentError, match="host memory") as info:
        mod.get_function("scale")(np.zeros(4, np.float32), 1.0, 4, block=(4, 1, 1))
    assert "drv.In" in info.value.hint or "cuda.In" in info.value.hint


def test_python_int_for_a_pointer(mod) -> None:
    with pytest.raises(drv.ArgumentError, match="pointer parameter"):
        mod.get_function("scale")(12345, 1.0, 4, block=(4, 1, 1))


def test_unknown_keyword_and_missing_block(mod, data) -> None:
    _, dev = data
    with pytest.raises(drv.ArgumentError, match="unknown keyword\\(s\\): blocks"):
        mod.get_function("scale")(dev, 1.0, 4, blocks=(4, 1, 1))
    with pytest.raises(drv.ArgumentError, match="no block= was given"):
        mod.get_function("scale")(dev, 1.0, 4)
    with pytest.raises(drv.ArgumentError, match="tuple of 1 to 3 ints"):
        mod.get_function("scale")(dev, 1.0, 4, block=(4, 1, 1, 1))
    with pytest.raises(drv.ArgumentError, match="positive"):
        mod.get_function("scale")(dev, 1.0, 4, block=(0, 1, 1))


def test_unsupported_arguments(mod, data) -> None:
    _, dev = data
    with pytest.raises(drv.ArgumentError, match="cannot be passed to a kernel"):
        mod.get_function("scale")(object(), 1.0, 4, block=(4, 1, 1))
    with pytest.raises(drv.NotSupported, match="texture references"):
        mod.get_function("scale")(dev, 1.0, 4, block=(4, 1, 1), texrefs=["t"])
    # the CPU backend has references: a name the module lacks is an ArgumentError there
    expected = drv.ArgumentError if drv.backend() == "cpu" else drv.NotSupported
    with pytest.raises(expected, match="texture (and surface )?reference"):
        mod.get_texref("t")


def test_missing_kernel_names_the_others(mod) -> None:
    with pytest.raises(drv.ArgumentError, match="scale"):
        mod.get_function("scael")


def test_compile_error_carries_the_log() -> None:
    with pytest.raises(drv.CompileError) as info:
        SourceModule("__global__ void k(float *a) { a[0] = undefined_name; }")
    assert "undefined_name" in str(info.value)
    assert info.value.log


def test_bad_stream_and_device() -> None:
    with pytest.raises(drv.ArgumentError, match="expected a stream"):
        drv.memcpy_htod_async(drv.mem_alloc(4), np.zeros(1, np.float32), stream="s")
    with pytest.raises(drv.ArgumentError, match="no such device"):
        drv.Device(drv.Device.count() + 3)


def test_error_hierarchy_is_pycudas() -> None:
    for cls in (drv.LogicError, drv.LaunchError, drv.MemoryError, drv.RuntimeError,
                drv.CompileError):
        assert issubclass(cls, drv.Error)
    assert issubclass(drv.ArgumentError, drv.LogicError)
    assert issubclass(drv.ArgumentError, ValueError)
    assert issubclass(drv.KernelFault, drv.LaunchError)
    assert issubclass(drv.RuntimeError, builtins.RuntimeError)
