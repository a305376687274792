"""The Numba tutorial's programs (tutorial/*.py, verbatim but for the
import), each run as a program and its printed verdict checked; the
programs compare against NumPy themselves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TUTORIAL = Path(__file__).parent / "tutorial"


def run_program(name: str) -> str:
    env = dict(os.environ)
    package_root = Path(__import__("cudakit").__file__).parent.parent
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package_root),
                                                      env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, str(TUTORIAL / name)], capture_output=True,
                            text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_environment_check_lists_a_device() -> None:
    assert "<Managed Device 0>" in run_program("env_check.py")


def test_vector_add_matches_numpy() -> None:
    out = run_program("vector_add.py")
    assert "结果验证成功" in out, out


def test_shared_memory_matmul_matches_numpy() -> None:
    out = run_program("matmul_shared.py")
    assert "矩阵乘法验证成功" in out, out


def test_atomic_accumulation_matches_numpy() -> None:
    out = run_program("atomic_sum.py")
    assert "原子操作验证成功" in out, out


def test_print_debugging_prints_from_thread_zero_only() -> None:
    out = run_program("print_debug.py")
    assert out.strip().splitlines() == ["Block 0 Thread 0 value 1.500000"], out


def test_benchmark_template_times_the_vector_add() -> None:
    out = run_program("benchmark_template.py")
    assert "函数 gpu_kernel 平均耗时" in out and "结果验证成功" in out, out


def test_shared_memory_matmul_kernel_at_sizes_not_multiples_of_the_tile() -> None:
    # The program runs 512x512x512; its kernel's bounds checks are for the other sizes.
    import math
    import runpy

    import numpy as np

    from cudakit import cuda

    program = runpy.run_path(str(TUTORIAL / "matmul_shared.py"), run_name="tutorial_matmul")
    kernel, tpb = program["matmul_shared_mem"], program["TPB"]
    M, K, N = 37, 53, 70
    A = np.random.randn(M, K).astype(np.float32)
    B = np.random.randn(K, N).astype(np.float32)
    d_C = cuda.to_device(np.zeros((M, N), np.float32))
    kernel[(math.ceil(N / tpb), math.ceil(M / tpb)), (tpb, tpb)](cuda.to_device(A),
                                                                 cuda.to_device(B), d_C)
    np.testing.assert_allclose(d_C.copy_to_host(), A.astype(np.float64) @ B, rtol=1e-4,
                               atol=1e-4)
