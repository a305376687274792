"""gpuarray module functions against numpy: reductions, dot products,
selection, take, joining."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.gpuarray as ga
from gpuarray_helpers import ODD_SIZES, assert_matches, random_array

REDUCE_DTYPES = [np.int8, np.int32, np.uint16, np.int64, np.float32, np.float64]


@pytest.mark.parametrize("size", ODD_SIZES)
@pytest.mark.parametrize("dtype", REDUCE_DTYPES)
def test_sum_max_min(size: int, dtype) -> None:
    a = random_array(size, dtype, low=0 if np.dtype(dtype).kind == "u" else -50)
    g = ga.to_gpu(a)
    s = ga.sum(g)
    assert s.shape == ()
    assert_matches(s, np.asarray(np.sum(a)))
    assert_matches(ga.max(g), np.asarray(np.max(a)))
    assert_matches(ga.min(g), np.asarray(np.min(a)))
    assert_matches(g.sum(), np.asarray(a.sum()))


def test_sum_with_dtype_axis_and_complex() -> None:
    a = random_array((33, 17), np.float32)
    g = ga.to_gpu(a)
    assert_matches(ga.sum(g, dtype=np.float64), np.asarray(a.sum(dtype=np.float64)))
    assert_matches(ga.sum(g, axis=1), a.sum(axis=1))
    c = random_array(1001, np.complex64)
    assert_matches(ga.sum(ga.to_gpu(c)), np.asarray(c.sum()))
    assert_matches(ga.mean(g), np.asarray(a.mean()))


def test_min_of_empty_is_refused() -> None:
    with pytest.raises(ValueError):
        ga.min(ga.zeros(0, np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex128])
def test_dot_and_vdot(dtype) -> None:
    a = random_array(4099, dtype, low=-3, high=3)
    b = random_array(4099, dtype, low=-3, high=3)
    if np.dtype(dtype).kind == "f":
        # A sum of 4099 products in another order: the error scales with the
        # sum of their magnitudes, not with the (possibly cancelled) result.
        scale = float(np.sum(np.abs(a.astype(np.float64) * b)))
        eps = float(np.finfo(dtype).eps)
        for got in (ga.dot(ga.to_gpu(a), ga.to_gpu(b)), ga.vdot(ga.to_gpu(a), ga.to_gpu(b))):
            assert got.get().dtype == np.dot(a, b).dtype
            np.testing.assert_allclose(float(got.get()), float(np.dot(a.astype(np.float64), b)),
                                       rtol=0, atol=8 * eps * scale)
        return
    assert_matches(ga.dot(ga.to_gpu(a), ga.to_gpu(b)), np.asarray(np.dot(a, b)))
    assert_matches(ga.vdot(ga.to_gpu(a), ga.to_gpu(b)), np.asarray(np.vdot(a, b)))


def test_dot_of_matrices_is_pycudas_elementwise_sum() -> None:
    a = random_array((30, 20), np.float64)
    b = random_array((30, 20), np.float64)
    assert_matches(ga.dot(ga.to_gpu(a), ga.to_gpu(b)), np.asarray(np.sum(a * b)))
    with pytest.raises(ValueError):
        ga.dot(ga.to_gpu(a), ga.to_gpu(np.ones(7)))


def test_subset_dot() -> None:
    a = random_array(1000, np.float64)
    b = random_array(1000, np.float64)
    subset = np.array([3, 999, 10, 10, 500], dtype=np.int32)
    assert_matches(ga.subset_dot(ga.to_gpu(subset), ga.to_gpu(a), ga.to_gpu(b)),
                   np.asarray(np.dot(a[subset], b[subset])))


def test_maximum_minimum_where_if_positive() -> None:
    a = random_array(1001, np.float32)
    b = random_array(1001, np.float32)
    ga_, gb = ga.to_gpu(a), ga.to_gpu(b)
    assert_matches(ga.maximum(ga_, gb), np.maximum(a, b))
    assert_matches(ga.minimum(ga_, gb), np.minimum(a, b))
    assert_matches(ga.maximum(ga_, 0), np.maximum(a, np.float32(0)))
    assert_matches(ga.where(ga_ > gb, ga_, 0.0), np.where(a > b, a, np.float32(0)))
    assert_matches(ga.if_positive(ga_, ga_, gb), np.where(a > 0, a, b))
    with pytest.raises(ValueError):
        ga.if_positive(ga_, ga_, ga.to_gpu(np.ones(3, np.float32)))


def test_nan_propagation_of_maximum() -> None:
    a = np.array([1.0, np.nan, 3.0], np.float64)
    b = np.array([np.nan, 2.0, 1.0], np.float64)
    assert_matches(ga.maximum(ga.to_gpu(a), ga.to_gpu(b)), np.maximum(a, b))


def test_take() -> None:
    a = random_array(777, np.int64)
    idx = random_array(1001, np.int32, low=-777, high=776)
    assert_matches(ga.take(ga.to_gpu(a), ga.to_gpu(idx)), np.take(a, idx))
    with pytest.raises(ValueError):
        ga.take(ga.to_gpu(a), ga.to_gpu(np.array([777])))


def test_concatenate_and_stack() -> None:
    parts = [random_array((3, 5), np.float32), random_array((2, 5), np.float32)]
    assert_matches(ga.concatenate([ga.to_gpu(p) for p in parts]), np.concatenate(parts))
    same = [random_array((4, 3), np.int16) for _ in range(3)]
    assert_matches(ga.stack([ga.to_gpu(p) for p in same], axis=1), np.stack(same, axis=1))
    with pytest.raises(ValueError):
        ga.concatenate([ga.to_gpu(parts[0]), ga.to_gpu(np.ones((2, 4), np.float32))])


def test_cumsum() -> None:
    a = random_array(4099, np.int32, low=-5, high=5)
    assert_matches(ga.cumsum(ga.to_gpu(a)), np.cumsum(a))


def test_as_gpuarray() -> None:
    a = random_array(5, np.float32)
    g = ga.to_gpu(a)
    assert ga.as_gpuarray(g) is g
    np.testing.assert_array_equal(ga.as_gpuarray(a).get(), a)
    assert ga.is_gpuarray(g) and not ga.is_gpuarray(a)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_binary(name: str) -> None:
    a = random_array((10, 4), np.float64, low=-1, high=1)
    a[a < 0] = 0
    b = random_array((10, 4), np.int32, low=0, high=2)
    assert_matches(getattr(ga, name)(ga.to_gpu(a), ga.to_gpu(b)), getattr(np, name)(a, b))
    assert_matches(getattr(ga, name)(ga.to_gpu(a), 0.0), getattr(np, name)(a, 0.0))


def test_logical_not() -> None:
    a = random_array(100, np.float32, low=0, high=2).round()
    assert_matches(ga.logical_not(ga.to_gpu(a)), np.logical_not(a))


def test_subset_sum_min_max() -> None:
    a = random_array(2000, np.float32)
    subset = np.array([j for j in range(2000) if j % 5], dtype=np.int32)
    ga_, gs = ga.to_gpu(a), ga.to_gpu(subset)
    # float32 terms added in another order than numpy's, and they may cancel:
    # the bound scales with the terms' sizes, not the sum's.
    terms = a[subset].astype(np.float64)
    np.testing.assert_allclose(ga.subset_sum(gs, ga_).get(), terms.sum(), rtol=0,
                               atol=1e-6 * np.abs(terms).sum())
    assert ga.subset_max(gs, ga_).get() == a[subset].max()
    assert ga.subset_min(gs, ga_).get() == a[subset].min()
