"""ElementwiseKernel, ReductionKernel, InclusiveScanKernel and
ExclusiveScanKernel with PyCUDA's signatures."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.gpuarray as ga
from cudakit.elementwise import ElementwiseKernel, ScalarArg, VectorArg
from cudakit.reduction import ReductionKernel
from cudakit.scan import ExclusiveScanKernel, InclusiveScanKernel
from gpuarray_helpers import ODD_SIZES, assert_float_sum_close, random_array

# A GPU contracts a*x + y into one fused multiply-add (one rounding instead of
# two): where the sum cancels, the relative error of a float32 result grows,
# so compare with a few float32 ulps of the operands as an absolute margin.
FMA_ATOL = 1e-5


@pytest.mark.parametrize("size", ODD_SIZES)
def test_elementwise_axpy(size: int) -> None:
    x = random_array(size, np.float32)
    y = random_array(size, np.float32)
    z = ga.empty(size, np.float32)
    k = ElementwiseKernel("float a, float *x, float *y, float *z", "z[i] = a*x[i] + y[i]",
                          "axpy")
    k(2.5, ga.to_gpu(x), ga.to_gpu(y), z)
    np.testing.assert_allclose(z.get(), np.float32(2.5) * x + y, rtol=1e-6, atol=FMA_ATOL)


def test_elementwise_with_arg_objects_range_and_slice() -> None:
    x = random_array(100, np.float64)
    gx = ga.to_gpu(x)
    out = ga.zeros(100, np.float64)
    k = ElementwiseKernel([VectorArg(np.float64, "x"), VectorArg(np.float64, "y"),
                           ScalarArg(np.float64, "s")], "y[i] = s * x[i]")
    k(gx, out, 3.0, range=slice(10, 50, 2))
    expected = np.zeros(100)
    expected[10:50:2] = 3 * x[10:50:2]
    np.testing.assert_allclose(out.get(), expected)
    out.fill(0)
    k(gx, out, 3.0, slice=slice(90, None))
    expected = np.zeros(100)
    expected[90:] = 3 * x[90:]
    np.testing.assert_allclose(out.get(), expected)


def test_elementwise_reads_views_in_c_order() -> None:
    a = random_array((20, 30), np.float32)
    out = ga.empty(600, np.float32)
    ElementwiseKernel("float *x, float *y", "y[i] = x[i]")(ga.to_gpu(a).T, out)
    np.testing.assert_array_equal(out.get(), a.T.ravel())


def test_elementwise_bad_arguments() -> None:
    k = ElementwiseKernel("float *x, float *y", "y[i] = x[i]")
    with pytest.raises(ValueError):
        k(ga.to_gpu(np.zeros(3, np.float64)), ga.empty(3, np.float32))
    with pytest.raises((ValueError, TypeError)):
        k(ga.empty(3, np.float32))
    with pytest.raises(TypeError):
        k("x", ga.empty(3, np.float32))
    with pytest.raises(TypeError, match="unknown keyword"):
        k(ga.empty(3, np.float32), ga.empty(3, np.float32), blocks=4)
    with pytest.raises(TypeError, match="range= or slice="):
        k(ga.empty(3, np.float32), ga.empty(3, np.float32), range=slice(0, 3),
          slice=slice(0, 3))


@pytest.mark.parametrize("size", ODD_SIZES)
def test_reduction_dot(size: int) -> None:
    x = random_array(size, np.float32)
    y = random_array(size, np.float32)
    k = ReductionKernel(np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
                        arguments="const float *x, const float *y")
    r = k(ga.to_gpu(x), ga.to_gpu(y))
    assert_float_sum_close(r.get(), x * y)


def test_reduction_max_with_default_map() -> None:
    x = random_array(4099, np.int32)
    k = ReductionKernel(np.int32, neutral="-2147483647-1", reduce_expr="a > b ? a : b",
                        arguments="const int *in")
    assert int(k(ga.to_gpu(x)).get()) == x.max()


def test_reduction_bad_arguments() -> None:
    with pytest.raises(ValueError):
        ReductionKernel(np.float32, "0", "a+b", "x[i]")
    k = ReductionKernel(np.float32, "0", "a+b", "x[i]", "const float *x")
    with pytest.raises(ValueError):
        k(ga.to_gpu(np.zeros(3, np.int32)))


@pytest.mark.parametrize("size", ODD_SIZES)
def test_inclusive_scan_in_place(size: int) -> None:
    a = random_array(size, np.int32, low=-9, high=9)
    g = ga.to_gpu(a)
    r = InclusiveScanKernel(np.int32, "a+b")(g)
    assert r is g
    np.testing.assert_array_equal(g.get(), np.cumsum(a).astype(np.int32))


def test_exclusive_scan_into_output() -> None:
    a = random_array(1001, np.float64)
    out = ga.empty(1001, np.float64)
    ExclusiveScanKernel(np.float64, "a+b", "0")(ga.to_gpu(a), out)
    np.testing.assert_allclose(out.get(), np.concatenate([[0], np.cumsum(a)[:-1]]),
                               rtol=1e-12, atol=1e-9)


def test_scan_max() -> None:
    a = random_array(3000, np.float32)
    g = ga.to_gpu(a)
    InclusiveScanKernel(np.float32, "a > b ? a : b")(g)
    np.testing.assert_array_equal(g.get(), np.maximum.accumulate(a))
