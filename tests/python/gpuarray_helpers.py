"""Shared helpers of the gpuarray tests: fresh random data of every dtype."""

from __future__ import annotations

import numpy as np

# Sizes that are not multiples of any block size.
ODD_SIZES = (1, 37, 1000, 4099)

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64]
FLOAT_DTYPES = [np.float16, np.float32, np.float64]
COMPLEX_DTYPES = [np.complex64, np.complex128]
ALL_DTYPES = [np.bool_] + INT_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES

_rng = np.random.default_rng()


def random_array(shape, dtype, low: float = -50, high: float = 50,
                 nonzero: bool = False) -> np.ndarray:
    """Random values of `dtype` (never all zeros); `nonzero` avoids 0 (divisors)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return _rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo = max(int(low), int(info.min))
        hi = min(int(high), int(info.max))
        values = _rng.integers(lo, hi + 1, size=shape, dtype=np.int64)
        if nonzero:
            values[values == 0] = 1
        return values.astype(dtype)
    values = _rng.uniform(low, high, size=shape)
    if dtype.kind == "c":
        values = values + 1j * _rng.uniform(low, high, size=shape)
    if nonzero:
        values[np.abs(values) < 0.5] = 1.5
    return np.asarray(values).astype(dtype)


def tolerance(dtype) -> dict:
    dtype = np.dtype(dtype)
    if dtype in (np.float16,):
        return {"rtol": 2e-3, "atol": 2e-3}
    if dtype in (np.float32, np.complex64):
        return {"rtol": 2e-5, "atol": 1e-5}
    if dtype.kind in "fc":
        return {"rtol": 1e-12, "atol": 1e-12}
    return {"rtol": 0, "atol": 0}


def assert_matches(result, expected: np.ndarray) -> None:
    """`result` (a GPUArray) equals numpy's `expected` in shape, dtype and values."""
    host = result.get()
    assert host.shape == expected.shape, (host.shape, expected.shape)
    assert host.dtype == expected.dtype, (host.dtype, expected.dtype)
    np.testing.assert_allclose(host, expected, equal_nan=True, **tolerance(expected.dtype))


def assert_float_sum_close(actual, terms, ulps: float = 8) -> None:
    """Check a floating-point sum computed in another order than numpy's.

    The terms may cancel, so the error of the sum scales with the sum of the
    terms' magnitudes, not with the (possibly small) result: the bound is a
    few units in the last place of the terms' dtype times sum(|terms|).
    """
    terms = np.asarray(terms)
    eps = float(np.finfo(terms.dtype if terms.dtype.kind == "f" else np.float64).eps)
    wide = terms.astype(np.float64)
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), wide.sum(), rtol=0,
                               atol=ulps * eps * float(np.abs(wide).sum()) + 1e-30)
