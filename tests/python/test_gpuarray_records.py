"""GPUArrays of numpy structured dtypes (gpuarray.vec types, registered
structs, records): storage, transfers, fill, copies, views, kernels, and the
TypeError for arithmetic. Every check compares bytes with numpy's on fresh
random records."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.driver as drv
import cudakit.gpuarray as ga
from cudakit import cumath, tools
from cudakit.compiler import SourceModule
from cudakit.elementwise import ElementwiseKernel
from cudakit.reduction import ReductionKernel
from gpuarray_helpers import ODD_SIZES

vec = ga.vec
ON_CPU = drv.backend() != "cuda"
_rng = np.random.default_rng()

PACKED = np.dtype([("a", np.int8), ("b", np.float32)])  # 5 bytes: byte words
ALIGNED = np.dtype([("a", np.int8), ("b", np.float64)], align=True)  # 16 bytes, padded
RECORD_DTYPES = [vec.float3, vec.float4, vec.int2, vec.double2, vec.uchar3, vec.short3,
                 PACKED, ALIGNED, np.dtype("V7")]
IDS = ["float3", "float4", "int2", "double2", "uchar3", "short3", "packed5", "aligned16", "V7"]


def random_records(shape, dtype) -> np.ndarray:
    """Random bytes as records (floats may be any bit pattern: bytes are compared)."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.frombuffer(_rng.bytes(count * dtype.itemsize), np.uint8)
    return raw.view(dtype).reshape(shape).copy()


def assert_same_records(got: np.ndarray, expected: np.ndarray) -> None:
    """Equal bytes (field by field where the dtype has padding, which numpy's
    assignments leave alone)."""
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    names = got.dtype.names
    if names and sum(got.dtype[n].itemsize for n in names) != got.dtype.itemsize:
        for name in names:
            assert (np.ascontiguousarray(got[name]).tobytes() ==
                    np.ascontiguousarray(expected[name]).tobytes()), name
        return
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(expected).tobytes()


def records_of(value, dtype) -> np.ndarray:
    return np.array(value, dtype)


def one_record(dtype) -> np.ndarray:
    return random_records((), dtype)


def test_pycuda_vector_fill() -> None:
    # PyCUDA's test_gpuarray.py::test_vector_fill, with a non-zero value.
    a_gpu = ga.GPUArray(100, dtype=vec.float3)
    value = vec.make_float3(1.5, -2.25, 3.0)
    assert a_gpu.fill(value) is a_gpu
    a = a_gpu.get()
    assert a.dtype == vec.float3
    assert_same_records(a, np.full(100, value, vec.float3))
    assert isinstance(a_gpu, ga.GPUArray)
    assert a_gpu.shape == (100,) and a_gpu.dtype == vec.float3 and a_gpu.itemsize == 12
    assert a_gpu.nbytes == 1200 and a_gpu.strides == (12,) and a_gpu.size == 100


@pytest.mark.parametrize("dtype", RECORD_DTYPES, ids=IDS)
@pytest.mark.parametrize("n", ODD_SIZES)
def test_to_gpu_get_set_round_trip(dtype, n) -> None:
    host = random_records(n, dtype)
    g = ga.to_gpu(host)
    assert g.dtype == np.dtype(dtype) and g.shape == (n,)
    assert_same_records(g.get(), host)
    other = random_records(n, dtype)
    g.set(other)
    assert_same_records(g.get(), other)
    into = np.empty(n, dtype)
    assert g.get(into) is into
    assert_same_records(into, other)


@pytest.mark.parametrize("dtype", RECORD_DTYPES, ids=IDS)
def test_fill_matches_numpy_and_stays_inside_its_view(dtype) -> None:
    n = 1000
    host = random_records(n, dtype)
    g = ga.to_gpu(host)
    value = one_record(dtype)
    g[3:-5:2].fill(value)  # a strided view: the records between keep their bytes
    expected = host.copy()
    expected[3:-5:2] = value
    assert_same_records(g.get(), expected)
    g.fill(value[()])  # a numpy.void
    assert_same_records(g.get(), np.full(n, value, dtype))


def test_fill_takes_a_tuple_or_a_number_as_numpy_does() -> None:
    g = ga.empty(37, vec.int4)
    g.fill((1, -2, 3, 2**31 - 1))
    assert_same_records(g.get(), np.full(37, records_of((1, -2, 3, 2**31 - 1), vec.int4)))
    g.fill(7)
    assert_same_records(g.get(), np.full(37, 7, vec.int4))


