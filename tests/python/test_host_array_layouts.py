"""Host arrays of each layout in the copies and in In/Out/InOut, as
docs/guide/python.md says: a C- or Fortran-ordered array (`a.T` of a
C-ordered `a` is Fortran-ordered) is copied as its bytes lie in memory, as
PyCUDA copies it (PyCUDA takes any contiguous buffer); a strided view whose
elements are not one block is refused with its shape, strides and the fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import cudakit.autoinit  # noqa: F401
import cudakit.driver as drv
from cudakit.compiler import SourceModule

ROWS, COLUMNS = 37, 29  # 1073 elements: not a multiple of the block size
BLOCK = 128


@pytest.fixture(scope="module")
def double_it() -> Any:
    return SourceModule("""
    __global__ void double_it(const float *in, float *out, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 2.0f * in[i];
    }
    """).get_function("double_it")


def random_matrix(order: str = "C") -> np.ndarray:
    values = np.random.default_rng().standard_normal((ROWS, COLUMNS)).astype(np.float32)
    return np.asarray(values, order=order)


def in_memory_order(array: np.ndarray) -> np.ndarray:
    """The elements as they lie in memory (what a kernel's p[i] reads)."""
    return array.ravel(order="K")


def launch(kernel: Any, source: Any, target: Any) -> None:
    n = ROWS * COLUMNS
    kernel(source, target, np.int32(n), block=(BLOCK, 1, 1), grid=((n + BLOCK - 1) // BLOCK, 1))


# --- contiguous layouts: copied in memory order ------------------------------------

@pytest.mark.parametrize("layout", ["C", "F", "transpose of C", "transpose of F"])
def test_memcpy_round_trip_keeps_the_bytes_in_memory_order(layout: str) -> None:
    host = {"C": lambda: random_matrix("C"), "F": lambda: random_matrix("F"),
            "transpose of C": lambda: random_matrix("C").T,
            "transpose of F": lambda: random_matrix("F").T}[layout]()
    device = drv.mem_alloc(host.nbytes)
    drv.memcpy_htod(device, host)
    flat = drv.from_device(device, (host.size,), np.float32)
    np.testing.assert_array_equal(flat, in_memory_order(host))
    back = np.zeros_like(host)  # zeros_like keeps the layout
    drv.memcpy_dtoh(back, device)
    np.testing.assert_array_equal(back, host)


def test_memcpy_dtoh_into_a_transposed_view_fills_its_memory() -> None:
    # python.md's example: dtoh into zeros((10, 10)).T writes the array's
    # memory row by row, so the view reads as the transpose of the rows sent.
    rows = random_matrix("C")
    device = drv.to_device(rows)
    target = np.zeros((COLUMNS, ROWS), np.float32)
    drv.memcpy_dtoh(target.T, device)
    np.testing.assert_array_equal(target.ravel(), rows.ravel())
    np.testing.assert_array_equal(target.T.ravel(order="K"), rows.ravel())


@pytest.mark.parametrize("layout", ["C", "F"])
def test_in_out_and_inout_pass_the_memory_order(double_it: Any, layout: str) -> None:
    source = random_matrix(layout)
    result = np.zeros_like(source)
    launch(double_it, drv.In(source), drv.Out(result))
    np.testing.assert_array_equal(result, 2 * source)  # both in the same order
    both = random_matrix(layout)
    launch(double_it, drv.In(source), drv.InOut(both))
    np.testing.assert_array_equal(both, 2 * source)


def test_in_of_a_transpose_reads_the_original_rows(double_it: Any) -> None:
    rows = random_matrix("C")
    result = np.zeros(rows.size, np.float32)
    launch(double_it, drv.In(rows.T), drv.Out(result))
    np.testing.assert_array_equal(result, 2 * rows.ravel())


# --- strided views: refused, naming the layout and the fix ----------------------------

@dataclass
class Case:
    name: str
    run: Callable[[], Any]
    message: str


def strided() -> np.ndarray:
    return random_matrix("C")[:, :5]


def every_other() -> np.ndarray:
    return np.random.default_rng().standard_normal(40).astype(np.float32)[::2]


def device(n: int = ROWS * COLUMNS) -> Any:
    return drv.mem_alloc(4 * n)


STRIDED = r"of shape \(37, 5\) with strides \(116, 4\) is not contiguous"
EVERY_OTHER = r"of shape \(20,\) with strides \(8,\) is not contiguous"
CASES = [
    Case("memcpy_htod from a[:, :5]", lambda: drv.memcpy_htod(device(), strided()), STRIDED),
    Case("memcpy_dtoh into a[:, :5]", lambda: drv.memcpy_dtoh(strided(), device()), STRIDED),
    Case("memcpy_htod from a[::2]", lambda: drv.memcpy_htod(device(), every_other()),
         EVERY_OTHER),
    Case("memcpy_dtoh into a[::2]", lambda: drv.memcpy_dtoh(every_other(), device()),
         EVERY_OTHER),
    Case("memcpy_htod_async from a[::2]",
         lambda: drv.memcpy_htod_async(device(), every_other()), EVERY_OTHER),
    Case("In(a[:, :5])", lambda: drv.In(strided()), STRIDED),
    Case("Out(a[:, :5])", lambda: drv.Out(strided()), STRIDED),
    Case("InOut(a[::2])", lambda: drv.InOut(every_other()), EVERY_OTHER),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_strided_views_are_refused_with_their_layout_and_the_fix(case: Case) -> None:
    with pytest.raises(drv.ArgumentError, match=case.message) as caught:
        case.run()
    assert "numpy.ascontiguousarray(a)" in caught.value.hint
    assert "a.T" not in str(caught.value)  # a transpose is one block: accepted


def test_a_strided_view_made_contiguous_and_copied_back(double_it: Any) -> None:
    # The fix the error names, for an Out argument.
    matrix = random_matrix("C")
    view = matrix[:, :5]
    source = np.ascontiguousarray(view)
    result = np.empty_like(source)
    double_it(drv.In(source), drv.Out(result), np.int32(source.size), block=(BLOCK, 1, 1),
              grid=((source.size + BLOCK - 1) // BLOCK, 1))
    expected = matrix.copy()
    expected[:, :5] *= 2
    view[...] = result
    np.testing.assert_array_equal(matrix, expected)
