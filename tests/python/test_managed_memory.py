"""cudakit.driver's managed (unified) memory: managed_empty / managed_zeros /
*_like numpy arrays that SourceModule kernels read and write in place,
ManagedAllocation (array.base: get_device_pointer, attach), and
mem_get_address_range. Backend-neutral: the same tests run on a GPU
(cuMemAllocManaged, cuStreamAttachMemAsync, cuMemGetAddressRange); the ones
that need a GPU's semantics are marked `gpu`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit.compiler import SourceModule
from hostile_cases import Case, case_id, check_refused

SOURCE = r"""
__global__ void axpy(float a, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void square_rows(double* m, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    for (int c = 0; c < cols; ++c) m[r * cols + c] *= m[r * cols + c];
}
"""
BLOCK = 128
N = 1000  # not a multiple of BLOCK


@pytest.fixture(scope="module")
def module() -> Any:
    return SourceModule(SOURCE)


def grid_for(n: int) -> tuple[int, int]:
    return ((n + BLOCK - 1) // BLOCK, 1)


def test_kernel_reads_and_writes_managed_arrays_in_place(module: Any) -> None:
    rng = np.random.default_rng(1)
    x_host, y_host = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N)
    x = drv.managed_empty(N, np.float32, mem_flags=drv.mem_attach_flags.GLOBAL)
    y = drv.managed_zeros((N,), np.float32)
    assert isinstance(x, np.ndarray) and isinstance(x.base, drv.ManagedAllocation)
    assert not y.any()
    x[:] = x_host
    y[:] = y_host
    module.get_function("axpy")(np.float32(2.5), x, y, np.int32(N), block=(BLOCK, 1, 1),
                                grid=grid_for(N))
    drv.Context.synchronize()
    want = np.float32(2.5) * x_host + y_host.astype(np.float32)
    # A GPU fuses a*x + y into one rounding (FMA): bounded by the terms' size,
    # not the result's (they may cancel).
    terms = np.abs(np.float32(2.5) * x_host) + np.abs(y_host.astype(np.float32))
    assert (np.abs(y - want) <= 2 * np.finfo(np.float32).eps * terms).all()
    np.testing.assert_array_equal(x, x_host)  # read, not written


def test_views_and_allocation_are_passed_at_their_addresses(module: Any) -> None:
    rng = np.random.default_rng(2)
    x = drv.managed_empty(N + 7, np.float32)
    y = drv.managed_empty(N + 7, np.float32)
    x[:], y[:] = rng.random(N + 7), rng.random(N + 7)
    before = y.copy()
    # a view 7 elements in: the kernel gets the view's address, not the allocation's
    module.get_function("axpy")(np.float32(-1), x[7:], y[7:], np.int32(N),
                                block=(BLOCK, 1, 1), grid=grid_for(N))
    drv.Context.synchronize()
    np.testing.assert_allclose(y[7:], before[7:] - x[7:], rtol=1e-6)
    np.testing.assert_array_equal(y[:7], before[:7])
    # the allocation itself (PyCUDA's DeviceAllocation base) and its address
    middle = y.copy()
    module.get_function("axpy")(np.float32(1), x.base, np.intp(y.base.get_device_pointer()),
                                np.int32(N), block=(BLOCK, 1, 1), grid=grid_for(N))
    drv.Context.synchronize()
    np.testing.assert_allclose(y[:N], middle[:N] + x[:N], rtol=1e-6)
    np.testing.assert_array_equal(y[N:], middle[N:])


@pytest.mark.parametrize("order", ["C", "F"])
def test_like_functions_keep_shape_dtype_and_order(module: Any, order: str) -> None:
    rng = np.random.default_rng(3)
    template = np.asarray(rng.standard_normal((37, 5)), order=order)
    m = drv.managed_empty_like(template)
    z = drv.managed_zeros_like(template)
    for a in (m, z):
        assert a.shape == (37, 5) and a.dtype == np.float64
        assert a.flags.f_contiguous == (order == "F") and a.flags.c_contiguous == (order == "C")
    assert not z.any()
    c = drv.managed_empty((37, 5), np.float64)
    c[:] = template
    module.get_function("square_rows")(c, np.int32(37), np.int32(5), block=(32, 1, 1),
                                       grid=(2, 1))
    drv.Context.synchronize()
    np.testing.assert_allclose(c, template**2)


def test_attach_to_a_stream_then_use_it(module: Any) -> None:
    rng = np.random.default_rng(4)
    stream = drv.Stream()
    x = drv.managed_empty(N, np.float32)
    y = drv.managed_empty(N, np.float32)
    x.base.attach(drv.mem_attach_flags.SINGLE, stream)
    y.base.attach(drv.mem_attach_flags.SINGLE, stream)
    stream.synchronize()
    x[:], y[:] = rng.random(N), rng.random(N)
    expected = 3 * x + y
    module.get_function("axpy")(np.float32(3), x, y, np.int32(N), block=(BLOCK, 1, 1),
                                grid=grid_for(N), stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    x.base.attach(drv.mem_attach_flags.GLOBAL)
    drv.Context.synchronize()


def test_host_attached_memory_is_host_usable() -> None:
    a = drv.managed_zeros(17, np.int32, mem_flags=drv.mem_attach_flags.HOST)
    a[:] = np.arange(17)
    assert a.sum() == 136


def test_mem_get_address_range_finds_the_allocation() -> None:
    a = drv.managed_empty(N, np.float64)
    start, size = drv.mem_get_address_range(a.base.get_device_pointer() + 80)
    assert start == a.base.get_device_pointer() and size >= a.nbytes
    d = drv.mem_alloc(4096)
    start, size = drv.mem_get_address_range(int(d) + 100)
    assert start == int(d) and size >= 4096


def test_empty_managed_array() -> None:
    a = drv.managed_empty(0, np.float32)
    assert a.shape == (0,) and a.base.get_device_pointer() != 0


def test_records_dtype() -> None:
    dtype = np.dtype([("x", np.float32), ("n", np.int32)])
    a = drv.managed_zeros(5, dtype)
    a["n"] = np.arange(5)
    assert a.dtype == dtype and a["n"].sum() == 10


# ---- bad input -------------------------------------------------------------------


CASES = [
    Case("negative extent", lambda: drv.managed_empty((3, -1), np.float32), ValueError,
         r"negative dimensions are not allowed: shape \(3, -1\)"),
    Case("fractional extent", lambda: drv.managed_empty(2.5, np.float32), TypeError,
         r"shape must be an integer or a sequence of integers, got 2.5"),
    Case("object dtype", lambda: drv.managed_empty(4, object), TypeError,
         r"dtype object holds Python objects"),
    Case("unknown dtype", lambda: drv.managed_zeros(4, "float33"), TypeError,
         r"float33"),
    Case("bad order", lambda: drv.managed_empty(4, np.float32, order="K"), drv.ArgumentError,
         r"order must be 'C' or 'F', got 'K'"),
    Case("SINGLE at allocation", lambda: drv.managed_empty(
        4, np.float32, mem_flags=drv.mem_attach_flags.SINGLE), drv.ArgumentError,
        r"(?s)flags 4 is not one attach mode.*GLOBAL \(1\) or HOST \(2\)"),
    Case("unknown allocation flags", lambda: drv.managed_empty(4, np.float32, mem_flags=9),
         drv.ArgumentError, r"flags 9 is not one attach mode"),
    Case("flags not a number", lambda: drv.managed_empty(4, np.float32, mem_flags="global"),
         TypeError, r"mem_flags must be a mem_attach_flags value"),
    Case("attach unknown flags", lambda: drv.managed_empty(4, np.float32).base.attach(3),
         drv.ArgumentError, r"(?s)flags 3 is not one attach mode.*SINGLE \(4\)"),
    Case("attach SINGLE without a stream", lambda: drv.managed_empty(4, np.float32).base.attach(
        drv.mem_attach_flags.SINGLE), drv.ArgumentError, r"SINGLE names no stream"),
    Case("attach to a non-stream", lambda: drv.managed_empty(4, np.float32).base.attach(
        drv.mem_attach_flags.GLOBAL, "stream"), drv.ArgumentError, r"expected a stream"),
    Case("free", lambda: drv.managed_empty(4, np.float32).base.free(), drv.ArgumentError,
         r"freed when the last array viewing it is gone"),
    Case("address range of host memory",
         lambda: drv.mem_get_address_range(np.zeros(64).ctypes.data), drv.ArgumentError,
         r"no device allocation contains the address"),
    Case("address range of a negative address", lambda: drv.mem_get_address_range(-1),
         (drv.ArgumentError, OverflowError, ValueError), r"address"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_refused(case: Case) -> None:
    check_refused(case)


def test_plain_numpy_array_is_still_refused_by_kernels(module: Any) -> None:
    with pytest.raises(drv.ArgumentError, match="host memory"):
        module.get_function("axpy")(np.float32(1), np.zeros(N, np.float32),
                                    drv.managed_zeros(N, np.float32), np.int32(N),
                                    block=(BLOCK, 1, 1), grid=grid_for(N))


def test_kernel_element_type_is_checked_for_managed_arrays(module: Any) -> None:
    with pytest.raises(drv.ArgumentError, match="float64|double"):
        module.get_function("axpy")(np.float32(1), drv.managed_zeros(N, np.float64),
                                    drv.managed_zeros(N, np.float32), np.int32(N),
                                    block=(BLOCK, 1, 1), grid=grid_for(N))


@pytest.mark.gpu
def test_gpu_large_managed_array_in_place() -> None:
    """On a GPU: a kernel reading and writing 64 MiB of managed memory in
    place (pages migrate on demand), and the driver's address range of it."""
    if drv.backend() != "cuda":
        pytest.skip("needs the CUDA backend")
    n = 16 * 1024 * 1024 + 3
    a = drv.managed_empty(n, np.float32)
    host = np.random.default_rng(9).random(n, dtype=np.float32)
    a[:] = host
    module = SourceModule(SOURCE)
    module.get_function("axpy")(np.float32(2), a, a, np.int32(n), block=(256, 1, 1),
                                grid=((n + 255) // 256, 1))
    drv.Context.synchronize()
    np.testing.assert_allclose(a, 3 * host, rtol=1e-6)
    start, size = drv.mem_get_address_range(a.base.get_device_pointer())
    assert start == a.base.get_device_pointer() and size >= a.nbytes