@pytest.mark.parametrize("dtype", [vec.float3, PACKED], ids=["float3", "packed5"])
def test_creation_functions(dtype) -> None:
    z = ga.zeros((7, 5), dtype)
    assert_same_records(z.get(), np.zeros((7, 5), dtype))
    o = ga.ones(9, dtype)
    assert_same_records(o.get(), np.ones(9, dtype))
    e = ga.empty((3, 4), dtype, order="F")
    assert e.shape == (3, 4) and e.flags.f_contiguous and not e.flags.c_contiguous
    host = random_records((3, 4), dtype)
    e.set(host)
    assert_same_records(e.get(), host)
    for like in (ga.empty_like(e), ga.zeros_like(z)):
        assert like.dtype == np.dtype(dtype) and isinstance(like, type(e))
    assert_same_records(ga.zeros_like(e).get(), np.zeros((3, 4), dtype))
    assert ga.empty_like(e).flags.f_contiguous
    f = ga.full(11, one_record(dtype)[()])
    assert f.dtype == np.dtype(dtype) and f.shape == (11,)


def test_fortran_ordered_host_array_stays_fortran_ordered() -> None:
    host = np.asfortranarray(random_records((6, 5), vec.double2))
    g = ga.to_gpu(host)
    assert g.flags.f_contiguous and g.strides == host.strides
    assert_same_records(g.get(), host)
    c = g.copy()
    assert c.flags.f_contiguous
    assert_same_records(c.get(), host)
    assert_same_records(g.copy(order="C").get(), host)


def test_views_match_numpy() -> None:
    host = random_records((6, 10), vec.float3)
    g = ga.to_gpu(host)
    for key in (np.s_[2], np.s_[1:5, ::3], np.s_[::-1, 2], np.s_[..., -1], np.s_[None, 3],
                np.s_[-2, -3], np.s_[5:1:-2]):
        view = g[key]
        expected = host[key]
        assert view.shape == np.shape(expected), key
        assert_same_records(view.get(), np.asarray(expected))
    assert_same_records(g.T.get(), host.T)
    assert_same_records(g.transpose(1, 0).get(), host.T)
    assert_same_records(g.swapaxes(0, 1).get(), host.swapaxes(0, 1))
    assert_same_records(g.reshape(3, 20).get(), host.reshape(3, 20))
    assert_same_records(g.reshape((20, -1), order="F").get(), host.reshape((20, -1), order="F"))
    assert_same_records(g.ravel().get(), host.ravel())
    assert_same_records(g[:, ::2].ravel().get(), host[:, ::2].ravel())
    assert_same_records(g[2:3].squeeze().get(), host[2:3].squeeze())
    assert g[1, 2].shape == () and len(g) == 6
    assert_same_records(g[1, 2].get(), np.asarray(host[1, 2]))
    # a view shares the memory
    v = g[1:3, 4:6]
    value = one_record(vec.float3)
    v.fill(value)
    host[1:3, 4:6] = value
    assert_same_records(g.get(), host)


def test_view_as_another_dtype_matches_numpy() -> None:
    host = random_records(37, vec.float4)
    g = ga.to_gpu(host)
    as_float = g.view(np.float32)
    assert type(as_float) is ga.GPUArray and as_float.shape == (148,)
    np.testing.assert_array_equal(as_float.get().view(np.uint32), host.view(np.uint32))
    as_pairs = g.view(vec.float2)
    assert as_pairs.dtype == vec.float2 and as_pairs.shape == (74,)
    assert_same_records(as_pairs.get(), host.view(vec.float2))
    d = ga.to_gpu(random_records(9, vec.double2))
    np.testing.assert_array_equal(d.view(np.complex128).get().view(np.uint64),
                                  d.get().view(np.uint64))
    back = ga.to_gpu(np.arange(12, dtype=np.float32)).view(vec.float3)
    assert back.dtype == vec.float3 and back.shape == (4,)
    assert_same_records(back.get(), np.arange(12, dtype=np.float32).view(vec.float3))
    with pytest.raises(ValueError):
        g[::2].view(np.float32)  # the last axis is not contiguous (numpy's rule)


def test_setitem_takes_matching_records() -> None:
    host = random_records((5, 8), vec.short3)
    g = ga.to_gpu(host)
    part = random_records((5, 3), vec.short3)
    g[:, 1:7:2] = ga.to_gpu(part)
    host[:, 1:7:2] = part
    assert_same_records(g.get(), host)
    row = random_records(8, vec.short3)
    g[2] = row  # a host array
    host[2] = row
    g[4, 5] = vec.make_short3(1, 2, 3)
    host[4, 5] = (1, 2, 3)
    g[0] = ga.to_gpu(row[:1])  # broadcast
    host[0] = row[:1]
    assert_same_records(g.get(), host)
    # another alignment of the same dtype (word sizes differ): byte by byte
    odd = ga.to_gpu(random_records(9, vec.int2)).view(vec.int1)[1:17:2]
    target = ga.zeros(8, vec.int1)
    target[...] = odd
    assert_same_records(target.get(), odd.get())


