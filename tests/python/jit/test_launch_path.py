"""The launch path of kernel[grid, block](...): a launcher kept by a loop
remembers the last call's argument types and kernel, so every change of
argument types (dtype, dimensions, Python int / float, numpy scalars) must
still reach the right specialization; keywords are refused clearly."""

from __future__ import annotations

import numpy as np
import pytest

from cudakit import cuda


@cuda.jit
def scaled(out, x, factor):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * factor


@cuda.jit
def row_sums(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        total = 0.0
        for j in range(x.shape[1]):
            total += x[i, j]
        out[i] = total


def test_one_launcher_alternating_argument_types_reaches_each_specialization() -> None:
    rng = np.random.default_rng(11)
    n = 301
    launch = scaled[3, 128]  # one launcher object, as a loop would hold it
    cases = [
        (np.float32, 3),                  # int factor, float32 arrays
        (np.float64, 3),                  # same Python types, other dtype
        (np.float32, 2.5),                # float factor
        (np.int32, 4),                    # integer arrays
        (np.float32, np.float32(0.5)),    # numpy scalar
        (np.float64, 2.5),
        (np.float32, 3),                  # back to the first
    ]
    for dtype, factor in cases * 2:
        x = (rng.standard_normal(n) * 100).astype(dtype)
        out = cuda.device_array(n, dtype=dtype)
        launch(out, cuda.to_device(x), factor)
        expected = (x * factor).astype(dtype)
        np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-6)
    assert len(scaled.overloads) >= 6


def test_dimensions_change_between_calls_of_one_launcher() -> None:
    rng = np.random.default_rng(12)
    launch = row_sums[2, 64]
    for rows, cols in ((77, 5), (100, 1), (77, 5), (65, 9)):
        x = rng.standard_normal((rows, cols))
        out = cuda.device_array(rows)
        launch(out, cuda.to_device(x))
        np.testing.assert_allclose(out.copy_to_host(), x.sum(axis=1), rtol=1e-12)
        # A host array of the same shape takes the copying path, then back.
        host_out = np.zeros(rows)
        with pytest.warns(Warning):
            launch(host_out, x)
        np.testing.assert_allclose(host_out, x.sum(axis=1), rtol=1e-12)


def test_wrong_argument_count_after_a_fast_launch_is_still_an_error() -> None:
    x = cuda.to_device(np.arange(10, dtype=np.float32))
    out = cuda.device_array_like(x)
    launch = scaled[1, 32]
    launch(out, x, 2)
    with pytest.raises(TypeError, match="3"):
        launch(out, x)


def test_keyword_arguments_are_refused() -> None:
    x = cuda.to_device(np.arange(10, dtype=np.float32))
    out = cuda.device_array_like(x)
    with pytest.raises(TypeError, match="by position, not by keyword"):
        scaled[1, 32](out, x, factor=2)


def test_a_warm_configuration_still_honours_settings_made_after_it() -> None:
    # kernel[grid, block] hands back the launcher made before; occupancy
    # warnings switched on and extensions added later still take effect.
    import warnings

    kernel = cuda.jit(scaled.py_func)
    rng = np.random.default_rng(17)
    x = rng.standard_normal(77).astype(np.float32)
    out = cuda.device_array_like(x)
    kernel[1, 128](out, cuda.to_device(x), 2.0)
    assert kernel[1, 128] is kernel[1, 128]
    old = cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS
    cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            kernel[1, 128]
        assert any("Grid size 1" in str(w.message) for w in caught)
    finally:
        cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = old

    seen = []

    class Doubler:
        def prepare_args(self, ty, val, stream=0, retr=None):
            seen.append(ty)
            return ty, val

    kernel.extensions.append(Doubler())
    kernel[1, 128](out, cuda.to_device(x), 3.0)
    assert len(seen) == 3
    np.testing.assert_allclose(out.copy_to_host(), x * 3.0, rtol=1e-6)
