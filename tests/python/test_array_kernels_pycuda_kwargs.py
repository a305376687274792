"""The keyword arguments PyCUDA's generated kernels take: ElementwiseKernel's
loop_prep / after_loop / preamble / options / range / slice / stream,
ReductionKernel's and the scan kernels' preamble, neutral, several-argument
map_expr, options, stream, out, allocator."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.driver as drv
import cudakit.gpuarray as ga
from cudakit.elementwise import ElementwiseKernel
from cudakit.reduction import ReductionKernel
from cudakit.scan import ExclusiveScanKernel, InclusiveScanKernel
from gpuarray_helpers import ODD_SIZES, random_array


@pytest.mark.parametrize("size", ODD_SIZES)
def test_loop_prep_and_after_loop_run_once_per_thread(size: int) -> None:
    # Each thread sums the elements it visits in a variable loop_prep declares
    # and after_loop adds that once to a total: the total is the array's sum,
    # and a per-thread counter shows loop_prep ran before and after_loop after.
    x = random_array(size, np.int32, -1000, 1000)
    total = ga.zeros(1, np.int64)
    visits = ga.zeros(1, np.int64)
    k = ElementwiseKernel(
        "const int *x, long long *total, long long *visits",
        "mine += x[i]; ++seen",
        "per_thread_sum",
        preamble="#define ZERO 0",
        loop_prep="long long mine = ZERO; long long seen = 0",
        after_loop="if (seen > 0) { atomicAdd((unsigned long long*)total, "
                   "(unsigned long long)mine); atomicAdd((unsigned long long*)visits, "
                   "(unsigned long long)seen); }")
    k(ga.to_gpu(x), total, visits)
    assert int(total.get()[0]) == int(x.astype(np.int64).sum())
    assert int(visits.get()[0]) == size


def test_loop_prep_sees_pycuda_names_and_range() -> None:
    # tid / total_threads / cta_start exist as in PyCUDA's kernels; with
    # range= only the range's indices are visited.
    x = random_array(1001, np.float32)
    out = ga.zeros(1001, np.float32)
    k = ElementwiseKernel(
        "const float *x, float *y",
        "y[i] = x[i] * scale",
        loop_prep="const float scale = (total_threads > 0 && tid >= 0 && cta_start >= 0) "
                  "? 2.0f : 0.0f")
    k(ga.to_gpu(x), out, range=slice(3, 1000, 7))
    expected = np.zeros(1001, np.float32)
    expected[3:1000:7] = 2 * x[3:1000:7]
    np.testing.assert_array_equal(out.get(), expected)


def test_loop_prep_name_taken_by_an_argument() -> None:
    # An argument called tid wins over PyCUDA's per-thread name.
    x = random_array(37, np.int32)
    out = ga.zeros(37, np.int32)
    ElementwiseKernel("int tid, const int *x, int *y", "y[i] = x[i] + tid + j",
                      loop_prep="int j = 1")(5, ga.to_gpu(x), out)
    np.testing.assert_array_equal(out.get(), x + 6)


def test_loop_prep_compile_error_names_the_kernel() -> None:
    k = ElementwiseKernel("float *x", "x[i] = y", "broken_prep", loop_prep="float y = ;")
    with pytest.raises(drv.CompileError):
        k(ga.zeros(5, np.float32))


def test_elementwise_options_reach_the_compiler() -> None:
    # -D defines are honoured (and so are the other options, through the
    # compile cache rather than the generated-kernel cache).
    x = random_array(99, np.float32)
    out = ga.empty(99, np.float32)
    ElementwiseKernel("const float *x, float *y", "y[i] = x[i] * FACTOR",
                      options=["-DFACTOR=3.0f", "--use_fast_math"])(ga.to_gpu(x), out)
    np.testing.assert_allclose(out.get(), 3 * x, rtol=1e-6)


def test_elementwise_slice_with_stream() -> None:
    x = random_array(100, np.float64)
    out = ga.zeros(100, np.float64)
    s = drv.Stream()
    k = ElementwiseKernel("const double *x, double *y", "y[i] = -x[i]")
    k(ga.to_gpu(x), out, slice=slice(None, None, -3), stream=s)
    s.synchronize()
    expected = np.zeros(100)
    expected[::-3] = -x[::-3]
    np.testing.assert_array_equal(out.get(), expected)


@pytest.mark.parametrize("size", ODD_SIZES)
def test_reduction_map_expr_of_three_arguments_and_preamble(size: int) -> None:
    x = random_array(size, np.float64)
    y = random_array(size, np.float64)
    w = random_array(size, np.float64, 0, 1)
    k = ReductionKernel(np.float64, neutral=0, reduce_expr="a+b",
                        map_expr="weighted(x[i], y[i], w[i]) + offset",
                        arguments="const double *x, const double *y, const double *w, "
                                  "double offset",
                        preamble="__device__ double weighted(double a, double b, double c) "
                                 "{ return a * b * c; }")
    result = k(ga.to_gpu(x), ga.to_gpu(y), ga.to_gpu(w), 0.5)
    np.testing.assert_allclose(result.get(), np.sum(x * y * w + 0.5), rtol=1e-10)


def test_reduction_neutral_as_number_options_define_out_and_stream() -> None:
    x = random_array(4099, np.float32)
    k = ReductionKernel(np.float32, neutral=-1e30, reduce_expr="fmaxf(a, b)",
                        map_expr="x[i] * SCALE", arguments="const float *x",
                        options=["-DSCALE=2.0f"])
    s = drv.Stream()
    out = ga.zeros((), np.float32)
    assert k(ga.to_gpu(x), stream=s, out=out) is out
    s.synchronize()
    assert out.get() == np.float32(2) * x.max()
    with pytest.raises(TypeError, match="not supported"):
        ReductionKernel(np.float32, "0", "a+b", arguments="const float *x", options=["-G"])
    with pytest.raises(TypeError, match="unknown keyword"):
        k(ga.to_gpu(x), block=128)
    with pytest.raises(ValueError, match="out is"):
        k(ga.to_gpu(x), out=ga.zeros((), np.float64))


def test_reduction_result_on_the_call_stream() -> None:
    x = ga.to_gpu(random_array(1000, np.float32))
    s = drv.Stream()
    k = ReductionKernel(np.float32, "0", "a+b", arguments="const float *x")
    result = k(x, stream=s)
    assert result.stream.handle == s.handle
    # float32 sums in another order: the bound scales with the terms' sizes
    # (the sum itself may cancel to near 0).
    terms = x.get().astype(np.float64)
    np.testing.assert_allclose(result.get(), terms.sum(), rtol=0, atol=1e-6 * np.abs(terms).sum())


def test_scan_options_and_stream() -> None:
    x = random_array(1001, np.int32, -100, 100)
    s = drv.Stream()
    k = InclusiveScanKernel(np.int32, "a + b + EXTRA", options=["-DEXTRA=0"])
    out = ga.empty(1001, np.int32)
    k(ga.to_gpu(x), out, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out.get(), np.cumsum(x))
    e = ExclusiveScanKernel(np.int32, "a > b ? a : b", neutral=-1000)
    g = ga.to_gpu(x)
    e(g, stream=s)
    s.synchronize()
    expected = np.maximum.accumulate(np.concatenate([[-1000], x[:-1]]))
    np.testing.assert_array_equal(g.get(), expected)


STRUCT_PREAMBLE = """
struct minmax_pair
{
    float lo;
    float hi;
    __device__ minmax_pair() { }
    __device__ minmax_pair(float l, float h) : lo(l), hi(h) { }
    __device__ minmax_pair(minmax_pair const &src) : lo(src.lo), hi(src.hi) { }
    __device__ minmax_pair volatile &operator=(minmax_pair const &src) volatile
    {
        lo = src.lo;
        hi = src.hi;
        return *this;
    }
};