def test_copy_is_new_memory() -> None:
    host = random_records(1000, vec.uchar3)
    g = ga.to_gpu(host)
    c = g.copy()
    g.fill(vec.make_uchar3(1, 2, 3))
    assert_same_records(c.get(), host)
    assert_same_records(g[::7].copy().get(), np.full(len(host[::7]), records_of((1, 2, 3), vec.uchar3)))


def test_async_transfers_on_a_stream() -> None:
    stream = drv.Stream()
    host = random_records(4099, vec.float3)
    g = ga.to_gpu_async(host, stream=stream)
    out = g.get_async(stream=stream)
    stream.synchronize()
    assert_same_records(out, host)
    other = drv.pagelocked_empty(4099, vec.float3)
    other[...] = random_records(4099, vec.float3)
    g.set_async(other, stream=stream)
    back = g.get(pagelocked=True, stream=stream)
    stream.synchronize()
    assert_same_records(back, other)
    g.fill(vec.make_float3(1, 2, 3), stream=stream)
    stream.synchronize()
    assert_same_records(g.get(), np.full(4099, records_of((1, 2, 3), vec.float3)))


def test_source_module_kernel_takes_float3_pointers() -> None:
    mod = SourceModule("""
    __global__ void swizzle(float3 *out, const float3 *in, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = make_float3(in[i].y * 2.0f, in[i].z, -in[i].x);
    }""")
    n = 1000
    host = np.zeros(n, vec.float3)
    for field in "xyz":
        host[field] = _rng.uniform(-10, 10, n).astype(np.float32)
    src = ga.to_gpu(host)
    dst = ga.empty_like(src)
    mod.get_function("swizzle")(dst, src, np.int32(n), block=(128, 1, 1), grid=(8, 1))
    out = dst.get()
    np.testing.assert_array_equal(out["x"], host["y"] * np.float32(2))
    np.testing.assert_array_equal(out["y"], host["z"])
    np.testing.assert_array_equal(out["z"], -host["x"])


def test_elementwise_kernel_reads_and_writes_records() -> None:
    n = 4099
    host = np.zeros(n, vec.float3)
    for field in "xyz":
        host[field] = _rng.uniform(-10, 10, n).astype(np.float32)
    x = ga.to_gpu(host)
    y = ga.empty(n, np.float32)
    ElementwiseKernel("float3 *x, float *y", "y[i] = x[i].x + x[i].y * x[i].z", "dot3")(x, y)
    # A GPU contracts x + y*z into one fused multiply-add: where the sum
    # cancels, compare with a margin of a few float32 ulps of the operands.
    np.testing.assert_allclose(y.get(), host["x"] + host["y"] * host["z"], rtol=1e-6, atol=1e-4)
    scale = ElementwiseKernel("float3 *x, float s",
                              "x[i].x *= s; x[i].z = x[i].y + n", "scale3")
    scale(x, np.float32(0.5))
    np.testing.assert_array_equal(x.get()["x"], host["x"] * np.float32(0.5))
    np.testing.assert_array_equal(x.get()["z"], host["y"] + np.float32(n))
    with pytest.raises(ValueError, match="contiguous"):
        scale(x[::2], np.float32(2))


def test_reduction_kernel_reads_records() -> None:
    n = 4099
    host = np.zeros(n, vec.int2)
    host["x"] = _rng.integers(-1000, 1000, n)
    host["y"] = _rng.integers(-1000, 1000, n)
    k = ReductionKernel(np.int64, "0", "a + b", "(long long)p[i].x * p[i].y", "int2 *p")
    assert int(k(ga.to_gpu(host)).get()) == int((host["x"].astype(np.int64) * host["y"]).sum())


def test_registered_struct_in_a_kernel() -> None:
    pair = np.dtype([("key", np.int32), ("weight", np.float64)], align=True)
    tools.get_or_register_dtype("weighted_key", pair)
    host = np.zeros(37, pair)
    host["key"] = _rng.integers(-100, 100, 37)
    host["weight"] = _rng.uniform(-1, 1, 37)
    g = ga.to_gpu(host)
    k = ElementwiseKernel("weighted_key *p", "p[i].weight *= p[i].key", "weigh",
                          preamble="struct weighted_key { int key; double weight; };")
    k(g)
    np.testing.assert_array_equal(g.get()["weight"], host["weight"] * host["key"])
    with pytest.raises(TypeError, match="weighted_key"):
        g + 1


