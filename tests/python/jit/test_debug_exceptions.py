"""@cuda.jit(debug=True): a kernel that stops itself with a Python exception
(an index out of bounds, `raise`, `assert`, a zero step) raises that
exception's class, as Numba raises it, and is a KernelFault too
(python-kernels.md, "debugging"). On a GPU the kernel leaves its text in
pinned host memory and traps; that twin runs each case in a child process,
since a trap leaves the context unusable."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest

import cudakit.driver as drv
from cudakit import cuda

HAS_GPU = drv.backend() == "cuda"


@cuda.jit(debug=True)
def writes_past_the_end(out):
    i = cuda.grid(1)
    out[i] = i


@cuda.jit(debug=True)
def reads_before_the_start(out, k):
    out[0] = out[k]


@cuda.jit(debug=True)
def raises_zero_division(out, d):
    if d == 0:
        raise ZeroDivisionError("division by zero")
    out[0] = 1 // d


@cuda.jit(debug=True)
def asserts_positive(out, v):
    assert v > 0
    out[0] = v


@cuda.jit(debug=True)
def steps_by(out, step):
    for i in range(0, 4, step):
        out[i] = i


@cuda.jit(debug=True)
def picks_from_a_tuple(out, k):
    t = (3, 5, 7)
    out[0] = t[k]


@dataclass
class Case:
    name: str
    launch: str  # the call, with `out` a 5-element int32 device array
    error: type[BaseException]
    message: str


CASES = [
    Case("index past the end", "writes_past_the_end[1, 8](out)", IndexError,
         r"IndexError: index 5 is out of bounds for axis 0 with size 5 in 'out\[i\]'"),
    Case("negative index past the start", "reads_before_the_start[1, 1](out, -6)", IndexError,
         r"IndexError: index -6 is out of bounds for axis 0 with size 5"),
    Case("raise ZeroDivisionError", "raises_zero_division[1, 1](out, 0)", ZeroDivisionError,
         r"ZeroDivisionError\('division by zero'\) raised in raises_zero_division"),
    Case("failed assert", "asserts_positive[1, 1](out, -3)", AssertionError,
         r"AssertionError: v > 0 in asserts_positive"),
    Case("range step of zero", "steps_by[1, 1](out, 0)", ValueError,
         r"ValueError: range\(\) arg 3 must not be zero"),
    Case("tuple index out of range", "picks_from_a_tuple[1, 1](out, 3)", IndexError,
         r"IndexError: tuple index out of range"),
]


def launch(case: Case) -> None:
    out = cuda.to_device(np.arange(5, dtype=np.int32))
    eval(case.launch, globals(), {"out": out})
    cuda.synchronize()


@pytest.mark.skipif(HAS_GPU, reason="the CPU backend's errors; the GPU's are the gpu twin")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_python_exception_is_raised_and_is_a_kernel_fault(case: Case) -> None:
    with pytest.raises(case.error, match=case.message) as caught:
        launch(case)
    error = caught.value
    assert isinstance(error, drv.KernelFault), type(error).__mro__
    assert type(error).__name__ == "Kernel" + case.error.__name__
    assert re.search(r'File "[^"]*test_debug_exceptions\.py", line \d+', str(error)), str(error)
    # The kernel stopped itself; the next launch runs normally.
    out = cuda.to_device(np.zeros(5, dtype=np.int32))
    writes_past_the_end[1, 5](out)
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(5))


@pytest.mark.skipif(HAS_GPU, reason="the CPU backend's errors")
def test_other_kernel_faults_stay_plain_kernel_faults() -> None:
    from cudakit.compiler import SourceModule

    import cudakit.autoinit  # noqa: F401
    trap = SourceModule("__global__ void stops(int *p) { if (p) __trap(); }").get_function("stops")
    with pytest.raises(drv.KernelFault) as caught:
        trap(drv.mem_alloc(4), block=(1, 1, 1))
        drv.Context.synchronize()
    assert type(caught.value) is drv.KernelFault
    assert not isinstance(caught.value, (IndexError, AssertionError, ValueError))


@pytest.mark.skipif(HAS_GPU, reason="the GPU twin below runs this code")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_gpu_code_that_leaves_the_text_compiles_with_nvrtc(case: Case) -> None:
    """The GPU path, compiled here: the kernel writes its text through the
    global ck_fault_text, which cudakit sets after loading the module."""
    from cudakit import _core

    try:
        _core.jit_compile_for_gpu('extern "C" __global__ void probe() {}', "compute_90")
    except Exception as error:  # noqa: BLE001
        pytest.skip(f"NVRTC is not available: {error}")
    with pytest.raises(case.error):
        launch(case)  # compiles the kernel for these arguments
    kernel = globals()[case.launch.split("[")[0]]
    for specialization in kernel.overloads.values():
        translation = specialization.translation
        ptx = _core.jit_compile_for_gpu(translation.source, "compute_90")
        assert f".entry {translation.kernel_name}" in ptx
        assert ".u64 ck_fault_text;" in ptx and "ld.global.u64" in ptx


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_on_a_gpu_the_same_exception_is_raised_with_the_text(case: Case) -> None:
    # The kernel leaves its text in pinned host memory and traps: the fault
    # carries the text and its class. A trap poisons the context, so each
    # case runs in a child process.
    from .test_errors import run_isolated

    output = run_isolated(
        "import cudakit.driver as drv\n"
        "from jit.test_debug_exceptions import CASES, launch\n"
        f"case = next(c for c in CASES if c.name == {case.name!r})\n"
        "try:\n"
        "    launch(case)\n"
        "except drv.KernelFault as error:\n"
        "    print('raised', type(error).__name__, isinstance(error, case.error))\n"
        "    print('text:', str(error))\n")
    assert f"raised Kernel{case.error.__name__} True" in output, output
    assert re.search("text: .*" + case.message, output), output
    assert re.search(r'File "[^"]*test_debug_exceptions\.py", line \d+', output), output


def divide(out, x, y, k, m):
    out[0] = y / x
    out[1] = k // m
    out[2] = y % x


@pytest.mark.parametrize("x, m, text", [
    (0.0, 3, "ZeroDivisionError: division by zero"),
    (2.0, 0, "ZeroDivisionError: integer division or modulo by zero")])
def test_debug_division_by_zero_raises_at_the_launch(x: float, m: int, text: str) -> None:
    # A debug kernel's launch waits for it, so the launch itself raises (as
    # Numba's does), and a zero divisor is Python's ZeroDivisionError.
    kernel = cuda.jit(debug=True)(divide)
    with pytest.raises(ZeroDivisionError, match=re.escape(text)):
        kernel[1, 1](np.zeros(3), x, 1.5, 7, m)
    out = np.zeros(3)
    kernel[1, 1](out, 2.0, 1.5, 7, 3)  # the next launch runs normally
    np.testing.assert_array_equal(out, [0.75, 2, 1.5])
    quiet = np.zeros(3)
    cuda.jit(divide)[1, 1](quiet, 2.0, 1.5, 7, 0)  # without debug: Numba's GPU result, 0
    cuda.synchronize()
    assert quiet[1] == 0


class ParticleLost(Exception):
    pass


def checks_particles(x, lost_at):
    i = cuda.grid(1)
    if i < x.shape[0] and x[i] < 0:
        if i == lost_at:
            raise ParticleLost("negative mass")
        raise ParticleLost


def test_a_programs_own_exception_is_raised_with_numbas_message() -> None:
    kernel = cuda.jit(debug=True)(checks_particles)
    x = np.abs(np.random.default_rng(5).standard_normal(40)) + 0.1
    kernel[2, 32](x, 3)  # nothing negative: no exception
    x[33] = -1.0
    with pytest.raises(ParticleLost, match=r"In function 'checks_particles', file .*, line "
                       r"\d+: tid=\[1, 0, 0\] ctaid=\[1, 0, 0\]: negative mass$"):
        kernel[2, 32](x, 33)
    with pytest.raises(ParticleLost, match=r"tid=\[1, 0, 0\] ctaid=\[1, 0, 0\]$"):
        kernel[2, 32](x, 0)
