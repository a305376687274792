"""PyCUDA names the compatibility suite needs beyond the basics: gpuarray.vec
(CUDA's vector types, registered as C types), the pool's size classes, and the
texture API failing with a NotSupported that names textures."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit import tools
from cudakit.compiler import SourceModule

vec = gpuarray.vec


def test_vector_types_have_cuda_sizes_and_names() -> None:
    assert vec.float3.itemsize == 12 and vec.float3.names == ("x", "y", "z")
    assert vec.double2.itemsize == 16 and vec.uchar4.itemsize == 4
    assert vec.long3.itemsize == 24 and vec.short1.itemsize == 2
    assert tools.dtype_to_ctype(vec.float3) == "float3"
    assert tools.dtype_to_ctype(vec.ulonglong2) == "ulonglong2"
    v = vec.make_int4(1, 2, w=4)
    assert v.shape == () and v.dtype == vec.int4
    assert tuple(v[()]) == (1, 2, 0, 4)
    with pytest.raises(TypeError, match="at most 2"):
        vec.make_float2(1, 2, 3)
    with pytest.raises(TypeError, match="unknown field"):
        vec.make_float2(q=1)


def test_vector_arguments_by_value_and_by_pointer() -> None:
    mod = SourceModule("""
    __global__ void axpy3(float3 *dest, const float3 *src, float3 scale, int n)
    {
        const int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            dest[i].x = scale.x * src[i].x;
            dest[i].y = scale.y * src[i].y;
            dest[i].z = scale.z * src[i].z;
        }
    }
    """)
    axpy3 = mod.get_function("axpy3")
    n = 1001
    rng = np.random.default_rng(9)
    src = np.empty(n, vec.float3)
    for field in "xyz":
        src[field] = rng.standard_normal(n).astype(np.float32)
    scale = vec.make_float3(2.0, -1.0, 0.5)
    dest = np.zeros(n, vec.float3)
    axpy3(drv.Out(dest), drv.In(src), scale, np.int32(n), block=(128, 1, 1), grid=(8, 1))
    for field, factor in zip("xyz", (2.0, -1.0, 0.5)):
        np.testing.assert_allclose(dest[field], src[field] * np.float32(factor), rtol=1e-6)
    with pytest.raises(drv.ArgumentError, match="12 bytes"):
        axpy3(drv.Out(dest), drv.In(src), vec.make_float2(1, 2), np.int32(n), block=(128, 1, 1))


def test_prepared_call_takes_a_vector_type() -> None:
    mod = SourceModule("""
    __global__ void store(float *out, float3 v) { out[0] = v.x + 10 * v.y + 100 * v.z; }
    """)
    store = mod.get_function("store")
    store.prepare(["P", vec.float3])
    out = drv.mem_alloc(4)
    store.prepared_call((1, 1), (1, 1, 1), out, vec.make_float3(1.0, 2.0, 3.0))
    host = np.zeros(1, np.float32)
    drv.memcpy_dtoh(host, out)
    assert host[0] == 321.0


def test_memory_pool_bins_are_the_pool_size_classes() -> None:
    pool = tools.DeviceMemoryPool()
    rng = np.random.default_rng(4)
    sizes = [0, 1, 511, 512, 513, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 2 << 20, (2 << 20) + 1]
    sizes += [int(s) >> int(k) for s, k in zip(rng.integers(0, 1 << 31, 500),
                                                  rng.integers(0, 32, 500))]
    for size in sizes:
        bin_nr = pool.bin_number(size)
        allocated = pool.alloc_size(bin_nr)
        assert allocated >= max(size, 1)
        assert pool.bin_number(allocated) == bin_nr
        if size > 0:  # the pool's own rounding, MemoryPool::round_size
            assert allocated == (-(-size // 512) * 512 if size <= 1 << 20
                                 else -(-size // (2 << 20)) * (2 << 20))
    with pytest.raises(drv.ArgumentError):
        pool.alloc_size(0)
    with pytest.raises(drv.ArgumentError):
        pool.bin_number(-5)


@pytest.mark.skipif(drv.backend() == "cpu", reason="the CPU backend compiles texture references")
def test_texture_sources_are_not_supported_naming_textures() -> None:
    source = """
    texture<float, 2, cudaReadModeElementType> tex;
    __global__ void fetch(float *dest) { dest[threadIdx.x] = tex2D(tex, threadIdx.x, 0); }
    """
    with pytest.raises(drv.NotSupported, match="texture") as info:
        SourceModule(source)
    assert isinstance(info.value, drv.CompileError)  # old `except CompileError` still works
    with pytest.raises(drv.CompileError) as plain:  # a plain error stays a plain CompileError
        SourceModule("__global__ void broken(float *x) { x[0] = undefined_name; }")
    assert not isinstance(plain.value, drv.NotSupported)


def test_cuda_arrays_are_supported_and_texref_helpers_check_their_texref() -> None:
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = 2, 4, 8
    descr.format = drv.array_format.FLOAT
    assert drv.Array(descr).get_descriptor_3d().depth == 8  # tests/python/test_cuda_arrays.py
    with pytest.raises(drv.ArgumentError, match="TextureReference"):
        drv.matrix_to_texref(np.zeros((2, 2), np.float32), None)
