"""The Numba tutorial's troubleshooting section (6.1 and 6.2, problems 1-5):
what cudakit says for each. docs/guide/tutorials.md maps each test to the
tutorial's text."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cudakit import cuda
from child_process import run_code

NO_DRIVER = {"CUDAKIT_LIBCUDA": "/nonexistent/libcuda.so.1", "CUDAKIT_BACKEND": "cuda"}


@cuda.jit("void(float32[:], float32[:], float32[:])")
def add_float32(a, b, c):
    idx = cuda.grid(1)
    if idx < c.size:
        c[idx] = a[idx] + b[idx]


@cuda.jit
def add_kernel(a, b, c):
    idx = cuda.grid(1)
    if idx < c.size:
        c[idx] = a[idx] + b[idx]


def test_problem_1_the_check_lists_the_devices() -> None:
    # "from numba import cuda; print(cuda.gpus)": the CPU backend is a device here.
    assert "<Managed Device 0>" in str(cuda.gpus)
    assert cuda.is_available()


def test_problem_1_no_driver_is_named_with_what_to_do() -> None:
    result = run_code("from cudakit import cuda; print(cuda.is_available()); print(cuda.gpus)",
                      **NO_DRIVER)
    assert result.stdout.splitlines()[0] == "False", result.stdout
    assert "DriverNotFound" in result.stderr
    assert "nvidia-smi must work" in result.stderr and "CUDAKIT_BACKEND=cpu" in result.stderr


def test_problem_1_without_a_driver_the_cpu_backend_is_chosen() -> None:
    result = run_code("from cudakit import cuda; print(cuda.gpus); cuda.detect()",
                      CUDAKIT_LIBCUDA="/nonexistent/libcuda.so.1")
    assert result.returncode == 0, result.stderr
    assert "<Managed Device 0>" in result.stdout and "CPU backend" in result.stdout


def test_problem_3_float64_data_for_a_float32_signature_says_how_to_fix_it() -> None:
    # "主机是float64设备内核按float32计算就会出错": refused, with the conversion to make.
    n = 1000
    a = np.random.randn(n)  # float64: numpy's default
    c = cuda.device_array(n, np.float32)
    with pytest.raises(TypeError, match="array\\(float64, 1d, C\\)") as e:
        add_float32[(n + 255) // 256, 256](cuda.to_device(a), cuda.to_device(a), c)
    assert "astype(np.float32)" in str(e.value)
    a32, b32 = a.astype(np.float32), np.random.randn(n).astype(np.float32)
    add_float32[(n + 255) // 256, 256](cuda.to_device(a32), cuda.to_device(b32), c)
    np.testing.assert_array_equal(c.copy_to_host(), a32 + b32)


def test_problem_3_copy_to_host_into_an_array_of_another_dtype_is_refused() -> None:
    d = cuda.to_device(np.ones(8, np.float32))
    host = np.zeros(8, np.float64)
    with pytest.raises(ValueError, match="host array is float64 \\(8,\\), the device array "
                                         "float32"):
        d.copy_to_host(host)
    assert not host.any()


def test_problem_3_an_unsigned_kernel_follows_the_data_types() -> None:
    # Without a signature the kernel compiles for the types it gets: float64 stays float64.
    n = 1001
    a, b = np.random.randn(n), np.random.randn(n)
    c = cuda.device_array(n, np.float64)
    add_kernel[(n + 127) // 128, 128](cuda.to_device(a), cuda.to_device(b), c)
    np.testing.assert_array_equal(c.copy_to_host(), a + b)


def test_problem_4_host_arrays_passed_to_a_kernel_warn_about_the_copies() -> None:
    # "内存复制开销过大": numpy arrays handed to a launch are copied in and out each time.
    n = 1001
    a, b = np.random.randn(n).astype(np.float32), np.random.randn(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        add_kernel[(n + 127) // 128, 128](a, b, c)
    assert any("copy" in str(w.message).lower() for w in caught), [str(w.message) for w in caught]
    np.testing.assert_array_equal(c, a + b)
