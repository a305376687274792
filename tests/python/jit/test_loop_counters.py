"""range() loops with constant bounds count in a C++ int where every value
the counter takes fits one; the loop variable keeps Numba's type (int64),
so arithmetic on it is unchanged. Checked against the interpreter at the
edges of the int range."""

from __future__ import annotations

import numpy as np

from cudakit import cuda


@cuda.jit
def constant_ranges(out):
    total = 0
    for i in range(3, 10):  # an int counter; i * 3e9 needs int64
        total += i * 3000000000
    out[0] = total
    total = 0
    for i in range(10, -5, -3):  # a negative step
        total += i
    out[1] = total
    total = 0
    for i in range(-2147483648, -2147483640, 2):  # from the smallest int
        total += i
    out[2] = total
    total = 0
    for i in range(2147483640, 2147483647, 3):  # past the largest int: long long
        total += i
    out[3] = total
    count = 0
    for i in range(5, 5):  # empty
        count += 1
    out[4] = count


def test_constant_range_loops_match_the_interpreter():
    out = cuda.device_array(5, np.int64)
    constant_ranges[1, 1](out)
    cuda.synchronize()
    expected = np.zeros(5, np.int64)
    constant_ranges.py_func(expected)
    np.testing.assert_array_equal(out.copy_to_host(), expected)
    source = next(iter(constant_ranges.inspect_cuda_source().values()))
    loops = [line.strip() for line in source.splitlines() if line.strip().startswith("for (")]
    assert [loop.split()[1].lstrip("(") for loop in loops] == ["int", "int", "int", "long", "int"], loops
