"""Numba's documentation examples (numba_doc_kernels.py) with only the
import changed, against NumPy, at sizes that are not multiples of a block."""

from __future__ import annotations

import math

import numpy as np

from cudakit import cuda

from . import numba_doc_kernels as d

RNG = np.random.default_rng(99)


def test_increment_by_one_1d_and_2d():
    a = RNG.standard_normal(1000)
    d_a = cuda.to_device(a)
    d.increment_by_one[(1000 + 31) // 32, 32](d_a)
    np.testing.assert_allclose(d_a.copy_to_host(), a + 1)
    b = RNG.standard_normal((37, 23))
    d_b = cuda.to_device(b)
    d.increment_a_2D_array[(math.ceil(37 / 16), math.ceil(23 / 16)), (16, 16)](d_b)
    np.testing.assert_allclose(d_b.copy_to_host(), b + 1)


def test_naive_and_shared_memory_matmul():
    n = 45
    A = RNG.standard_normal((n, n)).astype(np.float32)
    B = RNG.standard_normal((n, n)).astype(np.float32)
    C = cuda.device_array((n, n), np.float32)
    blocks = (math.ceil(n / 16), math.ceil(n / 16))
    d.matmul[blocks, (16, 16)](cuda.to_device(A), cuda.to_device(B), C)
    np.testing.assert_allclose(C.copy_to_host(), A @ B, rtol=1e-4, atol=1e-4)
    C2 = cuda.device_array((n, n), np.float32)
    d.fast_matmul[blocks, (16, 16)](cuda.to_device(A), cuda.to_device(B), C2)
    np.testing.assert_allclose(C2.copy_to_host(), A @ B, rtol=1e-4, atol=1e-4)


def test_shared_memory_block_reduction():
    a = np.arange(64, dtype=np.float32)
    d_a = cuda.to_device(a)
    d.array_sum[1, 64](d_a)
    assert d_a.copy_to_host()[0] == a.sum()


def test_atomic_max_example():
    values = RNG.random(16384).astype(np.float64)
    result = cuda.to_device(np.zeros(1, np.float64))
    d.max_example[256, 64](result, cuda.to_device(values))
    assert result.copy_to_host()[0] == values.max()


def test_vector_add_and_device_function_returning_a_tuple():
    n = 999
    a, b = RNG.standard_normal(n), RNG.standard_normal(n)
    c = cuda.device_array(n, np.float64)
    d.f.forall(n)(cuda.to_device(a), cuda.to_device(b), c)
    np.testing.assert_allclose(c.copy_to_host(), a + b)
    r1, t1, r2, t2 = (RNG.random(n) * 3 for _ in range(4))
    out = cuda.device_array(n, np.float64)
    d.polar_distance.forall(n)(*(cuda.to_device(x) for x in (r1, t1, r2, t2)), out)
    expected = np.hypot(r1 * np.cos(t1) - r2 * np.cos(t2), r1 * np.sin(t1) - r2 * np.sin(t2))
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-10)


def test_laplace_jacobi_steps():
    n = 101
    u = np.zeros(n)
    u[n // 2] = 1.0
    d_u, d_next = cuda.to_device(u), cuda.device_array(n, np.float64)
    for _ in range(20):
        d.laplace_step[(n + 31) // 32, 32](d_u, d_next)
        d_u, d_next = d_next, d_u
        u = np.concatenate([[u[0]], 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:], [u[-1]]])
    np.testing.assert_allclose(d_u.copy_to_host(), u)


def test_while_on_an_integer_truth_value():
    values = RNG.integers(0, 2**20, 77).astype(np.int64)
    counts = cuda.device_array(77, np.int32)
    d.count_bits.forall(77)(cuda.to_device(values), counts)
    np.testing.assert_array_equal(counts.copy_to_host(), [bin(v).count("1") for v in values])
