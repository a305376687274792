"""The tutorial's gpuarray program (tests/python/tutorial/gpuarray_dot.py),
imports changed to cudakit, run as written and checked against numpy."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np

TUTORIAL = Path(__file__).parent / "tutorial"


def test_gpuarray_arithmetic_and_dot() -> None:
    g = runpy.run_path(str(TUTORIAL / "gpuarray_dot.py"), run_name="__main__")
    a = g["a_gpu"].get()
    b = g["b_gpu"].get()
    np.testing.assert_array_equal(g["c_cpu"], a + b)
    np.testing.assert_array_equal(g["d_gpu"].get(), a * b)
    expected = np.dot(a.ravel().astype(np.float64), b.ravel())
    # A float32 dot of 2^20 N(0,1) products (compensated sum): relative to the sum of |a*b|.
    tolerance = 1e-5 * np.sum(np.abs(a * b.astype(np.float64)))
    assert abs(float(g["dot_product"].get()) - expected) <= tolerance
