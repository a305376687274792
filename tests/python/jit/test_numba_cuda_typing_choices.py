"""Where numba-cuda's kernels differ from the interpreter by design, cudakit
does as numba-cuda: max / min of two floats are fmax / fmin (a NaN operand
gives the other one), float() of a float keeps its width. Also the typing
record of a kernel (its typemap) and inspect_lto_ptx. Each kernel is
compared with the interpreter on fresh random inputs without NaN, and with
numba-cuda's rule where NaN enters."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda
from cudakit.cuda import float32, int32, void

from .interpreted import run_threads

RNG = np.random.default_rng()
N = 45  # threads, not a multiple of the block
BLOCK = 32


def launch(kernel, *args):  # type: ignore[no-untyped-def]
    device = [cuda.to_device(a) for a in args]
    kernel[(N + BLOCK - 1) // BLOCK, BLOCK](*device)
    return [d.copy_to_host() for d in device]


@cuda.jit
def min_max_kernel(a, b, out_max, out_min):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out_max.size:
        out_max[i] = max(a[i], b[i])
        out_min[i] = min(a[i], b[i])


@pytest.mark.parametrize("left, right", [(np.float32, np.float32), (np.float32, np.float64),
                                         (np.float64, np.float32), (np.float64, np.float64)])
def test_max_min_of_two_floats_match_the_interpreter(left, right):
    a = RNG.standard_normal(N).astype(left)
    b = RNG.standard_normal(N).astype(right)
    b[:5] = a[:5]  # ties
    out = np.result_type(left, right)
    args = (a, b, np.zeros(N, out), np.zeros(N, out))
    got = launch(min_max_kernel, *args)
    expected = run_threads(min_max_kernel, N, *args)
    np.testing.assert_array_equal(got[2], expected[2])
    np.testing.assert_array_equal(got[3], expected[3])


def test_max_min_of_two_floats_ignore_a_nan_as_numba_cuda():
    a = RNG.standard_normal(N).astype(np.float32)
    b = RNG.standard_normal(N).astype(np.float32)
    a[::3] = np.nan
    b[::5] = np.nan
    _, _, got_max, got_min = launch(min_max_kernel, a, b, np.zeros(N, np.float32),
                                    np.zeros(N, np.float32))
    np.testing.assert_array_equal(got_max, np.fmax(a, b))
    np.testing.assert_array_equal(got_min, np.fmin(a, b))


def test_max_min_of_integers_and_three_floats_stay_python_s():
    @cuda.jit
    def mixed(a, k, out):  # type: ignore[no-untyped-def]
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i, 0] = max(k[i], a[i])
            out[i, 1] = min(a[i], a[(i + 1) % a.size], a[(i + 2) % a.size])

    a = RNG.standard_normal(N)
    k = RNG.integers(-2, 3, N)
    args = (a, k, np.zeros((N, 2)))
    np.testing.assert_array_equal(launch(mixed, *args)[2], run_threads(mixed, N, *args)[2])


@cuda.jit
def float_of_kernel(x, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = float(x[i]) / 3


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_float_of_a_number_matches_the_interpreter(dtype):
    x = (RNG.standard_normal(N) * 100).astype(dtype)
    out = np.zeros(N, np.float64)
    got = launch(float_of_kernel, x, out)[1]
    np.testing.assert_array_equal(got, run_threads(float_of_kernel, N, x, out)[1])


def test_float_of_float32_stays_float32_in_the_typemap():
    @cuda.jit(void(float32[::1]))
    def kernel(x):  # type: ignore[no-untyped-def]
        y = float(x[0])
        x[0] = y

    (spec,) = kernel.overloads.values()
    assert spec._type_annotation.typemap["y"] == float32


@pytest.mark.parametrize("dtype", [int32, np.int32, "int32"])
def test_typemap_gives_a_shared_and_a_local_array_s_dtype(dtype):
    @cuda.jit(void(int32[::1]))
    def kernel(x):  # type: ignore[no-untyped-def]
        s = cuda.shared.array(10, dtype=dtype)
        loc = cuda.local.array(3, dtype=dtype)
        s[0] = x[0]
        loc[0] = s[0]
        x[0] = loc[0] + 1

    (spec,) = kernel.overloads.values()
    typemap = spec._type_annotation.typemap
    assert typemap["s"].dtype == int32 and typemap["loc"].dtype == int32
    assert typemap["x"].dtype == int32
    x = RNG.integers(-100, 100, 4).astype(np.int32)
    d = cuda.to_device(x)
    kernel[1, 1](d)
    assert d.copy_to_host()[0] == x[0] + 1


def lto_kernel(out, a, b):  # type: ignore[no-untyped-def]
    out[0] = max(a, b)


def test_inspect_lto_ptx_is_the_kernel_s_ptx():
    kernel = cuda.jit("void(float32[:], float32, float32)", lto=True)(lto_kernel)
    sig = (float32[:], float32, float32)
    assert kernel.inspect_lto_ptx(sig) == kernel.inspect_asm(sig)
