"""The tutorial's PyCUDA programs (tests/python/tutorial/), imports changed
to cudakit, each run as written and checked against numpy."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cudakit.driver as drv

TUTORIAL = Path(__file__).parent / "tutorial"


def run(name: str) -> dict[str, Any]:
    return runpy.run_path(str(TUTORIAL / name), run_name="__main__")


def test_vector_add_with_mem_alloc_and_memcpy() -> None:
    g = run("vector_add.py")
    np.testing.assert_array_equal(g["c_cpu"], g["a_cpu"] + g["b_cpu"])


def test_vector_add_with_in_and_out() -> None:
    g = run("vector_add_in_out.py")
    np.testing.assert_array_equal(g["output"], g["input"] + g["input"])


def test_tiled_shared_memory_matmul() -> None:
    g = run("matmul_shared.py")
    # 53-long dot products of N(0,1) float32 values, tiles summed in float32.
    np.testing.assert_allclose(g["C"], g["A"].astype(np.float64) @ g["B"], rtol=1e-4, atol=1e-4)


def test_streams_with_pagelocked_memory_and_async_copies() -> None:
    g = run("streams.py")
    np.testing.assert_array_equal(g["c_cpu"], g["a_cpu"] + g["b_cpu"])


def test_dtype_template_with_no_extern_c() -> None:
    g = run("dtype_template.py")
    for dtype, (a, b, c) in g["results"].items():
        assert c.dtype == dtype
        np.testing.assert_array_equal(c, a + b)


def test_mean_filter_3x3() -> None:
    g = run("mean_filter.py")
    np.testing.assert_array_equal(g["filtered"], g["mean_filter_reference"](g["image"]))


def test_device_queries() -> None:
    g = run("device_query.py")
    assert drv.Device.count() >= 1
    assert g["dev"].get_attribute(drv.device_attribute.MAX_THREADS_PER_BLOCK) >= 512


def test_error_handling_catches_logic_error(capsys: pytest.CaptureFixture[str]) -> None:
    run("error_handling.py")
    out = capsys.readouterr().out
    assert "4194304 bytes do not fit the destination (16 bytes)" in out
    assert "refused, as it should be" in out


def test_selecting_device_1() -> None:
    if drv.Device.count() >= 2:
        run("select_device_multi_gpu.py")
        return
    with pytest.raises(drv.LogicError, match="no such device"):
        run("select_device_multi_gpu.py")


def test_printf_in_a_kernel() -> None:
    # Device printf writes to the process's stdout (file descriptor 1).
    result = subprocess.run([sys.executable, str(TUTORIAL / "printf_debug.py")],
                            capture_output=True, text=True, timeout=300,
                            env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert "printf buffer: 1048576" in result.stdout
    for i in range(3):
        assert f"hello from thread {i}" in result.stdout
    assert "hello from thread 3" not in result.stdout
