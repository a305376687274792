"""cudakit.sparse (PyCUDA's pycuda.sparse): the SpMV products against numpy's
matrix product and the CG solver against numpy.linalg.solve on fresh random
sparse matrices (sizes not multiples of a block), PyCUDA's example
examples/from-wiki/sparse_solve.py's flow (which reads a MatrixMarket file
with scipy) on a random SPD matrix; and refusals of bad input."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
import cudakit.gpuarray as gpuarray
from hostile_cases import Case, case_id, check_refused

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import cudakit.sparse as sparse
from cudakit.sparse.cg import CGStateContainer, ConvergenceError, solve_pkt_with_cg
from cudakit.sparse.coordinate import CoordinateSpMV
from cudakit.sparse.inner import AsyncInnerProduct
from cudakit.sparse.operator import DiagonalPreconditioner, IdentityOperator
from cudakit.sparse.packeted import PacketedSpMV, partition_rows
from cudakit.sparse.coordinate import CooMatrix

rng = np.random.default_rng()


def random_sparse(m: int, n: int, per_row: int, dtype) -> np.ndarray:
    a = np.zeros((m, n))
    for i in range(m):
        a[i, rng.integers(0, n, per_row)] = rng.standard_normal(per_row)
    return a.astype(dtype)


def random_spd(n: int, per_row: int, dtype) -> np.ndarray:
    a = random_sparse(n, n, per_row, np.float64)
    a = a + a.T
    return (a + np.diag(np.abs(a).sum(axis=1) + 1.0)).astype(dtype)


def tolerance(a: np.ndarray, x: np.ndarray) -> float:
    eps = float(np.finfo(a.dtype).eps)
    return 16 * eps * float((np.abs(a) @ np.abs(x)).max())


def test_import_warns_deprecation_as_pycuda() -> None:
    with pytest.warns(DeprecationWarning, match="deprecated"):
        importlib.reload(sparse)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_coordinate_spmv_matches_numpy(dtype) -> None:
    a = random_sparse(301, 257, 5, dtype)
    x = rng.standard_normal(257).astype(dtype)
    y0 = rng.standard_normal(301).astype(dtype)
    spmv = CoordinateSpMV(a, dtype)
    assert spmv.nnz == np.count_nonzero(a) and spmv.shape == a.shape
    np.testing.assert_allclose(spmv(gpuarray.to_gpu(x)).get(), a @ x, rtol=0,
                               atol=tolerance(a, x))
    y = gpuarray.to_gpu(y0)
    assert spmv(gpuarray.to_gpu(x), y) is y  # y += A x
    np.testing.assert_allclose(y.get(), y0 + a @ x, rtol=0, atol=tolerance(a, x) + 1e-5)


def test_coordinate_spmv_of_coo_matrix_and_empty_matrix() -> None:
    row, col = rng.integers(0, 50, 200), rng.integers(0, 40, 200)  # with duplicates
    data = rng.standard_normal(200)
    dense = np.zeros((50, 40))
    np.add.at(dense, (row, col), data)
    x = rng.standard_normal(40)
    got = CoordinateSpMV(CooMatrix(data, row, col, (50, 40)), np.float64)(gpuarray.to_gpu(x))
    np.testing.assert_allclose(got.get(), dense @ x, rtol=1e-12, atol=1e-12)
    empty = CoordinateSpMV(np.zeros((5, 5)), np.float64)
    np.testing.assert_array_equal(empty(gpuarray.to_gpu(x[:5])).get(), np.zeros(5))


@pytest.mark.parametrize("symmetric", [True, False], ids=["symmetric", "unsymmetric"])
def test_packeted_spmv_matches_numpy(symmetric: bool) -> None:
    n = 777
    a = random_spd(n, 4, np.float32) if symmetric else random_sparse(n, n, 6, np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    spmv = PacketedSpMV(a, symmetric, np.float32)
    y = spmv.unpermute(spmv(spmv.permute(gpuarray.to_gpu(x)))).get()
    np.testing.assert_allclose(y, a @ x, rtol=0, atol=tolerance(a, x))


def test_packeted_spmv_of_several_packets() -> None:
    # float64: a packet holds (48 KiB - 100) / 16 rows, so 7001 rows take 3,
    # and the entries that couple two packets go to the COO product.
    n = 7001
    a = random_sparse(n, n, 3, np.float64) + np.diag(rng.standard_normal(n))
    x = rng.standard_normal(n)
    spmv = PacketedSpMV(a, False, np.float64)
    assert spmv.block_count >= 3 and spmv.remaining_coo_gpu.nnz > 0
    y = spmv.unpermute(spmv(spmv.permute(gpuarray.to_gpu(x)))).get()
    np.testing.assert_allclose(y, a @ x, rtol=0, atol=tolerance(a, x))


def test_partition_rows_is_contiguous_and_balanced() -> None:
    parts = partition_rows(1001, 7)
    assert np.all(np.diff(parts) >= 0) and set(parts) == set(range(7))
    sizes = np.bincount(parts)
    assert sizes.max() - sizes.min() <= 1


def test_sparse_solve_example_flow_matches_numpy_solve() -> None:
    """examples/from-wiki/sparse_solve.py, with a random SPD matrix for its file."""
    from cudakit.tools import DeviceMemoryPool, PageLockedMemoryPool

    dev_pool, pagelocked_pool = DeviceMemoryPool(), PageLockedMemoryPool()
    csr_mat = random_spd(523, 4, np.float32)
    inv_mat_diag = 1 / csr_mat.diagonal()
    spmv = PacketedSpMV(csr_mat, True, csr_mat.dtype)
    rhs = rng.random(spmv.shape[0]).astype(spmv.dtype)
    precon = DiagonalPreconditioner(spmv.permute(gpuarray.to_gpu(
        inv_mat_diag, allocator=dev_pool.allocate)))
    for _ in range(2):
        rhs_gpu = gpuarray.to_gpu(rhs, dev_pool.allocate)
        res_gpu, it_count, res_count = solve_pkt_with_cg(
            spmv, rhs_gpu, precon, tol=5e-5, pagelocked_allocator=pagelocked_pool.allocate)
        res = res_gpu.get()
        assert np.linalg.norm(csr_mat @ res - rhs) / np.linalg.norm(rhs) < 1e-4
        assert 0 < res_count <= it_count
    expected = np.linalg.solve(csr_mat.astype(np.float64), rhs.astype(np.float64))
    np.testing.assert_allclose(res, expected, rtol=0, atol=1e-4 * np.abs(expected).max())
    pagelocked_pool.stop_holding()
    dev_pool.stop_holding()


def test_cg_double_without_preconditioner_from_a_start_vector() -> None:
    a = random_spd(301, 3, np.float64)
    b = rng.standard_normal(301)
    spmv = PacketedSpMV(a, True, np.float64)
    x0 = gpuarray.to_gpu(rng.standard_normal(301))
    res, _, _ = solve_pkt_with_cg(spmv, gpuarray.to_gpu(b), x=x0, tol=1e-10)
    np.testing.assert_allclose(res.get(), np.linalg.solve(a, b), rtol=0, atol=1e-8)


def test_scipy_matrix_when_installed() -> None:
    scipy_sparse = pytest.importorskip("scipy.sparse")
    a = random_spd(200, 3, np.float64)
    x = rng.standard_normal(200)
    spmv = PacketedSpMV(scipy_sparse.csr_matrix(a), True, np.float64)
    y = spmv.unpermute(spmv(spmv.permute(gpuarray.to_gpu(x)))).get()
    np.testing.assert_allclose(y, a @ x, rtol=0, atol=tolerance(a, x))


def test_operators_and_async_inner_product() -> None:
    d = rng.standard_normal(123)
    v = rng.standard_normal(123)
    ident = IdentityOperator(np.float64, 123)
    assert ident.shape == (123, 123) and ident.dtype == np.float64
    vg = gpuarray.to_gpu(v)
    assert ident(vg) is vg
    precon = DiagonalPreconditioner(gpuarray.to_gpu(d))
    assert precon.shape == (123, 123) and precon.dtype == np.float64
    np.testing.assert_allclose(precon(vg).get(), d * v, rtol=1e-15)
    ip = AsyncInnerProduct(gpuarray.to_gpu(d), vg, drv.pagelocked_empty)
    result = None
    for _ in range(100):
        result = ip.get_host_result()
        if result is not None:
            break
        drv.Context.synchronize()
    assert result is not None
    np.testing.assert_allclose(result, d @ v, rtol=1e-12)


def square(n: int = 50) -> np.ndarray:
    return random_spd(n, 3, np.float32)


BAD = [
    Case("non-square packeted", lambda: PacketedSpMV(random_sparse(5, 6, 2, np.float32), False,
                                                       np.float32), ValueError, "only square"),
    Case("1-d matrix", lambda: PacketedSpMV(np.ones(5), True, np.float32), ValueError,
         "expected a 2-d matrix"),
    Case("not a matrix", lambda: CoordinateSpMV("A", np.float32), TypeError,
         "expected a scipy sparse matrix, a dense 2-d numpy array"),
    Case("integer dtype", lambda: PacketedSpMV(square(), True, np.int32), TypeError,
         "float32 or float64"),
    Case("coo index out of range", lambda: CooMatrix([1.0], [5], [0], (3, 3)), ValueError,
         "outside the shape"),
    Case("x of the wrong length", lambda: PacketedSpMV(square(), True, np.float32)(
        gpuarray.zeros(49, np.float32)), ValueError, r"shape \(50,\)"),
    Case("x of the wrong dtype", lambda: CoordinateSpMV(square(), np.float32)(
        gpuarray.zeros(50, np.float64)), ValueError, "dtype float32"),
    Case("y of the wrong length", lambda: CoordinateSpMV(square(), np.float32)(
        gpuarray.zeros(50, np.float32), gpuarray.zeros(3, np.float32)), ValueError,
        r"\(y\).*shape \(50,\)"),
    Case("x on the host", lambda: CoordinateSpMV(square(), np.float32)(
        np.zeros(50, np.float32)), TypeError, "expected a GPUArray"),
    Case("cg without enough iterations", lambda: solve_pkt_with_cg(
        PacketedSpMV(square(), True, np.float32),
        gpuarray.to_gpu(rng.standard_normal(50).astype(np.float32)), max_iterations=2),
        ConvergenceError, "failed to converge in 2 iterations"),
    Case("rhs of the wrong length", lambda: solve_pkt_with_cg(
        PacketedSpMV(square(), True, np.float32), gpuarray.zeros(7, np.float32)),
        ValueError, r"\(b\).*shape \(50,\)"),
    Case("2-d diagonal", lambda: DiagonalPreconditioner(gpuarray.zeros((3, 3), np.float32)),
         ValueError, "1-d GPUArray"),
    Case("lc2 of mismatched vectors", lambda: CGStateContainer(IdentityOperator(np.float32, 3))
         .lc2(1, gpuarray.zeros(3, np.float32), 2, gpuarray.zeros(4, np.float32)),
         ValueError, "must agree"),
]


@pytest.mark.parametrize("case", BAD, ids=case_id)
def test_bad_input_is_refused(case: Case) -> None:
    check_refused(case)
