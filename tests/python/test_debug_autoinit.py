"""cudakit.autoinit and cudakit.debug, each in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **env})


def test_autoinit_takes_cuda_device_and_finishes_at_exit() -> None:
    result = run("""
        import cudakit.autoinit as ai, cudakit.driver as drv
        assert ai.device == drv.Device(0) and drv.Context.get_current() is ai.context
        print("ok", ai.device.ordinal)
    """, CUDA_DEVICE="0")
    assert result.returncode == 0, result.stderr
    assert "ok 0" in result.stdout


def test_autoinit_names_a_bad_cuda_device() -> None:
    result = run("import cudakit.autoinit", CUDA_DEVICE="gpu0")
    assert result.returncode != 0
    assert "CUDA_DEVICE='gpu0' is not a device number" in result.stderr


def test_debug_compiles_with_device_debug_info_and_synchronizes() -> None:
    result = run("""
        import cudakit.debug
        import numpy as np, cudakit.driver as drv
        from cudakit.compiler import SourceModule
        f = SourceModule("__global__ void inc(float *a, int n)"
                         "{ int i = threadIdx.x; if (i < n) a[i] += 1; }").get_function("inc")
        a = drv.to_device(np.zeros(8, np.float32))
        f(a, 8, block=(8, 1, 1))
        print(drv.from_device(a, 8, np.float32).tolist())
    """)
    assert result.returncode == 0, result.stderr
    assert "[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]" in result.stdout


@pytest.mark.gpu
def test_debug_names_the_faulting_kernel() -> None:
    result = run("""
        import cudakit.debug
        import cudakit.driver as drv
        from cudakit.compiler import SourceModule
        f = SourceModule("__global__ void wild_write(int *p) { p[1 << 30] = 1; }")
        try:
            f.get_function("wild_write")(drv.mem_alloc(4), block=(1, 1, 1))
        except drv.LaunchError as e:
            print("fault:", type(e).__name__, e.kernels if hasattr(e, "kernels") else "")
    """)
    assert "fault:" in result.stdout, result.stderr
    assert "wild_write" in result.stdout
