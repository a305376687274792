"""Cache preference and shared memory configuration of the context and of
kernels reach the backend, read back where readable, and refuse bad values."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.driver as drv
from cudakit.compiler import SourceModule

SOURCE = """
__global__ void scale(float *x, float factor, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
}
"""


def test_context_cache_config_round_trips() -> None:
    old = drv.Context.get_cache_config()
    try:
        for config in drv.func_cache:
            drv.Context.set_cache_config(config)
            assert drv.Context.get_cache_config() == config
    finally:
        drv.Context.set_cache_config(old)


def test_context_shared_config_round_trips() -> None:
    drv.Context.set_shared_config(drv.shared_config.FOUR_BYTE_BANK_SIZE)
    if drv.backend() == "cpu":  # a GPU with fixed 4-byte banks may report its own
        assert drv.Context.get_shared_config() == drv.shared_config.FOUR_BYTE_BANK_SIZE
    drv.Context.set_shared_config(drv.shared_config.DEFAULT_BANK_SIZE)


def test_bad_context_config_is_a_clear_error() -> None:
    before = drv.Context.get_cache_config()
    with pytest.raises(drv.ArgumentError, match="unknown cache preference 7"):
        drv.Context.set_cache_config(7)
    with pytest.raises(drv.ArgumentError, match="PREFER_L1"):
        drv.Context.set_cache_config(-1)
    with pytest.raises(drv.ArgumentError, match="expected a member"):
        drv.Context.set_cache_config("PREFER_L1")  # type: ignore[arg-type]
    with pytest.raises(drv.ArgumentError, match="bank size 3"):
        drv.Context.set_shared_config(3)
    assert drv.Context.get_cache_config() == before


def test_function_cache_config_reaches_the_kernel_and_launches_stay_right() -> None:
    kernel = SourceModule(SOURCE).get_function("scale")
    threads = kernel.get_attribute(drv.function_attribute.MAX_THREADS_PER_BLOCK)
    assert kernel.cache_config == drv.func_cache.PREFER_NONE
    kernel.set_cache_config(drv.func_cache.PREFER_SHARED)
    assert kernel.cache_config == drv.func_cache.PREFER_SHARED
    kernel.set_cache_config(drv.func_cache.PREFER_L1)
    assert kernel.cache_config == drv.func_cache.PREFER_L1
    assert kernel.get_attribute(drv.function_attribute.MAX_THREADS_PER_BLOCK) == threads

    n = 1000
    x = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    out = x.copy()
    kernel(drv.InOut(out), np.float32(1.5), np.int32(n), block=(128, 1, 1), grid=(8, 1))
    np.testing.assert_allclose(out, x * np.float32(1.5), rtol=1e-6)


def test_bad_function_cache_config_is_a_clear_error() -> None:
    kernel = SourceModule(SOURCE).get_function("scale")
    with pytest.raises(drv.ArgumentError, match="Function.set_cache_config"):
        kernel.set_cache_config(4)
    assert kernel.cache_config == drv.func_cache.PREFER_NONE
    with pytest.raises(drv.ArgumentError, match="bank size"):
        kernel.set_shared_config(9)
    kernel.set_shared_config(drv.shared_config.EIGHT_BYTE_BANK_SIZE)  # valid: checked, no-op
