"""Hostile input to ElementwiseKernel and ReductionKernel: arrays of
different sizes (refused where the operation would index one past its end;
with range= / slice= the arrays only need to cover the range), bad ranges,
numbers that do not fit their parameter, options given as one string."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit import gpuarray
from cudakit.elementwise import ElementwiseKernel
from cudakit.reduction import ReductionKernel
from gpuarray_helpers import assert_float_sum_close, random_array
from hostile_cases import Case, case_id, check_refused

rng = np.random.default_rng()


def floats(n: int) -> gpuarray.GPUArray:
    return gpuarray.to_gpu(random_array((n,), np.float32))


ADD = ElementwiseKernel("const float *x, const float *y, float *z", "z[i] = x[i] + y[i]",
                        "hostile_add")
DOT = ReductionKernel(np.float32, "0", "a + b", "x[i] * y[i]",
                      "const float *x, const float *y", name="hostile_dot")
SCALED_SUM = ReductionKernel(np.float32, "0", "a + b", "x[i] * s",
                             "const float *x, unsigned char s", name="hostile_scaled_sum")
COUNT_SUM = ReductionKernel(np.float32, "0", "a + b", "x[i] * n",
                            "const float *x, int n", name="hostile_count_sum")

CASES = [
    Case("a number wider than 64 bits", lambda: COUNT_SUM(floats(5), 2**70), ValueError,
         r"Python integer 1180591620717411303424 out of bounds"),
    Case("a shorter input", lambda: ADD(floats(10), floats(5), floats(10)), ValueError,
         r"indexes 'y' \(5 elements\) with i, which runs over indices 0\.\.9 \(the first "
         r"array's size, 10\); array sizes: x: 10, y: 5, z: 10"),
    Case("a shorter output", lambda: ADD(floats(10), floats(10), floats(3)), ValueError,
         r"'z' \(3 elements\)(.|\n)*range= / slice= covering only the indices"),
    Case("two shorter arrays", lambda: ADD(floats(10), floats(4), floats(6)), ValueError,
         r"'y' \(4 elements\), 'z' \(6 elements\)"),
    Case("a range past an array", lambda: ADD(floats(10), floats(5), floats(10),
                                             range=slice(0, 8)),
         ValueError, r"'y' \(5 elements\)(.|\n)*the range given \(start 0, stop 8, step 1\)"),
    Case("a range past every array", lambda: ADD(floats(5), floats(5), floats(5),
                                                range=slice(2, 9, 3)),
         ValueError, r"indices 2\.\.8"),
    Case("a negative range", lambda: ADD(floats(5), floats(5), floats(5), range=slice(-2, 3)),
         ValueError, r"indices -2\.\.2"),
    Case("a slice past an array", lambda: ADD(floats(10), floats(4), floats(10),
                                             slice=slice(1, None)),
         ValueError, r"'y' \(4 elements\)"),
    Case("range without a start", lambda: ADD(floats(5), floats(5), floats(5),
                                             range=slice(None, 5)),
         drv.ArgumentError, r"range=: start and stop are required(.|\n)*use slice="),
    Case("range of floats", lambda: ADD(floats(5), floats(5), floats(5), range=slice(0.5, 5)),
         TypeError, "range=: start must be an integer, got float"),
    Case("range of 2**70", lambda: ADD(floats(5), floats(5), floats(5), range=slice(0, 2**70)),
         drv.ArgumentError, r"range=: stop must be in -9223372036854775808\.\."),
    Case("range an int", lambda: ADD(floats(5), floats(5), floats(5), range=5), TypeError,
         r"range= must be a slice\(start, stop\[, step\]\) or a range, got int"),
    Case("range step zero", lambda: ADD(floats(5), floats(5), floats(5), range=slice(0, 5, 0)),
         ValueError, "the range step cannot be zero"),
    Case("slice an int", lambda: ADD(floats(5), floats(5), floats(5), slice=3), TypeError,
         r"slice= must be a slice"),
    Case("slice step zero", lambda: ADD(floats(5), floats(5), floats(5), slice=slice(0, 5, 0)),
         drv.ArgumentError, "step must not be zero"),
    Case("slice of floats", lambda: ADD(floats(5), floats(5), floats(5), slice=slice(1.5, 3)),
         TypeError, "slice=: start must be an integer"),
    Case("None for an array", lambda: ADD(floats(5), None, floats(5)), TypeError,
         "kernel argument 1: expected a GPUArray or a number, got NoneType"),
    Case("a float64 array for float*", lambda: ADD(floats(5), floats(5).astype(np.float64),
                                                  floats(5)),
         ValueError, "points to float32 but the array holds float64"),
    Case("too few arguments", lambda: ADD(floats(5), floats(5)), ValueError,
         "expected 3 arguments"),
    Case("unknown keyword", lambda: ADD(floats(5), floats(5), floats(5), grid=(1, 1)),
         TypeError, "unknown keyword arguments grid"),
    Case("options an int", lambda: ElementwiseKernel("float *x", "x[i] = 0", options=7),
         drv.ArgumentError, "ElementwiseKernel kernel: options must be a list of strings"),
    Case("reduction over a shorter second array", lambda: DOT(floats(10), floats(5)),
         ValueError, r"indexes 'y' \(5 elements\) with i, which runs over the first array's "
                     r"10 elements; array sizes: x: 10, y: 5"),
    Case("reduction number out of range", lambda: SCALED_SUM(floats(5), 300), ValueError,
         "300 is out of range for uint8"),
    Case("reduction fraction for an int", lambda: COUNT_SUM(floats(5), 2.5), ValueError,
         "is an integer, but 2.5 was passed"),
    Case("reduction None for an array", lambda: DOT(floats(5), None), TypeError,
         "kernel argument 1: expected a GPUArray or a number, got NoneType"),
    Case("reduction options an int",
         lambda: ReductionKernel(np.float32, "0", "a+b", "x[i]", "const float *x", options=3),
         drv.ArgumentError, "options must be a list of strings"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)


def test_refused_call_writes_nothing() -> None:
    z = floats(10)
    before = z.get()
    with pytest.raises(ValueError):
        ADD(floats(10), floats(5), z)
    np.testing.assert_array_equal(z.get(), before)


@pytest.mark.parametrize("keyword, key", [
    ("range", slice(0, 5)), ("range", slice(0, 5, None)), ("range", slice(1, 5, 2)),
    ("range", range(0, 5)), ("range", slice(4, -1, -1)), ("slice", slice(0, 5)),
    ("slice", slice(None, 5)), ("slice", slice(-37, 5)), ("slice", slice(4, None, -2))])
def test_arrays_need_only_cover_the_range(keyword, key) -> None:
    n_long, n_short = 37, 5
    x, y, z = random_array((n_long,), np.float32), random_array((n_short,), np.float32), \
        random_array((n_long,), np.float32)
    z_gpu = gpuarray.to_gpu(z)
    ADD(gpuarray.to_gpu(x), gpuarray.to_gpu(y), z_gpu, **{keyword: key})
    if keyword == "slice":  # Python's slice rules against the first array's size
        indices = list(range(*key.indices(n_long)))
    else:
        indices = list(range(key.start, key.stop, key.step or 1))
    expected = z.copy()
    expected[indices] = x[indices] + y[indices]
    np.testing.assert_array_equal(z_gpu.get(), expected)


def test_range_on_a_stream() -> None:
    x, y = random_array((37,), np.float32), random_array((5,), np.float32)
    z = gpuarray.zeros(37, np.float32)
    stream = drv.Stream()
    ADD(gpuarray.to_gpu(x), gpuarray.to_gpu(y), z, slice=slice(0, 5), stream=stream)
    stream.synchronize()
    expected = np.zeros(37, np.float32)
    expected[:5] = x[:5] + y
    np.testing.assert_array_equal(z.get(), expected)


def test_arrays_indexed_otherwise_may_have_any_size() -> None:
    # A lookup table, a gather and a scatter: only `name[i]` ties an array to i.
    # (The first array sets the indices, as in PyCUDA: here the 1000 of index.)
    lookup = ElementwiseKernel("const int *index, const float *table, float *out",
                               "out[i] = table[index[i]]", "hostile_lookup")
    table = random_array((7,), np.float32)
    index = rng.integers(0, 7, 1000).astype(np.int32)
    out = gpuarray.empty(1000, np.float32)
    lookup(gpuarray.to_gpu(index), gpuarray.to_gpu(table), out)
    np.testing.assert_array_equal(out.get(), table[index])
    # Larger arrays than the first are fine: the loop runs over the first's indices.
    x, y = random_array((5,), np.float32), random_array((9,), np.float32)
    z = gpuarray.to_gpu(random_array((9,), np.float32))
    expected = z.get()
    expected[:5] = x + y[:5]
    ADD(gpuarray.to_gpu(x), gpuarray.to_gpu(y), z)
    np.testing.assert_array_equal(z.get(), expected)
    # A reduction over x with a longer y reads y's first len(x) elements.
    result = DOT(gpuarray.to_gpu(x), gpuarray.to_gpu(y)).get()
    assert_float_sum_close(result, x * y[:5])


def test_calling_twice_and_after_a_refusal() -> None:
    x, y = random_array((1000,), np.float32), random_array((1000,), np.float32)
    z = gpuarray.empty(1000, np.float32)
    for _ in range(2):
        with pytest.raises(ValueError):
            ADD(gpuarray.to_gpu(x), gpuarray.to_gpu(y[:10]), z)
        ADD(gpuarray.to_gpu(x), gpuarray.to_gpu(y), z)
        np.testing.assert_array_equal(z.get(), x + y)


@pytest.mark.parametrize("options", ["-DSCALE=3", "  -DSCALE=3  -DUNUSED ", ["-DSCALE=3"]])
def test_options_as_one_string(options) -> None:
    x = random_array((1000,), np.float32)
    scale = ElementwiseKernel("float *x", "x[i] *= SCALE", "hostile_scale", options=options)
    device = gpuarray.to_gpu(x)
    scale(device)
    np.testing.assert_array_equal(device.get(), x * np.float32(3))
    total = ReductionKernel(np.float32, "0", "a + b", "x[i] * SCALE", "const float *x",
                            name="hostile_scaled_total", options=options)
    assert_float_sum_close(total(gpuarray.to_gpu(x)).get(), x * np.float32(3))
