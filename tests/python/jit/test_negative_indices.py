"""A negative index known only at run time counts from the end, as in Python
and Numba (a[-1] is the last element), for global, shared and local arrays
and for views; an index that cannot be negative is used as it is, with no
test in the generated code: thread indices, also unpacked from
`x, y = cuda.grid(2)`, shapes, range counters counting up from 0 or down to
0, and sums, products, floor divisions and mods of such."""

from __future__ import annotations

import numpy as np

from cudakit import cuda

TPB = 8


@cuda.jit
def read_negative(a, b, out, shift):
    i = cuda.grid(1)
    if i < out.size:
        j = i - shift  # negative for i < shift
        tile = cuda.shared.array(TPB, dtype=np.float32)
        scratch = cuda.local.array(4, dtype=np.float32)
        tile[cuda.threadIdx.x] = a[cuda.threadIdx.x]
        scratch[0] = a[1]
        scratch[1] = a[2]
        scratch[2] = a[3]
        scratch[3] = a[4]
        cuda.syncthreads()
        row = b[j % 5 - 5]  # a view by a negative row index
        out[i] = a[j] + 10 * b[j, j] + 100 * tile[j % TPB - TPB] + 1000 * scratch[-1 - i % 4] \
            + 10000 * row[-1]


@cuda.jit
def never_negative_indices(a, out):
    x, y = cuda.grid(2)
    n = a.shape[0]
    total = 0.0
    for k in range(n):
        total += a[k, y % n] * 2
    for k in range(n - 1, -1, -1):
        total += a[k, x % n]
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = total + a[(x * 3 + 1) // 2 % n, y % n]


def test_runtime_negative_indices_count_from_the_end():
    rng = np.random.default_rng(7)
    a = rng.standard_normal(TPB).astype(np.float32)
    b = rng.standard_normal((5, 5)).astype(np.float32)
    out = cuda.device_array(TPB, np.float32)
    read_negative[1, TPB](cuda.to_device(a), cuda.to_device(b), out, 3)
    cuda.synchronize()
    expected = np.zeros(TPB, np.float32)
    for i in range(TPB):  # the interpreter's answer, one thread at a time
        j = i - 3
        scratch = a[1:5]
        expected[i] = (a[j] + 10 * b[j, j] + 100 * a[j % TPB - TPB]
                       + 1000 * scratch[-1 - i % 4] + 10000 * b[j % 5 - 5][-1])
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-5)
    source = next(iter(read_negative.inspect_cuda_source().values()))
    assert "ck_wrap(" in source


def test_indices_that_cannot_be_negative_are_not_tested():
    a = np.random.default_rng(8).standard_normal((5, 5))
    out = cuda.device_array((6, 7), np.float64)
    never_negative_indices[(1, 1), (8, 8)](cuda.to_device(a), out)
    cuda.synchronize()
    expected = np.array([[2 * a[:, y % 5].sum() + a[:, x % 5].sum()
                          + a[(x * 3 + 1) // 2 % 5, y % 5] for y in range(7)] for x in range(6)])
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-12)
    source = next(iter(never_negative_indices.inspect_cuda_source().values()))
    assert "ck_wrap(" not in source, source
