"""Kernels and device functions named as the C library's or CUDA's functions
(`div`, `fma`, `sqrt`, `printf`, ...) keep their Python names: the generated
C++ gives them names of their own, so nothing conflicts with the library.
(conftest.py also compiles every generated source for sm_90 with NVRTC.)"""

from __future__ import annotations

import numpy as np
from cudakit import cuda


@cuda.jit(device=True)
def fma(a, b, c):  # type: ignore[no-untyped-def]
    return a * b + c


@cuda.jit(device=True)
def hypot(a, b):  # type: ignore[no-untyped-def]
    return a + 2 * b


@cuda.jit
def div(x, y, out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = fma(x[i], y[i], 1.0) + hypot(x[i], y[i])


@cuda.jit
def printf(out):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * 3


def test_kernel_and_device_functions_named_as_library_functions() -> None:
    rng = np.random.default_rng()
    n = 1001
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    out = cuda.device_array(n)
    div[(n + 127) // 128, 128](cuda.to_device(x), cuda.to_device(y), out)
    # The kernel's order of additions (results near zero lose relative digits).
    np.testing.assert_allclose(out.copy_to_host(), (x * y + 1.0) + (x + 2 * y), rtol=1e-12,
                               atol=1e-12)
    counts = cuda.device_array(77, np.int64)
    printf[1, 128](counts)
    np.testing.assert_array_equal(counts.copy_to_host(), np.arange(77) * 3)
