"""PyCUDA's elementwise kernel builders (cudakit.elementwise.get_*_kernel),
launched as PyCUDA's gpuarray launches them (prepared_async_call with the
element count last), against numpy on fresh random input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.gpuarray as gpuarray
from cudakit import elementwise as el
from hostile_cases import Case, case_id, check_refused

N = 1001  # not a multiple of the block size
GRID, BLOCK = (3, 1), (128, 1, 1)  # fewer threads than elements: the loop strides
rng = np.random.default_rng()
f32, f64, i32, c64 = (np.dtype(t) for t in (np.float32, np.float64, np.int32, np.complex64))


def rand(dtype: np.dtype, n: int = N, low: float = 0.5, high: float = 2.0) -> np.ndarray:
    if dtype.kind == "c":
        return (rng.uniform(low, high, n) + 1j * rng.uniform(low, high, n)).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(1, 100, n).astype(dtype)
    return rng.uniform(low, high, n).astype(dtype)


def launch(func: Any, *args: Any, n: int = N) -> None:
    func.prepared_async_call(GRID, BLOCK, None, *args, n)


@dataclass(frozen=True)
class Kernel:
    name: str
    run: Callable[[], tuple[np.ndarray, np.ndarray]]  # (cudakit's, numpy's)


def axpbyz() -> tuple:
    x, y = rand(f32), rand(f32)
    z = gpuarray.empty(N, f32)
    xg, yg = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    launch(el.get_axpbyz_kernel(f32, f32, f32), np.float32(2.5), xg.gpudata, np.float32(-1.5),
           yg.gpudata, z.gpudata)
    return z.get(), 2.5 * x - 1.5 * y


def axpbyz_scalar_y() -> tuple:
    x, y = rand(f64), rand(f64, 1)
    z = gpuarray.empty(N, f64)
    launch(el.get_axpbyz_kernel(f64, f64, f64, y_is_scalar=True), 3.0,
           gpuarray.to_gpu(x).gpudata, 2.0, gpuarray.to_gpu(y).gpudata, z.gpudata)
    return z.get(), 3 * x + 2 * y[0]


def axpbz() -> tuple:
    x = rand(f32)
    z = gpuarray.empty(N, f32)
    launch(el.get_axpbz_kernel(f32, f32), np.float32(4), gpuarray.to_gpu(x).gpudata,
           np.float32(0.25), z.gpudata)
    return z.get(), 4 * x + 0.25


def binary_op(op: str, ref: Callable) -> Callable[[], tuple]:
    def run() -> tuple:
        x, y = rand(f64), rand(f64)
        z = gpuarray.empty(N, f64)
        launch(el.get_binary_op_kernel(f64, f64, f64, op), gpuarray.to_gpu(x).gpudata,
               gpuarray.to_gpu(y).gpudata, z.gpudata)
        return z.get(), ref(x, y)
    return run


def binary_op_complex_real() -> tuple:
    x, y = rand(c64), rand(f32)
    z = gpuarray.empty(N, c64)
    launch(el.get_binary_op_kernel(c64, f32, c64, "*"), gpuarray.to_gpu(x).gpudata,
           gpuarray.to_gpu(y).gpudata, z.gpudata)
    return z.get(), x * y


def rdivide() -> tuple:
    x = rand(f32)
    z = gpuarray.empty(N, f32)
    launch(el.get_rdivide_elwise_kernel(f32, f32), gpuarray.to_gpu(x).gpudata, np.float32(3),
           z.gpudata)
    return z.get(), 3 / x


def fill() -> tuple:
    z = gpuarray.to_gpu(rand(i32))
    launch(el.get_fill_kernel(i32), np.int32(-7), z.gpudata)
    return z.get(), np.full(N, -7, np.int32)


def reverse() -> tuple:
    y = rand(f32)
    z = gpuarray.empty(N, f32)
    launch(el.get_reverse_kernel(f32), gpuarray.to_gpu(y).gpudata, z.gpudata)
    return z.get(), y[::-1]


def arange() -> tuple:
    z = gpuarray.empty(N, f64)
    launch(el.get_arange_kernel(f64), z.gpudata, 1.5, 0.25)
    return z.get(), 1.5 + np.arange(N) * 0.25


def pow_array(base_array: bool, exp_array: bool) -> Callable[[], tuple]:
    def run() -> tuple:
        x, y = rand(f32), rand(f32)
        z = gpuarray.empty(N, f32)
        x_arg = gpuarray.to_gpu(x).gpudata if base_array else np.float32(x[0])
        y_arg = gpuarray.to_gpu(y).gpudata if exp_array else np.float32(y[0])
        launch(el.get_pow_array_kernel(f32, f32, f32, base_array, exp_array), x_arg, y_arg,
               z.gpudata)
        return z.get(), (x if base_array else x[0]) ** (y if exp_array else y[0])
    return run


def take() -> tuple:
    src = rand(f32)
    idx = rng.integers(0, N, 777).astype(np.int32)
    dest = gpuarray.empty(777, f32)
    func, textures = el.get_take_kernel(f32, i32)
    assert textures == []
    launch(func, gpuarray.to_gpu(idx).gpudata, dest.gpudata, gpuarray.to_gpu(src).gpudata,
           n=777)
    return dest.get(), src[idx]


def take_put_offsets() -> tuple:
    src = rand(f32)
    dest_idx = rng.permutation(N)[:500].astype(np.int32)
    src_idx = rng.integers(0, N - 5, 500).astype(np.int32)
    dest = rand(f32)
    dest_gpu = gpuarray.to_gpu(dest)
    func, _ = el.get_take_put_kernel(f32, i32, True)
    launch(func, gpuarray.to_gpu(dest_idx).gpudata, gpuarray.to_gpu(src_idx).gpudata,
           dest_gpu.gpudata, gpuarray.to_gpu(src).gpudata, np.int32(5), n=500)
    dest[dest_idx] = src[src_idx + 5]
    return dest_gpu.get(), dest


def put() -> tuple:
    src = rand(f64, 600)
    dest_idx = rng.permutation(N)[:600].astype(np.int64)
    dest = rand(f64)
    dest_gpu = gpuarray.to_gpu(dest)
    launch(el.get_put_kernel(f64, np.dtype(np.int64)), gpuarray.to_gpu(dest_idx).gpudata,
           dest_gpu.gpudata, gpuarray.to_gpu(src).gpudata, n=600)
    dest[dest_idx] = src
    return dest_gpu.get(), dest


def copy() -> tuple:
    src = rand(f64)
    dest = gpuarray.empty(N, f32)
    launch(el.get_copy_kernel(f32, f64), dest.gpudata, gpuarray.to_gpu(src).gpudata)
    return dest.get(), src.astype(np.float32)


def linear_combination() -> tuple:
    x0, x1, a1 = rand(f32), rand(f32), rand(f32, 1)
    z = gpuarray.empty(N, f32)
    func, _ = el.get_linear_combination_kernel(((False, f32, f32), (True, f32, f32)), f32)
    launch(func, np.float32(2), gpuarray.to_gpu(x0).gpudata, gpuarray.to_gpu(a1).gpudata,
           gpuarray.to_gpu(x1).gpudata, z.gpudata)
    return z.get(), 2 * x0 + a1[0] * x1


def unary(func: str, ref: Callable) -> Callable[[], tuple]:
    def run() -> tuple:
        y = rand(f64)
        z = gpuarray.empty(N, f64)
        launch(el.get_unary_func_kernel(func, f64), gpuarray.to_gpu(y).gpudata, z.gpudata)
        return z.get(), ref(y)
    return run


def minmax(use_scalar: bool) -> tuple:
    x, y = rand(f32), rand(f32)
    z = gpuarray.empty(N, f32)
    func = el.get_binary_minmax_kernel("max", f32, f32, f32, use_scalar)
    y_arg = np.float32(1.0) if use_scalar else gpuarray.to_gpu(y).gpudata
    launch(func, gpuarray.to_gpu(x).gpudata, y_arg, z.gpudata)
    return z.get(), np.maximum(x, 1.0 if use_scalar else y)


def where(builder: Callable, ref: Callable) -> Callable[[], tuple]:
    def run() -> tuple:
        crit = rng.integers(-2, 3, N).astype(np.int32)
        a, b = rand(f32), rand(f32)
        out = gpuarray.empty(N, f32)
        launch(builder(i32, f32), gpuarray.to_gpu(crit).gpudata, gpuarray.to_gpu(a).gpudata,
               gpuarray.to_gpu(b).gpudata, out.gpudata)
        return out.get(), np.where(ref(crit), a, b)
    return run


def scalar_op() -> tuple:
    x = rand(f64)
    y = gpuarray.empty(N, f64)
    launch(el.get_scalar_op_kernel(f64, f64, f64, "-"), gpuarray.to_gpu(x).gpudata, 0.75,
           y.gpudata)
    return y.get(), x - 0.75


def logical_not() -> tuple:
    x = rng.integers(0, 2, N).astype(np.int32)
    out = gpuarray.empty(N, np.int8)
    launch(el.get_logical_not_kernel(i32, np.dtype(np.int8)), gpuarray.to_gpu(x).gpudata,
           out.gpudata)
    return out.get(), (x == 0).astype(np.int8)


def complex_parts(builder: Callable, ref: Callable) -> Callable[[], tuple]:
    def run() -> tuple:
        y = rand(c64)
        out_dtype = c64 if builder is el.get_conj_kernel else f32
        z = gpuarray.empty(N, out_dtype)
        launch(builder(c64, out_dtype), gpuarray.to_gpu(y).gpudata, z.gpudata)
        return z.get(), ref(y)
    return run


def float_pair(builder: Callable, ref: Callable) -> Callable[[], tuple]:
    def run() -> tuple:
        a, b = rand(f32, low=-4, high=4), rand(f32, low=1, high=3)
        out1, out2 = gpuarray.empty(N, f32), gpuarray.empty(N, f32)
        if builder is el.get_fmod_kernel:
            launch(builder(), gpuarray.to_gpu(a).gpudata, gpuarray.to_gpu(b).gpudata,
                   out1.gpudata)
            return out1.get(), np.fmod(a, b)
        if builder is el.get_ldexp_kernel:
            e = np.floor(b)
            launch(builder(), gpuarray.to_gpu(a).gpudata, gpuarray.to_gpu(e).gpudata,
                   out1.gpudata)
            return out1.get(), np.ldexp(a, e.astype(np.int32))
        launch(builder(), gpuarray.to_gpu(a).gpudata, out1.gpudata, out2.gpudata)
        return np.stack([out1.get(), out2.get()]), ref(a)
    return run


def general_kernel() -> tuple:
    x = rand(f32)
    z = gpuarray.empty(N, f32)
    func = el.get_elwise_kernel("float *z, const float *x, float a", "z[i] = a*x[i]*x[i]",
                                "square_scaled")
    launch(func, z.gpudata, gpuarray.to_gpu(x).gpudata, np.float32(3))
    return z.get(), 3 * x * x


def range_kernel() -> tuple:
    x = rand(f32)
    xg = gpuarray.to_gpu(x)
    _, func, _ = el.get_elwise_kernel_and_types("float *x", "x[i] = -x[i]", "negate_range",
                                                use_range=True)
    func.prepared_async_call(GRID, BLOCK, None, xg.gpudata, 3, N - 2, 5)
    x[3:N - 2:5] *= -1
    return xg.get(), x


KERNELS = [
    Kernel("axpbyz", axpbyz), Kernel("axpbyz y scalar", axpbyz_scalar_y),
    Kernel("axpbz", axpbz), Kernel("binary_op +", binary_op("+", np.add)),
    Kernel("binary_op /", binary_op("/", np.divide)),
    Kernel("binary_op complex*real", binary_op_complex_real), Kernel("rdivide", rdivide),
    Kernel("fill", fill), Kernel("reverse", reverse), Kernel("arange", arange),
    Kernel("pow array**array", pow_array(True, True)),
    Kernel("pow array**scalar", pow_array(True, False)),
    Kernel("pow scalar**array", pow_array(False, True)), Kernel("take", take),
    Kernel("take_put with offsets", take_put_offsets), Kernel("put", put),
    Kernel("copy float64->float32", copy), Kernel("linear_combination", linear_combination),
    Kernel("unary sqrt", unary("sqrt", np.sqrt)), Kernel("unary exp", unary("exp", np.exp)),
    Kernel("binary_minmax arrays", lambda: minmax(False)),
    Kernel("binary_minmax scalar", lambda: minmax(True)),
    Kernel("if_positive", where(el.get_if_positive_kernel, lambda c: c > 0)),
    Kernel("where", where(el.get_where_kernel, lambda c: c != 0)),
    Kernel("scalar_op", scalar_op), Kernel("logical_not", logical_not),
    Kernel("real", complex_parts(el.get_real_kernel, np.real)),
    Kernel("imag", complex_parts(el.get_imag_kernel, np.imag)),
    Kernel("conj", complex_parts(el.get_conj_kernel, np.conj)),
    Kernel("fmod", float_pair(el.get_fmod_kernel, None)),
    Kernel("ldexp", float_pair(el.get_ldexp_kernel, None)),
    Kernel("modf", float_pair(el.get_modf_kernel, lambda a: np.stack(np.modf(a)[::-1]))),
    Kernel("frexp", float_pair(el.get_frexp_kernel, lambda a: np.stack(
        [np.frexp(a)[0], np.frexp(a)[1].astype(np.float32)]))),
    Kernel("get_elwise_kernel", general_kernel), Kernel("use_range", range_kernel),
]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.name)
def test_kernel_matches_numpy(kernel: Kernel) -> None:
    got, expected = kernel.run()
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)


def test_every_pycuda_builder_is_here() -> None:
    for name in el._kernel_builders:
        assert callable(getattr(el, name)), name


def test_builders_are_memoized_per_context() -> None:
    assert el.get_fill_kernel(f32) is el.get_fill_kernel(f32)
    assert el.get_fill_kernel(f32) is not el.get_fill_kernel(f64)


REFUSED = [
    Case("binary_op operator", lambda: el.get_binary_op_kernel(f32, f32, f32, "+;"),
         ValueError, r"operator '\+;' is not a C binary operator"),
    Case("scalar_op operator", lambda: el.get_scalar_op_kernel(f32, f32, f32, "**"),
         ValueError, r"operator '\*\*'"),
    Case("minmax func", lambda: el.get_binary_minmax_kernel("mean", f32, f32, f32, False),
         ValueError, r"'max' or 'min', got 'mean'"),
    Case("pow neither array", lambda: el.get_pow_array_kernel(f32, f32, f32, False, False),
         ValueError, r"is_base_array or is_exp_array"),
    Case("take vec_count 0", lambda: el.get_take_kernel(f32, i32, 0), ValueError,
         r"vec_count must be an int >= 1, got 0"),
    Case("unary func not a name", lambda: el.get_unary_func_kernel("1+", f32), ValueError,
         r"C function name"),
    Case("linear combination of nothing", lambda: el.get_linear_combination_kernel((), f32),
         ValueError, r"at least one summand"),
    Case("elwise unknown C type", lambda: el.get_elwise_kernel("quux *x", "x[i] = 0"),
         ValueError, r"unknown C type 'quux'"),
    Case("elwise bad declaration", lambda: el.get_elwise_kernel("float *", "x[i] = 0"),
         ValueError, r"could not read the C declaration"),
    Case("elwise unknown keyword", lambda: el.get_elwise_kernel("float *x", "x[i]=0",
                                                                 loop_pre="int k"),
         TypeError, r"loop_pre"),
    Case("elwise kernel name", lambda: el.get_elwise_kernel("float *x", "x[i]=0", "a b"),
         ValueError, r"C identifier, got 'a b'"),
]


@pytest.mark.parametrize("case", REFUSED, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)