def test_arithmetic_is_a_type_error_naming_the_dtype() -> None:
    g = ga.to_gpu(random_records(10, vec.float3))
    index = ga.arange(3, dtype=np.int32)
    for operation in (lambda: g + g, lambda: g * 2, lambda: -g, lambda: abs(g),
                      lambda: g.astype(np.float32), lambda: g.sum(), lambda: ga.sum(g),
                      lambda: cumath.sin(g), lambda: ga.take(g, index), lambda: g == g,
                      lambda: g.conj(), lambda: g.real, lambda: float(g[0]),
                      lambda: ga.concatenate([g, g]), lambda: g.__dlpack__()):
        with pytest.raises(TypeError, match="float3"):
            operation()
    with pytest.raises(TypeError, match="float3"):
        g += 1


def test_bad_input_is_refused_with_the_reason() -> None:
    g = ga.to_gpu(random_records(10, vec.float3))
    with pytest.raises(TypeError, match="dtype"):
        g.set(np.zeros(10, vec.float4))
    with pytest.raises(ValueError, match="sizes"):
        g.set(np.zeros(11, vec.float3))
    with pytest.raises(TypeError, match="dtype"):
        g.get(np.zeros(10, np.float32))
    with pytest.raises(TypeError):
        g.fill(np.zeros(3, vec.float3))
    with pytest.raises(TypeError, match="float3"):
        g.fill(vec.make_int3(1, 2, 3))
    with pytest.raises(TypeError):
        g[2] = ga.zeros(1, np.float32)
    with pytest.raises(IndexError):
        g[[1, 2]]
    with pytest.raises(IndexError):
        g[10]
    with pytest.raises(TypeError, match="objects"):
        ga.empty(3, np.dtype([("o", object)]))
    with pytest.raises(ValueError, match="strides"):
        ga.GPUArray(3, vec.float3, strides=(12,))


def test_gpudata_constructor_views_the_memory() -> None:
    g = ga.to_gpu(random_records(20, vec.float2))
    v = ga.GPUArray((10,), vec.float2, gpudata=g.gpudata, strides=(16,))
    assert_same_records(v.get(), g.get()[::2])
    assert v.dtype == vec.float2


@pytest.mark.skipif(ON_CPU, reason="__cuda_array_interface__ describes GPU memory only")
def test_cuda_array_interface_of_records() -> None:
    g = ga.to_gpu(random_records((4, 3), vec.float3))
    cai = g.__cuda_array_interface__
    assert cai["shape"] == (4, 3) and cai["strides"] == (36, 12)
    assert cai["typestr"] == "|V12" and cai["descr"] == vec.float3.descr
    assert cai["data"][0] == int(g.gpudata) and cai["version"] == 3


def test_the_view_primitive_never_reaches_past_its_source() -> None:
    from cudakit import _core

    g = ga.to_gpu(random_records(10, vec.float3))
    part = g[2:5]
    with pytest.raises(ValueError, match="outside"):
        _core._record_view(part, np.uint32, (4, 3), (12, 4), 0)  # one record too many
    with pytest.raises(ValueError, match="outside"):
        _core._record_view(part, np.uint32, (3,), (4,), -4)  # starts before the view
    with pytest.raises(ValueError, match="outside"):
        _core._record_view(part, np.uint8, (3,), (1,), 0, 37)  # a kernel reading 37 bytes
    with pytest.raises(ValueError, match="multiple"):
        _core._record_view(part, np.uint32, (3,), (6,), 0)
    with pytest.raises(ValueError, match="multiple"):
        _core._record_view(part, np.uint32, (2,), (4,), 2)
    inside = _core._record_view(part, np.uint32, (3, 3), (12, 4), 0)
    np.testing.assert_array_equal(inside.get().reshape(-1), g.get()[2:5].view(np.uint32))


def test_gpuarray_subclasses_still_construct() -> None:
    # GPUArray(...) is a __new__ (it may return a RecordGPUArray); a Python
    # subclass of GPUArray is still constructed as one.
    class Tagged(ga.GPUArray):
        def __init__(self, shape, dtype) -> None:
            super().__init__(shape, dtype)
            self.tag = "t"

    host = np.random.default_rng().uniform(-5, 5, 37).astype(np.float32)
    t = Tagged(37, np.float32)
    t.set(host)
    assert type(t) is Tagged and t.tag == "t"
    np.testing.assert_array_equal((t * 2).get(), host * 2)
