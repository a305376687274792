"""cudakit.driver and cudakit.compiler: PyCUDA's API, checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.autoinit
import cudakit.driver as drv
from cudakit import tools
from cudakit.compiler import SourceModule

# A GPU contracts a*x + y into one fused multiply-add (one rounding instead of
# two): where the sum cancels, the relative error of a float32 result grows,
# so compare with a few float32 ulps of the operands as an absolute margin.
FMA_ATOL = 1e-5

RNG = np.random.default_rng(2024)

AXPY = """
__global__ void axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


@pytest.fixture(scope="module")
def axpy() -> drv.Function:
    return SourceModule(AXPY).get_function("axpy")


def random(n: int, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(n).astype(dtype)


def test_versions_and_device() -> None:
    assert drv.get_version()[0] >= 11
    assert isinstance(drv.get_driver_version(), int)
    if drv.backend() == "cpu":
        # The CUDA version the CPU backend implements: the toolkit's.
        major, minor, _ = drv.get_version()
        assert drv.get_driver_version() == major * 1000 + minor * 10
    else:
        assert drv.get_driver_version() >= 12000
    dev = drv.Device(0)
    assert dev == cudakit.autoinit.device
    assert dev.name() and dev.total_memory() > 0
    assert len(dev.compute_capability()) == 2
    attrs = dev.get_attributes()
    assert attrs[drv.device_attribute.MAX_THREADS_PER_BLOCK] == dev.MAX_THREADS_PER_BLOCK
    assert dev.get_attribute(drv.device_attribute.WARP_SIZE) == 32
    free, total = drv.mem_get_info()
    assert 0 < free <= total


def test_context_stack_on_the_primary_context() -> None:
    ctx = drv.Device(0).retain_primary_context()
    ctx.push()
    assert drv.Context.get_current() is ctx
    assert drv.Context.get_device() == drv.Device(0)
    drv.Context.synchronize()
    # The stack size may change at any time (the printf FIFO only before the
    # context's first launch on a GPU, which earlier tests have made).
    drv.Context.set_limit(drv.limit.STACK_SIZE, 4096)
    assert drv.Context.get_limit(drv.limit.STACK_SIZE) >= 4096
    drv.Context.pop()
    assert drv.Context.get_current() is cudakit.autoinit.context


@pytest.mark.parametrize("n", [1, 257, 1000])
def test_launch_with_python_numbers_and_numpy_scalars(axpy, n: int) -> None:
    x, y = random(n), random(n)
    x_dev, y_dev = drv.mem_alloc(x.nbytes), drv.mem_alloc(y.nbytes)
    drv.memcpy_htod(x_dev, x)
    drv.memcpy_htod(y_dev, y)
    blocks = (n + 127) // 128
    axpy(np.float32(2.5), x_dev, y_dev, np.int32(n), block=(128, 1, 1), grid=(blocks, 1))
    axpy(-0.5, x_dev, y_dev, n, block=(128, 1, 1), grid=(blocks,))  # Python numbers
    out = np.empty_like(y)
    drv.memcpy_dtoh(out, y_dev)
    np.testing.assert_allclose(out, (y + np.float32(2.5) * x) + np.float32(-0.5) * x, rtol=1e-6,
                               atol=1e-6)


def test_numpy_scalar_keeps_its_type(axpy) -> None:
    x = drv.mem_alloc(16)
    with pytest.raises(drv.ArgumentError, match="double"):
        axpy(np.float64(1.0), x, x, np.int32(4), block=(4, 1, 1))
    with pytest.raises(drv.ArgumentError, match="int64_t"):
        axpy(np.float32(1.0), x, x, np.int64(4), block=(4, 1, 1))


def test_in_out_inout(axpy) -> None:
    n = 333
    x, y = random(n), random(n)
    expected = 3 * x + y
    axpy(np.float32(3), drv.In(x), drv.InOut(y), np.int32(n), block=(64, 1, 1),
         grid=((n + 63) // 64, 1))
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=FMA_ATOL)


def test_cuda_array_interface_and_gpudata_are_pointers(axpy) -> None:
    n = 100
    x, y = random(n), random(n)
    x_dev, y_dev = drv.to_device(x), drv.to_device(y)

    class Interface:
        def __init__(self, alloc: drv.DeviceAllocation) -> None:
            self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4",
                                             "data": (int(alloc), False), "version": 3}

    class HasGpudata:
        def __init__(self, alloc: drv.DeviceAllocation) -> None:
            self.gpudata = alloc

    axpy(np.float32(2), Interface(x_dev), HasGpudata(y_dev), n, block=(128, 1, 1))
    np.testing.assert_allclose(drv.from_device(y_dev, n, np.float32), 2 * x + y, rtol=1e-6,
                               atol=FMA_ATOL)
    # A copy into an interface object checks its size too.
    with pytest.raises(drv.ArgumentError, match="do not fit"):
        drv.memcpy_htod(Interface(x_dev), np.zeros(n + 1, np.float32))


def test_numba_style_device_arrays_are_pointers(axpy) -> None:
    # cudakit.cuda's arrays go to a SourceModule kernel by their C++ object
    # (no __cuda_array_interface__ dict per launch): element type checked,
    # a view's address is its first element.
    from cudakit import cuda

    n = 77
    x, y = random(2 * n), random(n)
    x_dev, y_dev = cuda.to_device(x), cuda.to_device(y)
    axpy(np.float32(3), x_dev[n:], y_dev, n, block=(32, 1, 1), grid=(3, 1))
    np.testing.assert_allclose(y_dev.copy_to_host(), 3 * x[n:] + y, rtol=1e-6, atol=FMA_ATOL)
    with pytest.raises(drv.ArgumentError, match=r"parameter 1 .x.*float64 elements"):
        axpy(np.float32(1), cuda.to_device(random(n, np.float64)), y_dev, n, block=(32, 1, 1))
    # uint8 and record arrays take the protocol's path, with their element type.
    count = SourceModule("""
    struct Pair { int a; float b; };
    __global__ void count(const unsigned char *bytes, Pair *pairs, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) { pairs[i].a = bytes[i]; pairs[i].b = 0.5f * bytes[i]; }
    }
    """).get_function("count")
    raw = RNG.integers(0, 256, n).astype(np.uint8)
    pair = np.dtype([("a", np.int32), ("b", np.float32)])
    pairs = cuda.device_array(n, dtype=pair)
    count(cuda.to_device(raw), pairs, n, block=(32, 1, 1), grid=(3, 1))
    got = pairs.copy_to_host()
    np.testing.assert_array_equal(got["a"], raw)
    np.testing.assert_array_equal(got["b"], 0.5 * raw.astype(np.float32))


def test_intp_address_with_offset(axpy) -> None:
    # PyCUDA's idiom for a pointer into an allocation: numpy.intp(int(alloc) + offset).
    x, y = random(64), random(64)
    x_dev, y_dev = drv.to_device(x), drv.to_device(y)
    axpy(np.float32(1), np.intp(int(x_dev) + 32 * 4), np.uintp(int(y_dev) + 32 * 4), np.int32(32),
         block=(32, 1, 1))
    expected = y.copy()
    expected[32:] += x[32:]
    np.testing.assert_allclose(drv.from_device_like(y_dev, y), expected, rtol=1e-6, atol=FMA_ATOL)


def test_struct_by_value() -> None:
    mod = SourceModule("""
    struct Pair { int count; float scale; };
    __global__ void fill(float *out, Pair p)
    {
        int i = threadIdx.x;
        if (i < p.count) out[i] = p.scale * i;
    }
    """)
    pair = np.zeros((), dtype=[("count", np.int32), ("scale", np.float32)])
    pair["count"], pair["scale"] = 5, 1.5
    out = np.zeros(8, np.float32)
    mod.get_function("fill")(drv.InOut(out), pair[()], block=(8, 1, 1))
    np.testing.assert_array_equal(out, [0, 1.5, 3, 4.5, 6, 0, 0, 0])


def test_copies_and_memsets() -> None:
    a = random(64)
    src = drv.to_device(a)
    dst = drv.mem_alloc(a.nbytes)
    drv.memcpy_dtod(dst, src, a.nbytes)
    np.testing.assert_array_equal(drv.from_device_like(dst, a), a)
    drv.memset_d8(dst, 0xAB, 16)
    drv.memset_d16(dst, 0x1234, 8 + 8)
    drv.memset_d32(dst, 0xDEADBEEF, 4)
    back = drv.from_device(dst, 64, np.uint32)
    assert back[0] == 0xDEADBEEF and back[4] == 0x12341234
    np.testing.assert_array_equal(back[16:], a.view(np.uint32)[16:])
    stream = drv.Stream()
    host = drv.pagelocked_zeros((8, 8), np.float32)
    drv.memcpy_dtoh_async(host, src, stream)
    stream.synchronize()
    np.testing.assert_array_equal(host.ravel(), a)
    alloc, pitch = drv.mem_alloc_pitch(100, 3, 4)
    assert pitch >= 100 and len(alloc) == pitch * 3


def test_pagelocked_arrays() -> None:
    a = drv.pagelocked_empty((3, 5), np.float64, order="F")
    assert a.shape == (3, 5) and a.dtype == np.float64 and a.flags.f_contiguous
    z = drv.pagelocked_zeros(7, np.int16)
    assert z.shape == (7,) and not z.any()
    like = drv.pagelocked_zeros_like(a)
    assert like.shape == a.shape
    plain = np.zeros(9, np.int16)
    registered = drv.register_host_memory(plain)
    assert registered.base.base is plain and np.shares_memory(registered, plain)
    registered.base.unregister()


def test_events_and_timed_launch(axpy) -> None:
    n = 4096
    x = drv.to_device(random(n))
    y = drv.to_device(random(n))
    stream = drv.Stream()
    start, stop = drv.Event(), drv.Event()
    start.record(stream)
    axpy(np.float32(1), x, y, np.int32(n), block=(256, 1, 1), grid=(16, 1), stream=stream)
    stop.record(stream).synchronize()
    assert stop.query()
    assert start.time_till(stop) >= 0 and stop.time_since(start) >= 0
    seconds = axpy(np.float32(1), x, y, np.int32(n), block=(256, 1, 1), grid=(16, 1),
                   time_kernel=True)
    assert isinstance(seconds, float) and seconds >= 0


def test_prepared_calls(axpy) -> None:
    n = 515
    x, y = random(n), random(n)
    x_dev, y_dev = drv.to_device(x), drv.to_device(y)
    assert axpy.prepare("fPPi") is axpy
    grid, block = ((n + 127) // 128, 1), (128, 1, 1)
    axpy.prepared_call(grid, block, 2.0, int(x_dev), y_dev, n)
    stream = drv.Stream()
    axpy.prepared_async_call(grid, block, stream, 1.0, x_dev, y_dev, n)
    stream.synchronize()
    elapsed = axpy.prepared_timed_call(grid, block, 1.0, x_dev, y_dev, n)
    assert elapsed() >= 0
    np.testing.assert_allclose(drv.from_device_like(y_dev, y), y + 4 * x, rtol=1e-5, atol=1e-6)
    with pytest.raises(drv.ArgumentError, match="declared 4 arguments"):
        axpy.prepared_call(grid, block, 2.0, x_dev, y_dev)
    axpy.prepare([np.float32, np.intp, np.intp, np.int32])


def test_prepared_call_keywords_and_positionals(axpy) -> None:
    n = 300
    x, y = random(n), random(n)
    x_dev, y_dev = drv.to_device(x), drv.to_device(y)
    axpy.prepare("fPPi")
    grid, block = (3, 1), (128, 1, 1)
    axpy.prepared_call(grid, block, 1.0, x_dev, y_dev, n, shared_size=0)
    stream = drv.Stream()
    axpy.prepared_async_call(grid, block, stream, 1.0, x_dev, y_dev, n, shared_size=0)
    stream.synchronize()
    np.testing.assert_allclose(drv.from_device_like(y_dev, y), y + 2 * x, rtol=1e-5, atol=1e-6)
    with pytest.raises(drv.ArgumentError, match="unknown keyword shared"):
        axpy.prepared_call(grid, block, 1.0, x_dev, y_dev, n, shared=0)
    with pytest.raises(TypeError, match="at least 2 positional"):
        axpy.prepared_call(grid)
    with pytest.raises(TypeError, match="at least 3 positional"):
        axpy.prepared_async_call(grid, block)
    with pytest.raises(drv.ArgumentError, match="grid"):
        axpy.prepared_call("grid", block, 1.0, x_dev, y_dev, n)


def test_call_through_the_type_matches_the_direct_call(axpy) -> None:
    """f(...) takes the vectorcall path; type(f).__call__(f, ...) and
    functools.partial take the tuple-and-dict path: same results, same errors."""
    import functools

    n = 257
    x, y = random(n), random(n)
    x_dev, y_dev = drv.to_device(x), drv.to_device(y)
    args = (np.float32(0.5), x_dev, y_dev, np.int32(n))
    axpy(*args, block=(128, 1, 1), grid=(3, 1))
    type(axpy).__call__(axpy, *args, block=(128, 1, 1), grid=(3, 1))
    functools.partial(axpy, block=(128, 1, 1), grid=(3, 1))(*args)
    np.testing.assert_allclose(drv.from_device_like(y_dev, y), y + 1.5 * x, rtol=1e-5, atol=1e-6)
    for call in (axpy, functools.partial(type(axpy).__call__, axpy)):
        with pytest.raises(drv.ArgumentError, match="unknown keyword\\(s\\): blocks, grids"):
            call(*args, blocks=(1, 1, 1), grids=(1, 1))
        with pytest.raises(drv.ArgumentError, match="expected 4 arguments, got 3"):
            call(*args[:3], block=(128, 1, 1))


def test_function_attributes(axpy) -> None:
    assert axpy.num_regs >= 0 and axpy.local_size_bytes >= 0
    assert axpy.shared_size_bytes == 0
    assert axpy.max_threads_per_block > 0
    assert axpy.get_attribute(drv.function_attribute.MAX_THREADS_PER_BLOCK) == \
        axpy.max_threads_per_block
    axpy.set_cache_config(drv.func_cache.PREFER_L1)


@pytest.mark.gpu
def test_static_shared_memory_is_reported() -> None:
    shared = SourceModule("""
    __global__ void k(float *o) { __shared__ float t[64]; t[threadIdx.x] = 1; __syncthreads();
                                  o[threadIdx.x] = t[63 - threadIdx.x]; }
    """).get_function("k")
    assert shared.shared_size_bytes == 256


def test_get_global_and_options() -> None:
    mod = SourceModule("""
    __device__ int offset;
    __global__ void add_offset(int *v, int n)
    {
        int i = threadIdx.x;
        if (i < n) v[i] += offset + SCALE;
    }
    """, options=["-DSCALE=10", "--use_fast_math", "-lineinfo", "-std=c++17", "-O3"],
        arch="sm_90")
    address, size = mod.get_global("offset")
    assert size == 4
    drv.memcpy_htod(address, np.array([5], np.int32))
    v = np.arange(10, dtype=np.int32)
    mod.get_function("add_offset")(drv.InOut(v), 10, block=(16, 1, 1))
    np.testing.assert_array_equal(v, np.arange(10) + 15)


def test_cache_dir_and_no_cache(tmp_path) -> None:
    src = "__global__ void k(int *o) { o[0] = 42; }"
    for cache_dir in (str(tmp_path), False):
        o = np.zeros(1, np.int32)
        SourceModule(src, cache_dir=cache_dir).get_function("k")(drv.Out(o), block=(1, 1, 1))
        assert o[0] == 42
    assert any(tmp_path.rglob("*"))


def test_stream_wrapping_an_external_handle() -> None:
    own = drv.Stream()
    wrapped = drv.Stream.wrap(own.handle)
    assert wrapped.handle == own.handle

    class External:  # CUDA's stream protocol
        def __cuda_stream__(self):
            return (0, own.handle)

    class TorchLike:
        cuda_stream = own.handle

    for stream in (External(), TorchLike(), own.handle):
        a = drv.to_device(np.arange(4, dtype=np.float32))
        out = np.empty(4, np.float32)
        drv.memcpy_dtoh_async(out, a, stream)
        drv.Stream.wrap(stream).synchronize()
        np.testing.assert_array_equal(out, np.arange(4))


def test_tools() -> None:
    assert tools.dtype_to_ctype(np.float32) == "float"
    assert tools.dtype_to_ctype(np.uint8) == "unsigned char"
    data = tools.DeviceData()
    assert data.warp_size == 32 and data.max_threads > 0
    record = tools.OccupancyRecord(data, 256)
    assert 0 < record.occupancy <= 1
    assert tools.get_default_device() == drv.Device(0)
    tools.clear_context_caches()


@pytest.mark.gpu
def test_an_older_arch_runs_as_with_nvcc() -> None:
    # -arch=sm_75 (the tutorial's advice for a Turing card) on a newer GPU.
    mod = SourceModule("__global__ void k(int *o) { o[0] = 75; }", options=["-arch=sm_75"])
    o = np.zeros(1, np.int32)
    mod.get_function("k")(drv.Out(o), block=(1, 1, 1))
    assert o[0] == 75


@pytest.mark.gpu
def test_torch_current_stream_and_tensor() -> None:
    torch = pytest.importorskip("torch")
    tensor = torch.arange(16, dtype=torch.float32, device="cuda")
    mod = SourceModule(AXPY)
    y = torch.zeros(16, dtype=torch.float32, device="cuda")
    mod.get_function("axpy")(np.float32(2), tensor, y, 16, block=(16, 1, 1),
                             stream=torch.cuda.current_stream())
    torch.cuda.current_stream().synchronize()
    assert torch.equal(y, 2 * tensor)


class WrappedAllocation(drv.PointerHolderBase):
    """Memory allocated elsewhere, as PyCUDA's users wrap it."""

    def __init__(self, wrapped: drv.DeviceAllocation) -> None:
        super().__init__()
        self.wrapped = wrapped

    def get_pointer(self) -> int:
        return int(self.wrapped)


def test_pointer_holder_base_is_a_pointer_everywhere() -> None:
    import cudakit.gpuarray as gpuarray

    host = np.random.default_rng(11).standard_normal(257).astype(np.float32)
    holder = WrappedAllocation(drv.mem_alloc(host.nbytes))
    drv.memcpy_htod(holder, host)
    assert int(holder) == int(holder.wrapped)
    mod = SourceModule("""
    __global__ void twice(float *x, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] *= 2.0f;
    }""")
    mod.get_function("twice")(holder, np.int32(host.size), block=(64, 1, 1), grid=(5, 1))
    back = np.empty_like(host)
    drv.memcpy_dtoh(back, holder)
    np.testing.assert_allclose(back, host * 2, rtol=1e-6)
    view = gpuarray.GPUArray(host.shape, np.float32, gpudata=holder)
    np.testing.assert_allclose(view.get(), host * 2, rtol=1e-6)


def test_pointer_holder_base_without_get_pointer_says_so() -> None:
    class Incomplete(drv.PointerHolderBase):
        pass

    with pytest.raises(NotImplementedError, match="get_pointer"):
        int(Incomplete())


def test_mem_alloc_like_and_bitlog2() -> None:
    host = np.random.default_rng(5).standard_normal((7, 13)).astype(np.float32)
    dev = drv.mem_alloc_like(host)
    drv.memcpy_htod(dev, host)
    back = np.empty_like(host)
    drv.memcpy_dtoh(back, dev)
    np.testing.assert_array_equal(back, host)
    assert [tools.bitlog2(v) for v in (1, 2, 3, 1023, 1024, 2**40 + 1)] == [0, 1, 1, 9, 10, 40]
    with pytest.raises(ValueError):
        tools.bitlog2(0)
