"""PyCUDA's pycuda.tools, characterize, compiler, reduction and gpuarray
names added to cudakit, checked against numpy / PyCUDA's documented
behaviour on fresh random input, and their refusals of bad input."""

from __future__ import annotations

import io
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit import characterize, compiler, reduction, tools
from cudakit.elementwise import ScalarArg, VectorArg
from hostile_cases import Case, case_id, check_refused

rng = np.random.default_rng()


@pytest.mark.parametrize("declaration,kind,dtype,name,char", [
    ("float *x", VectorArg, np.float32, "x", "P"),
    ("const double * __restrict__ y", VectorArg, np.float64, "y", "P"),
    ("unsigned int n", ScalarArg, np.uint32, "n", "I"),
    ("int a[]", VectorArg, np.int32, "a", "P"),
    ("long long k", ScalarArg, np.int64, "k", np.dtype(np.int64).char),
    ("pycuda::complex<float> *z", VectorArg, np.complex64, "z", "P"),
    ("float3 v", ScalarArg, gpuarray.vec.float3, "v", "12s"),
])
def test_parse_c_arg(declaration: str, kind: type, dtype: object, name: str, char: str) -> None:
    arg = tools.parse_c_arg(declaration)
    assert type(arg) is kind and arg.dtype == np.dtype(dtype) and arg.name == name
    assert tools.get_arg_type(declaration) == char
    assert isinstance(arg, tools.Argument) and tools.VectorArg is VectorArg
    assert repr(arg) == f"{kind.__name__}({name!r}, {np.dtype(dtype)})"


def test_base_dtype_to_ctype() -> None:
    assert tools.base_dtype_to_ctype(np.float32) == "float"
    assert tools.base_dtype_to_ctype(np.complex128) == "pycuda::complex<double>"


def test_mark_cuda_test_runs_with_a_context_and_clears_caches() -> None:
    calls = []

    @tools.context_dependent_memoize
    def cached(x: int) -> int:
        calls.append(x)
        return x * 2

    @tools.mark_cuda_test
    def body(value: int) -> int:
        assert drv.Context.get_current() is not None
        return cached(value)

    depth = len(drv._contexts.stack)
    assert body(21) == 42 and body(21) == 42
    assert calls == [21, 21]  # the cache was cleared after each run
    assert len(drv._contexts.stack) == depth  # the pushed context was popped
    assert cached in tools.context_dependent_memoized_functions
    assert "cuda" in [m.name for m in getattr(body, "pytestmark", [])]


def test_init_cuda_context_fixture_pushes_and_pops() -> None:
    depth = len(drv._contexts.stack)
    fixture = tools.init_cuda_context_fixture()
    next(fixture)
    assert len(drv._contexts.stack) == depth + 1
    with pytest.raises(StopIteration):
        next(fixture)
    assert len(drv._contexts.stack) == depth


@pytest.fixture
def init_cuda_context() -> object:
    # PyCUDA's own tests (test_gpuarray.py) use it this way.
    depth = len(drv._contexts.stack)
    yield from tools.init_cuda_context_fixture()
    assert len(drv._contexts.stack) == depth


def test_fixture_as_pycuda_tests_use_it(init_cuda_context: None) -> None:
    assert drv.Context.get_current() is not None
    data = rng.standard_normal(1001)
    np.testing.assert_array_equal(gpuarray.to_gpu(data).get(), data)


def test_debug_memory_pool_reports_allocations() -> None:
    log = io.StringIO()
    pool = tools.DebugMemoryPool(logfile=log)
    block = pool.allocate(3000)
    assert int(block) != 0 and "allocation of 3000 bytes" in log.getvalue()


def test_page_locked_allocator() -> None:
    allocation = tools.PageLockedAllocator().allocate(1000)
    view = np.frombuffer(allocation, np.uint8) if hasattr(allocation, "__buffer__") else None
    assert "1000 page-locked bytes" in repr(allocation) or view is not None


def test_characterize() -> None:
    assert characterize.platform_bits() == (64 if sys.maxsize > 2**32 else 32)
    assert characterize.has_double_support() in (True, False)
    assert characterize.has_stack() in (True, False)
    if drv.backend() == "cpu":
        assert characterize.has_double_support() and characterize.has_stack()
    assert characterize.sizeof("double") == 8 and characterize.sizeof("char") == 1
    assert characterize.sizeof("float3") == 12
    assert characterize.sizeof("struct pair", "struct pair { char c; double d; };") == 16


def test_get_nvcc_version_is_nvccs_text_or_pycudas_stand_in() -> None:
    version = compiler.get_nvcc_version()
    assert "nvcc" in version.lower()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert compiler.get_nvcc_version("/nonexistent/nvcc") == "nvcc unknown version"
    assert any("could not be determined" in str(w.message) for w in caught)


def test_cuda_module_is_the_base_of_modules() -> None:
    module = compiler.SourceModule("__global__ void k(float *a) { a[0] = 1; }")
    assert isinstance(module, compiler.CudaModule)


def test_preprocess_source_with_nvcc_or_a_clear_error() -> None:
    source = "#define TWICE(x) (2*(x))\nint f(int a) { return TWICE(a); }\n"
    try:
        text = compiler.preprocess_source(source, [])
    except compiler.CompileError as e:
        assert "nvcc" in str(e)
    else:
        assert "(2*(a))" in text.replace(" ", "") and "TWICE" not in text


