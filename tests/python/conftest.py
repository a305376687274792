"""Shared pytest setup: the `gpu` marker skips (with the reason) without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import cudakit.driver as drv

HAS_GPU = drv.backend() == "cuda"

# cudakit promotes by NEP 50 (NumPy 2's rules) whatever NumPy is installed.
# Under NumPy 1.24-1.26 the numpy references the tests compare against are
# computed in NumPy's own NEP 50 mode, so both sides follow the same rules.
if np.lib.NumpyVersion(np.__version__) < "2.0.0":
    np._set_promotion_state("weak")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU: cudakit runs on the CPU backend here")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