__device__ minmax_pair fold_pair(minmax_pair a, minmax_pair b)
{
    return minmax_pair(fminf(a.lo, b.lo), fmaxf(a.hi, b.hi));
}
"""


@pytest.mark.parametrize("size", ODD_SIZES + (70001,))
def test_struct_reduction(size: int) -> None:
    from cudakit.tools import get_or_register_dtype

    pair = get_or_register_dtype("minmax_pair",
                                 np.dtype([("lo", np.float32), ("hi", np.float32)]))
    k = ReductionKernel(pair, neutral="minmax_pair(1e30f, -1e30f)", reduce_expr="fold_pair(a, b)",
                        map_expr="minmax_pair(x[i] * s, x[i] * s)",
                        arguments="const float *x, float s", preamble=STRUCT_PREAMBLE)
    x = random_array(size, np.float32)
    result = k(ga.to_gpu(x), 2.0)
    value = result.get()
    assert value.dtype == pair and value.shape == ()
    assert value["lo"] == 2 * x.min() and value["hi"] == 2 * x.max()
    # On a stream, into allocator memory.
    s = drv.Stream()
    requests: list[int] = []

    def alloc(nbytes: int) -> drv.DeviceAllocation:
        requests.append(nbytes)
        return drv.mem_alloc(nbytes)

    on_s = k(ga.to_gpu(x), 1.0, stream=s, allocator=alloc)
    assert requests == [8] and on_s.stream.handle == s.handle
    assert on_s.get(stream=s)["hi"] == x.max()


def test_struct_reduction_bad_input() -> None:
    from cudakit.tools import get_or_register_dtype

    pair = get_or_register_dtype("minmax_pair",
                                 np.dtype([("lo", np.float32), ("hi", np.float32)]))
    k = ReductionKernel(pair, "minmax_pair(0, 0)", "fold_pair(a, b)",
                        "minmax_pair(x[i], x[i])", "const float *x", preamble=STRUCT_PREAMBLE)
    with pytest.raises(ValueError, match="contiguous"):
        k(ga.to_gpu(random_array((4, 5), np.float32)).T)
    with pytest.raises(TypeError, match="out="):
        k(ga.to_gpu(random_array(5, np.float32)), out=ga.zeros(2, np.float32))
    # A registered dtype of the wrong size is a compile error naming it.
    wrong = get_or_register_dtype("wrong_size_pair", np.dtype([("lo", np.float64)]))
    bad = ReductionKernel(wrong, "wrong_size_pair()", "a", "wrong_size_pair()", "const float *x",
                          preamble="struct wrong_size_pair { float a, b, c; "
                                   "__device__ wrong_size_pair() {} };")
    with pytest.raises(drv.CompileError, match="sizeof"):
        bad(ga.to_gpu(random_array(5, np.float32)))
    unregistered = np.dtype([("p", np.int32), ("q", np.int8)])
    with pytest.raises(drv.ArgumentError, match="register"):
        ReductionKernel(unregistered, "0", "a", "x[i]", "const int *x")


def test_scan_output_new_uses_the_allocator() -> None:
    requests: list[int] = []

    def alloc(nbytes: int) -> drv.DeviceAllocation:
        requests.append(nbytes)
        return drv.mem_alloc(nbytes)

    x = random_array(1001, np.float64)
    gx = ga.to_gpu(x)
    out = InclusiveScanKernel(np.float64, "a + b")(gx, "new", allocator=alloc)
    assert requests == [8008] and out.allocator is alloc
    np.testing.assert_allclose(out.get(), np.cumsum(x), rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(gx.get(), x)  # the input is untouched
    with pytest.raises(ValueError, match="'new'"):
        InclusiveScanKernel(np.float64, "a + b")(gx, "fresh")