@pytest.mark.parametrize("n", [1, 31, 1001, 100003])
def test_splay_covers_n(n: int) -> None:
    (blocks, one), (threads, one_y, one_z) = gpuarray.splay(n)
    assert one == one_y == one_z == 1 and threads % 32 == 0 and 32 <= threads <= 128
    max_blocks = 4 * tools.DeviceData().thread_blocks_per_mp * drv.Context.get_device(
    ).get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    assert blocks * threads >= n or blocks == max_blocks


def test_transpose_and_reshape_functions() -> None:
    data = rng.standard_normal((7, 13, 3))
    array = gpuarray.to_gpu(data)
    np.testing.assert_array_equal(gpuarray.transpose(array).get(), data.T)
    np.testing.assert_array_equal(gpuarray.transpose(array, (1, 0, 2)).get(),
                                  data.transpose(1, 0, 2))
    np.testing.assert_array_equal(gpuarray.reshape(array, (13, 21)).get(), data.reshape(13, 21))


F32, F64, I32 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32)


def test_reduction_builders_match_numpy() -> None:
    n = 1001
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    xi = rng.integers(-10**6, 10**6, n).astype(np.int32)
    lut = rng.integers(0, n, 333).astype(np.int32)
    xg, yg, xig, lutg = (gpuarray.to_gpu(a) for a in (x, y, xi, lut))
    close = np.testing.assert_allclose
    close(reduction.get_sum_kernel(None, F64)(xg).get(), x.sum(), rtol=1e-12)
    close(reduction.get_dot_kernel(F64, F64, F64)(xg, yg).get(), x @ y, rtol=1e-12)
    close(reduction.get_subset_sum_kernel(F64, I32, F64)(lutg, xg).get(), x[lut].sum(),
          rtol=1e-12)
    close(reduction.get_subset_dot_kernel(F64, I32, F64, F64)(lutg, xg, yg).get(),
          x[lut] @ y[lut], rtol=1e-12)
    assert reduction.get_minmax_kernel("max", I32)(xig).get() == xi.max()
    assert reduction.get_minmax_kernel("min", F64)(xg).get() == x.min()
    assert reduction.get_subset_minmax_kernel("max", F64, I32)(lutg, xg).get() == x[lut].max()
    zeros_at = x.copy()
    zeros_at[::7] = 0
    zg = gpuarray.to_gpu(zeros_at)
    assert reduction.get_any_kernel(I32, F64)(zg).get() == 1
    assert reduction.get_all_kernel(I32, F64)(zg).get() == 0
    assert reduction.get_all_kernel(I32, F64)(gpuarray.to_gpu(x + 100)).get() == 1
    assert reduction.get_minmax_neutral("min", np.int8) == "127"
    assert reduction.get_minmax_neutral("max", np.float32) == "-MY_INFINITY"


def test_autoprimaryctx_in_a_fresh_process() -> None:
    script = ("import cudakit.autoprimaryctx as a, cudakit.driver as d\n"
              "assert d.Context.get_current() is a.context\n"
              "assert a.device == a.context.get_device()\nprint('ok')\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


REFUSED = [
    Case("parse_c_arg not a str", lambda: tools.parse_c_arg(3), TypeError,
         r"expected a C declaration str"),
    Case("parse_c_arg no name", lambda: tools.parse_c_arg("float"), ValueError,
         r"could not read the C declaration 'float'"),
    Case("parse_c_arg unknown type", lambda: tools.parse_c_arg("matrix *m"), ValueError,
         r"unknown C type 'matrix'.*get_or_register_dtype"),
    Case("sizeof not a type", lambda: characterize.sizeof("no_such_type_here"),
         compiler.CompileError, r"no_such_type_here"),
    Case("sizeof empty", lambda: characterize.sizeof(""), TypeError, r"non-empty str"),
    Case("get_nvcc_version not a str", lambda: compiler.get_nvcc_version(None), TypeError,
         r"nvcc must be the nvcc command"),
    Case("preprocess_source bytes", lambda: compiler.preprocess_source(b"x", []), TypeError,
         r"source must be a str"),
    Case("minmax what", lambda: reduction.get_minmax_kernel("mid", F32), ValueError,
         r"'min' or 'max', got 'mid'"),
    Case("minmax complex", lambda: reduction.get_minmax_kernel("max", np.dtype(np.complex64)),
         TypeError, r"unsupported dtype complex64"),
    Case("minmax neutral of bool", lambda: reduction.get_minmax_neutral("min", np.bool_),
         TypeError, r"no min/max neutral for dtype bool"),
    Case("splay negative", lambda: gpuarray.splay(-1), ValueError, r"n must be >= 0"),
    Case("PageLockedAllocator negative", lambda: tools.PageLockedAllocator().allocate(-1),
         drv.ArgumentError, r"negative size -1"),
]


@pytest.mark.parametrize("case", REFUSED, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)


KERNEL_C = 'extern "C" __global__ void scale_by_two(float *a) { a[threadIdx.x] *= 2; }'


def test_compile_plain_compiles_the_source_as_given() -> None:
    ptx = compiler.compile_plain(KERNEL_C, ["-arch=sm_90"], False, "nvcc", None, "ptx")
    assert b".entry scale_by_two" in ptx  # the extern "C" name, unmangled


@pytest.mark.gpu
def test_module_from_buffer_gives_a_driver_module() -> None:
    image = compiler.compile_plain(KERNEL_C, [], False, "nvcc", None)
    module = drv.module_from_buffer(image)
    assert isinstance(module, drv.Module)
    data = rng.standard_normal(97).astype(np.float32)
    out = data.copy()
    module.get_function("scale_by_two")(drv.InOut(out), block=(97, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(out, data * 2)
