"""Runs last (file order): the sources every earlier test generated compile
with NVRTC for sm_90, the H200's arch."""

from __future__ import annotations

import pytest

from cudakit import _core

from .conftest import GENERATED


def test_every_generated_source_compiles_with_nvrtc():
    if not GENERATED:
        pytest.skip("no kernels were generated in this session (run the whole folder)")
    try:
        _core.jit_compile_for_gpu("extern \"C\" __global__ void probe() {}")
    except Exception as error:  # noqa: BLE001
        pytest.skip(f"NVRTC is not available: {error}")
    failures = []
    for source, name in GENERATED.items():
        try:
            ptx = _core.jit_compile_for_gpu(source)
            assert f".entry {name}" in ptx
        except Exception as error:  # noqa: BLE001
            failures.append(f"{name}: {error}")
    assert not failures, "\n\n".join(failures)
