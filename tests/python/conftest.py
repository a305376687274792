"""Shared pytest setup: the `gpu` marker skips (with the reason) without a GPU."""

from __future__ import annotations

import pytest

import cudakit.driver as drv

HAS_GPU = drv.backend() == "cuda"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU: cudakit runs on the CPU backend here")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
