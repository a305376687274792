"""Pickling cudakit's arrays and kernels: in this process (protocols 2 to 5)
and across a process boundary (a spawned process, as Dask's workers are
started, and a fresh interpreter unpickling a file), each checked against
numpy on fresh random input; what cannot travel is refused with the reason."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import pickle
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from child_process import checked, run_code
from cudakit import cuda
from cudakit.cuda import blockDim, blockIdx, float32, threadIdx
from cudakit.compiler import SourceModule
from cudakit.elementwise import ElementwiseKernel
from cudakit.reduction import ReductionKernel
from cudakit.scan import ExclusiveScanKernel, InclusiveScanKernel

import pickle_kernels

PROTOCOLS = range(2, pickle.HIGHEST_PROTOCOL + 1)
HERE = Path(__file__).parent


def _random(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _record_values(rng: np.random.Generator, n: int) -> np.ndarray:
    dtype = np.dtype([("x", np.float32), ("n", np.int16), ("z", np.float64)], align=True)
    values = np.empty(n, dtype)
    values["x"] = rng.standard_normal(n)
    values["n"] = rng.integers(-50, 50, n)
    values["z"] = rng.standard_normal(n)
    return values


def _layouts(host: np.ndarray) -> dict[str, np.ndarray]:
    """The host values of each layout the device array is made in."""
    return {"C": host, "F": np.asfortranarray(host)}


# ---- arrays in this process ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.bool_,
                                   np.complex64, np.complex128])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_gpuarray_round_trip_keeps_values_dtype_and_order(dtype, protocol):
    rng = np.random.default_rng()
    host = _random(rng, (37, 5), dtype)
    for order, values in _layouts(host).items():
        array = gpuarray.to_gpu(values)
        back = pickle.loads(pickle.dumps(array, protocol=protocol))
        assert isinstance(back, gpuarray.GPUArray)
        assert back.dtype == host.dtype and back.shape == host.shape
        np.testing.assert_array_equal(back.get(), host)
        assert bool(back.flags.f_contiguous if order == "F" else back.flags.c_contiguous)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_gpuarray_views_zero_d_and_empty_round_trip(protocol):
    rng = np.random.default_rng()
    host = _random(rng, (9, 13), np.float64)
    array = gpuarray.to_gpu(host)
    cases = {"strided": (array[1::2, ::3], host[1::2, ::3]),
             "transposed": (array.T, host.T),
             "pending": (array * 2 + 1, host * 2 + 1),  # a fused expression not yet run
             "0-d": (gpuarray.to_gpu(np.float32(rng.standard_normal())), None),
             "empty": (gpuarray.to_gpu(np.empty((0, 7), np.int32)), np.empty((0, 7), np.int32))}
    for name, (device, expected) in cases.items():
        if expected is None:
            expected = device.get()
        back = pickle.loads(pickle.dumps(device, protocol=protocol))
        assert back.shape == expected.shape and back.dtype == expected.dtype, name
        np.testing.assert_array_equal(back.get(), expected, err_msg=name)
        # As numpy's pickle: C- or F-contiguous, whatever the view was.
        want = pickle.loads(pickle.dumps(expected, protocol=protocol))
        assert bool(back.flags.c_contiguous) == want.flags.c_contiguous, name
        assert bool(back.flags.f_contiguous) == want.flags.f_contiguous, name


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_record_gpuarray_round_trip(protocol):
    values = _record_values(np.random.default_rng(), 23)
    back = pickle.loads(pickle.dumps(gpuarray.to_gpu(values), protocol=protocol))
    assert back.dtype == values.dtype
    np.testing.assert_array_equal(back.get(), values)


def test_protocol_5_sends_the_values_out_of_band():
    host = np.random.default_rng().standard_normal(10_001)
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(gpuarray.to_gpu(host), protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and buffers[0].raw().nbytes == host.nbytes
    assert len(data) < 1000  # the values are not in the pickle itself
    np.testing.assert_array_equal(pickle.loads(data, buffers=buffers).get(), host)
    for array, read in ((cuda.to_device(host), lambda a: a.copy_to_host()),
                        (gpuarray.to_gpu(_record_values(np.random.default_rng(), 31)),
                         lambda a: a.get())):
        buffers = []
        data = pickle.dumps(array, protocol=5, buffer_callback=buffers.append)
        assert len(buffers) == 1
        np.testing.assert_array_equal(read(pickle.loads(data, buffers=buffers)), read(array))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_device_ndarray_round_trip(protocol):
    rng = np.random.default_rng()
    host = _random(rng, (19, 6), np.float32)
    records = _record_values(rng, 11)
    device = cuda.to_device(host)
    cases = {"C": (device, host), "F": (cuda.to_device(np.asfortranarray(host)), host),
             "strided": (device[::3, 1::2], host[::3, 1::2]),
             "records": (cuda.to_device(records), records),
             "0-d": (cuda.to_device(np.array(2.5)), np.array(2.5)),
             "complex": (cuda.to_device(_random(rng, (7,), np.complex128)), None)}
    for name, (array, expected) in cases.items():
        if expected is None:
            expected = array.copy_to_host()
        back = pickle.loads(pickle.dumps(array, protocol=protocol))
        assert isinstance(back, cuda.DeviceNDArray), name
        assert back.shape == expected.shape and back.dtype == expected.dtype, name
        np.testing.assert_array_equal(back.copy_to_host(), expected, err_msg=name)
    assert cuda.to_device(np.asfortranarray(host)).is_f_contiguous()
    back_f = pickle.loads(pickle.dumps(cases["F"][0], protocol=protocol))
    assert back_f.is_f_contiguous() and not back_f.is_c_contiguous()


def test_mapped_managed_and_pagelocked_arrays_pickle_as_numpy_arrays():
    rng = np.random.default_rng()
    made = [cuda.mapped_array(17, np.float32), cuda.managed_array(17, np.float32),
            drv.pagelocked_empty(17, np.float32), drv.managed_empty(17, np.float32)]
    for array in made:
        array[...] = rng.standard_normal(17)
        back = pickle.loads(pickle.dumps(array))
        assert type(back) is np.ndarray
        np.testing.assert_array_equal(back, array)


# ---- kernels in this process -----------------------------------------------------------------

def _axpb_expected(x: np.ndarray, a: float) -> np.ndarray:
    return (np.float32(a) * x + np.float32(1.5)).astype(np.float32)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_source_module_and_its_function_round_trip(protocol):
    module = SourceModule(pickle_kernels.SOURCE, options=pickle_kernels.SOURCE_OPTIONS)
    x = np.random.default_rng().standard_normal(1003).astype(np.float32)
    function = pickle.loads(pickle.dumps(module.get_function("axpb"), protocol=protocol))
    again = pickle.loads(pickle.dumps(module, protocol=protocol)).get_function("axpb")
    for kernel in (function, again):
        out = gpuarray.empty_like(gpuarray.to_gpu(x))
        kernel(out, gpuarray.to_gpu(x), np.float32(-0.75), np.int32(x.size),
               block=(128, 1, 1), grid=((x.size + 127) // 128, 1))
        np.testing.assert_allclose(out.get(), _axpb_expected(x, -0.75), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_array_kernels_round_trip(protocol):
    rng = np.random.default_rng()
    x = rng.standard_normal(1001).astype(np.float32)
    y = rng.standard_normal(1001).astype(np.float32)
    elementwise = ElementwiseKernel("float *z, const float *x, const float *y, float a",
                                    "z[i] = a * x[i] + y[i]", "axpy")
    reduction = ReductionKernel(np.float32, "0", "a+b", "x[i]*y[i]",
                                "const float *x, const float *y")
    inclusive = InclusiveScanKernel(np.float32, "a+b")
    exclusive = ExclusiveScanKernel(np.float32, "a+b", "0")
    elementwise, reduction, inclusive, exclusive = (
        pickle.loads(pickle.dumps(k, protocol=protocol))
        for k in (elementwise, reduction, inclusive, exclusive))
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    z = gpuarray.empty_like(x_gpu)
    elementwise(z, x_gpu, y_gpu, np.float32(2.5))
    np.testing.assert_allclose(z.get(), np.float32(2.5) * x + y, rtol=1e-6, atol=1e-6)
    terms = x.astype(np.float64) * y
    assert abs(float(reduction(x_gpu, y_gpu).get()) - terms.sum()) <= 1e-5 * np.abs(terms).sum()
    scale = np.abs(x).astype(np.float64).cumsum()
    np.testing.assert_allclose(inclusive(gpuarray.to_gpu(x)).get(), np.cumsum(x),
                               atol=float(1e-5 * scale[-1]))
    expected = np.concatenate([[0], np.cumsum(x)[:-1]])
    np.testing.assert_allclose(exclusive(gpuarray.to_gpu(x)).get(), expected,
                               atol=float(1e-5 * scale[-1]))


def test_kernel_options_not_for_another_process_stay_behind(capsys):
    kernel = ElementwiseKernel("float *z", "z[i] = 1", "ones", keep=True)
    capsys.readouterr()
    pickle.loads(pickle.dumps(kernel))
    assert "cudakit-keep" not in capsys.readouterr().out  # keep=True wrote once, not again
    reduction = ReductionKernel(np.float32, "0", "a+b", arguments="const float *x",
                                allocator=drv.mem_alloc)
    assert pickle.loads(pickle.dumps(reduction))._allocator is None


def test_module_level_jit_kernel_pickles_by_reference():
    for kernel in (pickle_kernels.fused_kernel, pickle_kernels.fused, pickle_kernels.plus_one,
                   pickle_kernels.multiply_add):
        assert pickle.loads(pickle.dumps(kernel)) is kernel


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_specialized_and_closure_kernels_round_trip(protocol):
    rng = np.random.default_rng()
    x = rng.standard_normal(301).astype(np.float32)
    y = rng.standard_normal(301).astype(np.float32)
    specialized = pickle_kernels.fused_kernel.specialize(
        cuda.to_device(x), cuda.to_device(x), cuda.to_device(y), np.float32(3))
    back = pickle.loads(pickle.dumps(specialized, protocol=protocol))
    assert back is not specialized and back.signatures == specialized.signatures
    out = cuda.device_array_like(x)
    back[(x.size + 63) // 64, 64](out, cuda.to_device(x), cuda.to_device(y), np.float32(3))
    np.testing.assert_allclose(out.copy_to_host(),
                               3 * x + np.sqrt(np.abs(y)) + pickle_kernels.OFFSET, rtol=1e-5,
                               atol=1e-6)

    shift = float(rng.integers(1, 9))

    @cuda.jit(device=True)
    def twice(v):
        return 2 * v

    @cuda.jit
    def closure_kernel(a):  # reads a closure variable, a device function and a module
        i = cuda.grid(1)
        if i < a.size:
            a[i] = twice(a[i]) + shift + pickle_kernels.OFFSET

    back = pickle.loads(pickle.dumps(closure_kernel, protocol=protocol))
    assert back is not closure_kernel
    a = cuda.to_device(x)
    back[(x.size + 31) // 32, 32](a)
    np.testing.assert_allclose(a.copy_to_host(), 2 * x + shift + pickle_kernels.OFFSET,
                               rtol=1e-6, atol=1e-6)


def test_cuda_ufuncs_round_trip():
    rng = np.random.default_rng()
    x = rng.standard_normal(77).astype(np.float32)
    y = rng.standard_normal(77).astype(np.float32)

    @cuda.guvectorize(["void(float32[:], float32[:])"], "(n)->()", target="cuda")
    def row_sum(row, out):
        total = 0.0
        for i in range(row.shape[0]):
            total += row[i]
        out[0] = total

    back = pickle.loads(pickle.dumps(row_sum))
    rows = rng.standard_normal((9, 13)).astype(np.float32)
    np.testing.assert_allclose(back(rows), rows.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(pickle.loads(pickle.dumps(pickle_kernels.multiply_add))(x, y),
                               x * y + 1, rtol=1e-6, atol=1e-6)


# ---- across a process boundary ---------------------------------------------------------------

def _closure_kernel(shift: float):
    # By source: reads a closure variable, a module's device function, names
    # imported from cudakit.cuda (which the translator knows by identity).
    @cuda.jit
    def add_shift(a):
        i = threadIdx.x + blockIdx.x * blockDim.x
        scratch = cuda.local.array(2, float32)
        if i < a.size:
            scratch[0] = float32(a[i])
            a[i] = pickle_kernels.fused(scratch[0], scratch[0], shift)

    return add_shift


def test_arrays_and_kernels_run_in_a_spawned_process():
    rng = np.random.default_rng()
    n = 517
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    matrix = np.asfortranarray(rng.standard_normal((13, 7)))
    records = _record_values(rng, 9)
    module = SourceModule(pickle_kernels.SOURCE, options=pickle_kernels.SOURCE_OPTIONS)
    elementwise = ElementwiseKernel("float *z, const float *x, float a", "z[i] = a * x[i] - 1",
                                    "affine")
    reduction = ReductionKernel(np.float64, "0", "a+b", "x[i]*x[i]", "const double *x")
    grid = (n + 127) // 128
    jobs = [
        ("identity", gpuarray.to_gpu(matrix)),
        ("identity", gpuarray.to_gpu(records)),
        ("identity", cuda.to_device(matrix)[::2, 1:]),
        ("function", module.get_function("axpb"),
         [gpuarray.empty(n, np.float32), gpuarray.to_gpu(x), np.float32(1.25), np.int32(n)],
         {"block": (128, 1, 1), "grid": (grid, 1)}),
        ("call", elementwise, [gpuarray.empty(n, np.float32), gpuarray.to_gpu(x),
                               np.float32(-2)]),
        ("call", reduction, [gpuarray.to_gpu(matrix.ravel())]),
        ("jit", pickle_kernels.fused_kernel, grid, 128,
         [cuda.device_array(n, np.float32), cuda.to_device(x), cuda.to_device(y),
          np.float32(0.5)]),
        ("jit", pickle_kernels.plus_one, grid, 128, [cuda.device_array(n, np.float32),
                                                     cuda.to_device(x)]),
        ("jit", _closure_kernel(1.75), grid, 128, [cuda.to_device(x)]),
        ("call", pickle_kernels.multiply_add, [x, y]),
    ]
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        results = pool.submit(pickle_kernels.run_jobs, jobs).result(timeout=300)
    (gpu_matrix, gpu_records, device_view, function_args, (_, elementwise_args),
     (dot, _), fused_args, plus_args, closure_args, (ufunc_out, _)) = results
    np.testing.assert_array_equal(gpu_matrix.get(), matrix)
    assert gpu_matrix.flags.f_contiguous
    np.testing.assert_array_equal(gpu_records.get(), records)
    np.testing.assert_array_equal(device_view.copy_to_host(), matrix[::2, 1:])
    np.testing.assert_allclose(function_args[0].get(), _axpb_expected(x, 1.25), rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(elementwise_args[0].get(), np.float32(-2) * x - 1, rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(float(dot.get()), float((matrix ** 2).sum()), rtol=1e-12)
    np.testing.assert_allclose(fused_args[0].copy_to_host(),
                               0.5 * x + np.sqrt(np.abs(y)) + pickle_kernels.OFFSET, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(plus_args[0].copy_to_host(), x + 1, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(closure_args[0].copy_to_host(),
                               1.75 * x + np.sqrt(np.abs(x)) + pickle_kernels.OFFSET, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(ufunc_out, x * y + 1, rtol=1e-6, atol=1e-6)


def test_a_kernel_defined_in_main_travels_as_its_source(tmp_path):
    """A kernel typed in `python -c` (its module is __main__) is pickled to a
    file; a fresh interpreter, which has no such __main__, unpickles and
    launches it."""
    x = np.random.default_rng().standard_normal(211).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    checked(run_code(f"""
        import pickle
        import numpy as np
        from cudakit import cuda
        FACTOR = 3.0

        @cuda.jit(device=True)
        def cube(v):
            return v * v * v

        @cuda.jit
        def main_kernel(out, x):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = FACTOR * cube(x[i]) + np.float32(0.5)

        x = cuda.to_device(np.load({str(tmp_path / "x.npy")!r}))
        with open({str(tmp_path / "job.pkl")!r}, "wb") as f:
            pickle.dump((main_kernel, x), f)
    """, CUDAKIT_BACKEND="cpu"))
    checked(run_code(f"""
        import pickle, sys
        import numpy as np
        with open({str(tmp_path / "job.pkl")!r}, "rb") as f:
            kernel, x = pickle.load(f)
        from cudakit import cuda
        out = cuda.device_array_like(x)
        kernel[(x.size + 63) // 64, 64](out, x)
        np.save({str(tmp_path / "out.npy")!r}, out.copy_to_host())
    """, CUDAKIT_BACKEND="cpu"))
    out = np.load(tmp_path / "out.npy")
    np.testing.assert_allclose(out, 3 * x ** 3 + 0.5, rtol=1e-5, atol=1e-6)


# ---- what cannot travel ----------------------------------------------------------------------

def _refusals():
    module = SourceModule(pickle_kernels.SOURCE, options=pickle_kernels.SOURCE_OPTIONS)
    return [
        (drv.Stream(), "a stream belongs to the context"),
        (drv.Event(), "an event belongs to the context"),
        (cuda.stream(), "make one with cuda.stream()"),
        (cuda.event(), "record one with cuda.event()"),
        (cuda.current_context(), "a context belongs to the process"),
        (drv.Device(0).retain_primary_context(), "a context belongs to the process"),
        (drv.mem_alloc(64), "raw device memory"),
        (gpuarray.to_gpu(np.ones(3)).gpudata, "a device address only this process"),
        (cuda.to_device(np.ones(3)).gpu_data, "a device address only this process"),
        (drv.pagelocked_empty(5, np.float32).base, "page-locked memory of this process"),
        (drv.managed_empty(5, np.float32).base, "managed memory of this process"),
        (pickle_kernels.fused_kernel[1, 32], "configure the launch in the receiving process"),
        (module._module.get_function("axpb"), "only kernels of a SourceModule travel"),
    ]


def test_what_cannot_travel_is_refused_with_the_reason():
    for obj, reason in _refusals():
        with pytest.raises(TypeError, match="cannot pickle") as raised:
            pickle.dumps(obj)
        assert isinstance(raised.value, pickle.PicklingError)
        assert reason in str(raised.value), (obj, str(raised.value))


def test_a_kernel_reading_a_value_that_cannot_travel_is_refused_naming_it():
    stream = cuda.stream()

    @cuda.jit
    def uses_stream(a):
        if stream is not None:
            a[0] = 1

    with pytest.raises(pickle.PicklingError, match="'stream' .*Stream.* cannot be pickled"):
        pickle.dumps(uses_stream)

    def make():
        return cuda.jit(lambda a: None)

    with pytest.raises(TypeError, match="a lambda .* cannot be sent"):
        pickle.dumps(make())
