"""PyCUDA's two-stage reduction builders (pycuda.reduction.get_reduction_module
and get_reduction_kernel_and_types), driven as PyCUDA's ReductionKernel
drives them, against numpy on fresh random input; and their refusals."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from cudakit import reduction
from cudakit.tools import dtype_to_ctype
from gpuarray_helpers import assert_float_sum_close
from hostile_cases import Case, case_id, check_refused

rng = np.random.default_rng()
BLOCK = 512


def two_stage(dtype_out, neutral, reduce_expr, map_expr, arguments, *args,
              block_size=BLOCK, preamble=""):
    """PyCUDA's ReductionKernel.__call__ (pycuda/reduction.py), with its kernels."""
    dtype_out = np.dtype(dtype_out)
    out_type = dtype_to_ctype(dtype_out)
    s1, s1_types = reduction.get_reduction_kernel_and_types(
        1, out_type, block_size, neutral, reduce_expr, map_expr, arguments,
        name="r_stage1", preamble=preamble)
    s2, s2_types = reduction.get_reduction_kernel_and_types(
        2, out_type, block_size, neutral, reduce_expr, arguments=arguments,
        name="r_stage2", preamble=preamble)
    f, arg_types, stage1_args, launches = s1, s1_types, args, 0
    while True:
        invocation, vectors = [], []
        for arg, tp in zip(args, arg_types):
            if tp == "P":
                vectors.append(arg)
                invocation.append(arg.gpudata)
            else:
                invocation.append(arg)
        sz = vectors[0].size
        if sz <= block_size * 4 * 1024:
            block_count, seq_count = (sz + 4 * block_size - 1) // (4 * block_size), 4
        else:
            block_count = 1024
            seq_count = (sz + block_count * block_size - 1) // (block_count * block_size)
        result = gpuarray.empty(() if block_count == 1 else (block_count,), dtype_out)
        f.prepared_async_call((block_count, 1), (block_size, 1, 1), None,
                              result.gpudata, *invocation, seq_count, sz,
                              shared_size=block_size * dtype_out.itemsize)
        launches += 1
        if block_count == 1:
            return result.get(), launches
        f, arg_types, args = s2, s2_types, (result, *stage1_args)


@pytest.mark.parametrize("n", [1, 1000, 2049, 2 * BLOCK * 4 + 17, 4 * BLOCK * 4 * 3 + 5])
def test_sum_matches_numpy(n: int) -> None:
    x = rng.standard_normal(n).astype(np.float32)
    got, launches = two_stage(np.float32, "0", "a+b", None, "const float *in",
                              gpuarray.to_gpu(x))
    assert_float_sum_close(got, x)
    assert launches == (1 if n <= 4 * BLOCK else 2)


@pytest.mark.parametrize("block_size", [32, 64, 256])
def test_max_matches_numpy(block_size: int) -> None:
    x = rng.integers(-10**6, 10**6, size=5 * block_size * 4 + 3).astype(np.int32)
    got, _ = two_stage(np.int32, str(np.iinfo(np.int32).min), "max(a,b)", "in[i]",
                       "const int *in", gpuarray.to_gpu(x), block_size=block_size)
    assert got == x.max()


def test_dot_map_expr_with_scalar_argument() -> None:
    n = 7 * BLOCK + 11
    a = rng.standard_normal(n)
    b = rng.standard_normal(n)
    scale = 1.5
    got, _ = two_stage(np.float64, "0", "a+b", "scale*x[i]*y[i]",
                       "const double *x, const double *y, double scale",
                       gpuarray.to_gpu(a), gpuarray.to_gpu(b), scale)
    assert_float_sum_close(got, scale * a * b)


def test_float_max_with_preamble() -> None:
    x = rng.standard_normal(3 * BLOCK * 4 + 1).astype(np.float32)
    got, _ = two_stage(np.float32, "-MY_INFINITY", "fmaxf(a,b)", None, "const float *in",
                       gpuarray.to_gpu(x), preamble="#define MY_INFINITY (1./0)")
    assert got == x.max()


def test_module_and_types() -> None:
    mod = reduction.get_reduction_module("float", 128, "0", "a+b", "x[i]*2",
                                         "const float *x, unsigned int k", name="twice")
    assert mod.get_function("twice") is not None
    func, types = reduction.get_reduction_kernel_and_types(
        1, "double", 64, "0", "a+b", arguments="const double *in, float w")
    assert types == ["P", "f"]
    func, types = reduction.get_reduction_kernel_and_types(2, "double", 64, "0", "a+b")
    assert types == ["P"]


BAD = [
    Case("stage 3", lambda: reduction.get_reduction_kernel_and_types(
        3, "float", 512, "0", "a+b", arguments="const float *in"), ValueError,
        "stage must be 1 or 2"),
    Case("stage 1 without arguments", lambda: reduction.get_reduction_kernel_and_types(
        1, "float", 512, "0", "a+b"), TypeError, "stage 1 needs arguments"),
    Case("block size not a power of two", lambda: reduction.get_reduction_module(
        "float", 500, "0", "a+b", "in[i]", "const float *in"), ValueError,
        "power of two"),
    Case("block size too big", lambda: reduction.get_reduction_module(
        "float", 2048, "0", "a+b", "in[i]", "const float *in"), ValueError, "power of two"),
    Case("arguments not a string", lambda: reduction.get_reduction_module(
        "float", 512, "0", "a+b", "in[i]", ["const float *in"]), TypeError,
        "arguments must be a non-empty C string"),
    Case("bad reduce expression", lambda: reduction.get_reduction_module(
        "float", 512, "0", "a+", "in[i]", "const float *in"), drv.CompileError, "REDUCE"),
]


@pytest.mark.parametrize("case", BAD, ids=case_id)
def test_bad_input_is_refused(case: Case) -> None:
    check_refused(case)
