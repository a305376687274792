"""Kernels at the top level of an importable module, for test_pickle.py:
they pickle by reference, and a spawned process imports them; run_jobs is
what that process runs."""

from __future__ import annotations

import math
from typing import Any

from cudakit import cuda

OFFSET = 0.25  # a global the kernels read

SOURCE = """
__global__ void axpb(float *out, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + AXPB_SHIFT;
}
"""
SOURCE_OPTIONS = ["-DAXPB_SHIFT=1.5f"]


@cuda.jit(device=True)
def fused(x, y, a):
    return a * x + math.sqrt(abs(y)) + OFFSET


@cuda.jit
def fused_kernel(out, x, y, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = fused(x[i], y[i], a)


@cuda.jit("void(float32[::1], float32[::1])", fastmath=True)
def plus_one(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + 1


@cuda.vectorize(["float32(float32, float32)"], target="cuda")
def multiply_add(x, y):
    return x * y + 1


def run_jobs(jobs: list[tuple[Any, ...]]) -> list[Any]:
    """Each job (kind, callable, args...) run in this process; what it
    produced (arrays pickle back as their values)."""
    results = []
    for kind, work, *rest in jobs:
        if kind == "identity":  # an array that came through pickle
            results.append(work)
        elif kind == "jit":  # kernel, griddim, blockdim, args: the args after the launch
            griddim, blockdim, args = rest
            work[griddim, blockdim](*args)
            results.append(args)
        elif kind == "function":  # a SourceModule kernel: args, launch keywords
            args, launch = rest
            work(*args, **launch)
            results.append(args)
        elif kind == "call":  # an ElementwiseKernel, ReductionKernel or ufunc: args
            (args,) = rest
            results.append((work(*args), args))
        else:
            raise ValueError(f"unknown job kind {kind!r}")
    return results
