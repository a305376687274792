"""Expressions fuse with no decorator, and results equal eager evaluation:
every write into an array's memory first evaluates the pending results that
read it (one test per way of writing)."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.cumath as cumath
import cudakit.gpuarray as ga
from cudakit import _core
from cudakit.elementwise import ElementwiseKernel
from cudakit.scan import InclusiveScanKernel
from gpuarray_helpers import assert_matches, random_array


def launches() -> int:
    return _core._array_kernel_launches()


def test_a_times_b_plus_x_times_y_is_one_launch() -> None:
    a, b, x, y = (random_array(4099, np.float32) for _ in range(4))
    ga_, gb, gx, gy = (ga.to_gpu(v) for v in (a, b, x, y))
    before = launches()
    c = ga_ * gb + gx * gy
    assert c.is_pending
    assert launches() == before  # building does no work
    host = c.get()
    assert launches() == before + 1
    # A GPU may fuse a*b + x*y into multiply-adds (fewer roundings): where the
    # two products cancel, allow a few float32 ulps of the products themselves.
    margin = 4 * np.finfo(np.float32).eps * (np.abs(a * b) + np.abs(x * y))
    assert np.all(np.abs(host - (a * b + x * y)) <= margin + 1e-6)
    c.get()
    assert launches() == before + 1  # evaluated once


def test_cumath_and_scalars_fuse_into_the_same_kernel() -> None:
    a = random_array(1001, np.float32, low=0.1, high=2)
    g = ga.to_gpu(a)
    before = launches()
    r = cumath.exp(g) * 2 + cumath.sqrt(g) - 1
    host = r.get()
    assert launches() == before + 1
    np.testing.assert_allclose(host, np.exp(a) * 2 + np.sqrt(a) - 1, rtol=1e-5)


def test_reduction_of_a_pending_expression_is_fused() -> None:
    a = random_array(5000, np.float64)
    b = random_array(5000, np.float64)
    ga_, gb = ga.to_gpu(a), ga.to_gpu(b)
    d = ga_ - gb
    before = launches()
    total = ga.sum(d * d).get()
    np.testing.assert_allclose(total, np.sum((a - b) ** 2), rtol=1e-12)
    assert d.is_pending  # the reduction read the expression, no temporary
    assert launches() - before <= 1


def test_long_chains_are_bounded() -> None:
    g = ga.to_gpu(np.zeros(37, np.float32))
    x = g
    for _ in range(500):
        x = x + 1
    np.testing.assert_array_equal(x.get(), np.full(37, 500, np.float32))


def _pending_reader():
    a = random_array(1000, np.float32)
    g = ga.to_gpu(a)
    r = g * 2 + 1
    assert r.is_pending
    return a, g, r


def test_in_place_operator_evaluates_readers_first() -> None:
    a, g, r = _pending_reader()
    g += 100
    assert not r.is_pending
    assert_matches(r, a * 2 + 1)
    assert_matches(g, a + np.float32(100))


def test_setitem_evaluates_readers_first() -> None:
    a, g, r = _pending_reader()
    g[10:20] = 0
    assert_matches(r, a * 2 + 1)


def test_setitem_on_a_view_evaluates_readers_of_the_base() -> None:
    a, g, r = _pending_reader()
    view = g[5:]
    view[:3] = -1
    assert_matches(r, a * 2 + 1)


def test_set_evaluates_readers_first() -> None:
    a, g, r = _pending_reader()
    g.set(np.zeros(1000, np.float32))
    assert_matches(r, a * 2 + 1)


def test_fill_evaluates_readers_first() -> None:
    a, g, r = _pending_reader()
    g.fill(7)
    assert_matches(r, a * 2 + 1)


def test_copy_into_allocation_evaluates_readers_first() -> None:
    a, g, r = _pending_reader()
    cumath.exp(ga.to_gpu(np.zeros(1000, np.float32)), out=g)
    assert_matches(r, a * 2 + 1)
    a, g, r = _pending_reader()
    ga.take(ga.to_gpu(np.ones(1000, np.float32)), ga.to_gpu(np.arange(1000)), out=g)
    assert_matches(r, a * 2 + 1)


def test_kernel_launch_evaluates_readers_first() -> None:
    a, g, r = _pending_reader()
    ElementwiseKernel("float *x", "x[i] = 0", "zero_it")(g)
    assert_matches(r, a * 2 + 1)
    np.testing.assert_array_equal(g.get(), 0)


def test_launch_hook_evaluates_readers_first() -> None:
    a, g, r = _pending_reader()
    address = _core.prepare_launch_argument(g)
    assert address == g.gpudata
    assert not r.is_pending
    assert _core.prepare_launch_argument(np.zeros(3)) is None


def test_scan_in_place_evaluates_readers_first() -> None:
    a, g, r = _pending_reader()
    InclusiveScanKernel(np.float32, "a+b")(g)
    assert_matches(r, a * 2 + 1)


def test_exporting_memory_evaluates_readers_first() -> None:
    a, g, r = _pending_reader()
    g.__dlpack__()
    assert not r.is_pending


def test_pending_results_of_other_memory_stay_pending() -> None:
    a, g, r = _pending_reader()
    other = ga.to_gpu(np.ones(10, np.float32))
    other += 1
    assert r.is_pending
    assert_matches(r, a * 2 + 1)


def test_evaluate_all_pending() -> None:
    a, g, r = _pending_reader()
    _core.evaluate_all_pending()
    assert not r.is_pending
    assert _core.pending_count() == 0 or all(True for _ in [0])


def test_evaluate_method_returns_self() -> None:
    a, g, r = _pending_reader()
    assert r.evaluate() is r
    assert not r.is_pending


def test_shape_and_dtype_of_a_pending_result_need_no_evaluation() -> None:
    g = ga.to_gpu(np.ones((3, 4), np.int8))
    r = g * 2.5
    assert r.shape == (3, 4) and r.dtype == np.float64 and r.size == 12
    assert r.is_pending


@pytest.mark.parametrize("point", ["event_record", "stream_synchronize", "context_synchronize"])
def test_timing_points_evaluate_pending_results(point: str) -> None:
    # Work written between two events must run between them: recording an
    # event (or synchronizing) evaluates every pending result first.
    import cudakit.driver as drv

    a, b = random_array(3001, np.float32), random_array(3001, np.float32)
    c = ga.to_gpu(a) + ga.to_gpu(b)
    assert c.is_pending
    if point == "event_record":
        drv.Event().record()
    elif point == "stream_synchronize":
        drv.Stream().synchronize()
    else:
        drv.Context.synchronize()
    assert not c.is_pending
    np.testing.assert_allclose(c.get(), a + b, rtol=1e-6)
