"""Slices with a run-time or negative step (views, no copy) and negative
run-time indices wrapping around as in Python, each against the same
function run by the interpreter on NumPy arrays."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cudakit import cuda

from .interpreted import run_threads
from .test_errors import run_isolated

RNG = np.random.default_rng(4321)
N = 45  # not a multiple of the block


def strided_copy(a, out, start, step):
    # Thread i copies the i-th element of a[start::step] (a view).
    i = cuda.grid(1)
    view = a[start::step]
    if i < view.shape[0]:
        out[i] = view[i]
    if i == 0:
        out[out.shape[0] - 1] = view.shape[0]


def reversed_twice(a, out):
    i = cuda.grid(1)
    r = a[::-1]
    rr = r[1::-2]
    if i < r.shape[0]:
        out[i] = r[i] + rr.shape[0]


def negative_indices(a, out, shift):
    i = cuda.grid(1)
    if i < a.shape[0]:
        j = i - shift  # negative for i < shift: counts from the end
        out[i] = a[j] * 2 + a[-1 - i]


def negative_row_view(m, out, row):
    i = cuda.grid(1)
    line = m[row, ::-1]
    if i < line.shape[0]:
        out[i] = line[i]


def run_interpreted(function, *args):
    return run_threads(function, N + 20, *args)


@pytest.mark.parametrize("start,step", [(0, 1), (3, 2), (-1, -1), (40, -3), (2, 5),
                                        (-5, -7), (0, 100)])
def test_slice_with_a_runtime_step_is_a_view(start, step):
    a = RNG.standard_normal(N)
    out = np.zeros(N + 1)
    expected = run_interpreted(strided_copy, a, out, start, step)[1]
    kernel = cuda.jit(strided_copy)
    d_out = cuda.to_device(np.zeros(N + 1))
    kernel[(N + 31) // 32, 32](cuda.to_device(a), d_out, start, step)
    np.testing.assert_array_equal(d_out.copy_to_host(), expected)


def test_negative_constant_steps_compose():
    a = RNG.standard_normal(N)
    expected = run_interpreted(reversed_twice, a, np.zeros(N))[1]
    out = cuda.to_device(np.zeros(N))
    cuda.jit(reversed_twice)[2, 32](cuda.to_device(a), out)
    np.testing.assert_array_equal(out.copy_to_host(), expected)


# A kernel stopped by a debug check traps on a GPU, which leaves the process's
# context unusable: these run in a process of their own.
def test_zero_runtime_step_is_a_python_error_with_debug():
    output = run_isolated(
        "import numpy as np\n"
        "from cudakit import cuda\n"
        "from jit.test_views_and_indices import strided_copy, N\n"
        "kernel = cuda.jit(debug=True)(strided_copy)\n"
        "try:\n"
        "    kernel[1, 32](cuda.to_device(np.ones(N)), cuda.to_device(np.zeros(N + 1)), 0, 0)\n"
        "    cuda.synchronize()\n"
        "except Exception as error:\n"
        "    print('raised:', error)\n")
    assert "raised:" in output, output
    assert re.search(r"slice step cannot be zero.*line \d+", output, re.S), output


@pytest.mark.parametrize("shift", [0, 7, N - 1])
def test_negative_runtime_index_wraps_around(shift):
    a = RNG.standard_normal(N).astype(np.float32)
    expected = run_interpreted(negative_indices, a, np.zeros(N, np.float32), shift)[1]
    out = cuda.to_device(np.zeros(N, np.float32))
    cuda.jit(negative_indices)[(N + 31) // 32, 32](cuda.to_device(a), out, shift)
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-6)


def test_negative_runtime_row_index_in_a_view():
    m = RNG.standard_normal((6, 11))
    expected = run_interpreted(negative_row_view, m, np.zeros(11), -2)[1]
    out = cuda.to_device(np.zeros(11))
    cuda.jit(negative_row_view)[1, 32](cuda.to_device(m), out, -2)
    np.testing.assert_array_equal(out.copy_to_host(), expected)


def test_thread_indices_need_no_wraparound_but_parameters_do():
    kernel = cuda.jit(negative_indices)
    kernel[1, 32](cuda.to_device(np.ones(N, np.float32)),
                  cuda.to_device(np.zeros(N, np.float32)), 3)
    source = kernel.inspect_cuda_source(next(iter(kernel.overloads)))
    body = source[source.index('extern "C" __global__'):]
    # a[j] (j = i - shift) wraps; a[-1 - i] is negative by construction and
    # wraps too; out[i] with i = cuda.grid(1) does not.
    assert body.count("ck_wrap(") == 2
    assert "out.data[i]" in body


def test_grid_stride_loop_counters_need_no_wraparound():
    @cuda.jit
    def grid_stride(x, out):
        for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
            out[i] = x[i] * 2

    x = RNG.standard_normal(N)
    out = cuda.device_array(N)
    grid_stride[2, 16](cuda.to_device(x), out)
    np.testing.assert_array_equal(out.copy_to_host(), 2 * x)
    assert "ck_wrap(" not in next(iter(grid_stride.inspect_cuda_source().values()))


def test_debug_bounds_check_reports_the_wrapped_out_of_range_index_and_line():
    output = run_isolated(
        "import numpy as np\n"
        "from cudakit import cuda\n"
        "from jit.test_views_and_indices import negative_indices, N\n"
        "kernel = cuda.jit(debug=True)(negative_indices)\n"
        "try:\n"
        "    kernel[1, 32](cuda.to_device(np.ones(N, np.float32)),\n"
        "                  cuda.to_device(np.zeros(N, np.float32)), 2 * N)\n"
        "    cuda.synchronize()\n"
        "except Exception as error:\n"
        "    print('raised:', error)\n")
    assert "raised:" in output, output
    assert re.search(r"index -\d+ is out of bounds.*line \d+", output, re.S), output
