"""``python -m cudakit.doctor``: what works here and what to do about what does not.

The Python package's counterpart of the ``cudakit doctor`` command (both are
installed by ``pip install``; they give the same verdict and exit status): the driver, the devices, NVRTC, the
host compiler of the CPU backend, ``nvcc``, the compile cache, and a vector
add on the backend cudakit chose, checked against numpy. Each failed check
prints cudakit's own error message, with its hint. Exit status 0 when the
vector add ran correctly on some backend, 1 otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

_DRIVER_PROBE = """
import cudakit.driver as drv
drv.init()
for i in range(drv.Device.count()):
    d = drv.Device(i)
    major, minor = d.compute_capability()
    print(f"{i}: {d.name()}, sm_{major}{minor}, {d.total_memory() / 2**30:.1f} GiB")
"""


def _line(status: str, text: str) -> None:
    print(f"[{status:^4}] {text}")


def _indented(text: str) -> str:
    return textwrap.indent(text.strip(), "       ")


def _check_driver() -> bool:
    """In a child process with CUDAKIT_BACKEND=cuda, so a missing driver is an
    error with its message rather than a quiet fall back to the CPU."""
    result = subprocess.run([sys.executable, "-c", _DRIVER_PROBE], capture_output=True,
                            text=True, timeout=120,
                            env={**os.environ, "CUDAKIT_BACKEND": "cuda"})
    if result.returncode == 0:
        _line("ok", "NVIDIA driver loaded; GPUs:")
        print(_indented(result.stdout))
        return True
    error = result.stderr.strip().splitlines()
    # The exception and its hint, without the traceback above them.
    start = next((i for i, text in enumerate(error) if text.startswith("cudakit.")),
                 max(len(error) - 1, 0))
    _line("FAIL", "the GPU path is not usable:")
    print(_indented("\n".join(error[start:])))
    return False


def _check_nvrtc() -> None:
    from . import _core

    try:
        arch = _core.offline_gpu_arch
        _core.jit_compile_for_gpu('extern "C" __global__ void k(float *a) { a[0] = 1.0f; }',
                                  arch.replace("sm_", "compute_"))
        _line("ok", f"NVRTC compiles CUDA C++ (for {arch} here; for the GPU's own arch on a GPU)")
    except Exception as error:  # the message and hint say what is missing
        _line("FAIL", "NVRTC (the run-time compiler GPUs need) does not work:")
        print(_indented(str(error)))


def _check_host_compiler() -> None:
    """The command the CPU backend compiles kernels with at run time:
    CUDAKIT_CXX, else CXX, else c++ (as `cudakit doctor` checks it)."""
    named_by = next((var for var in ("CUDAKIT_CXX", "CXX") if os.environ.get(var)), None)
    compiler = os.environ[named_by] if named_by else "c++"
    how = f" ({named_by})" if named_by else ""
    found = shutil.which(compiler)
    if found:
        _line("ok", f"C++ compiler for the CPU backend: {found}{how}")
        return
    _line("warn", f"no C++ compiler for the CPU backend: '{compiler}'{how} is not on PATH")
    print(_indented("cause: the CPU backend compiles each kernel with the host C++ compiler at "
                    "run time (the GPU path does not need one)\n"
                    "fix:   install g++ or clang++ (Debian/Ubuntu: apt install g++), or name one "
                    "with CUDAKIT_CXX"))


def _check_nvcc() -> None:
    nvcc = shutil.which("nvcc")
    if nvcc:
        _line("ok", f"nvcc on PATH: {nvcc} (cudakit does not need it; PyCUDA does)")
    else:
        _line("ok", "nvcc is not on PATH: not needed, cudakit compiles with NVRTC")


def _check_cache() -> None:
    from . import _core

    enabled, directory = _core.jit_cache_directory()
    if not enabled:
        _line("ok", "the on-disk compile cache is off")
        return
    writable = os.access(directory, os.W_OK) if os.path.isdir(directory) else \
        os.access(os.path.dirname(directory.rstrip("/")) or ".", os.W_OK)
    _line("ok" if writable else "warn",
          f"compile cache {directory} " + ("is writable" if writable else
                                           "is not writable: set CUDAKIT_CACHE_DIR to a "
                                           "writable directory"))


def _run_vector_add() -> bool:
    import numpy as np

    from . import driver as drv
    from .compiler import SourceModule

    try:
        drv.init()
        context = drv.Device(0).retain_primary_context()
        context.push()
        try:
            n = 100_003
            a = np.random.randn(n).astype(np.float32)
            b = np.random.randn(n).astype(np.float32)
            c = np.zeros_like(a)
            f = SourceModule("""
            __global__ void vec_add(const float *a, const float *b, float *c, int n)
            {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) c[i] = a[i] + b[i];
            }""").get_function("vec_add")
            f(drv.In(a), drv.In(b), drv.Out(c), np.int32(n), block=(256, 1, 1),
              grid=((n + 255) // 256, 1))
            error = float(np.max(np.abs(c - (a + b))))
        finally:
            context.pop()
    except Exception as failure:
        _line("FAIL", f"the vector add on the {drv.backend()} backend failed:")
        print(_indented(str(failure)))
        return False
    ok = error == 0.0
    _line("ok" if ok else "FAIL", f"vector add of {n} random floats on the {drv.backend()} "
                                  f"backend ({drv.Device(0).name()}): max error {error}")
    return ok


def main(argv: list[str] | None = None) -> int:
    """The report; the exit status is `cudakit doctor`'s: 0 when the GPU path
    works, 1 when it does not (with --cpu-ok: 0 when the CPU backend runs)."""
    import argparse

    from . import driver as drv

    parser = argparse.ArgumentParser(prog="python -m cudakit.doctor", description=main.__doc__)
    parser.add_argument("--cpu-ok", action="store_true",
                        help="exit 0 when the GPU path is unusable but the CPU backend works")
    options = parser.parse_args(argv)

    chosen = os.environ.get("CUDAKIT_BACKEND")
    print("Driver and GPUs")
    gpu = _check_driver()
    print("Compilers")
    _check_nvrtc()
    _check_host_compiler()
    _check_nvcc()
    _check_cache()
    print("Backend")
    reason = f"CUDAKIT_BACKEND={chosen}" if chosen else \
        "automatic: " + ("a GPU is usable" if gpu else "no usable GPU")
    _line("ok", f"selected backend: {drv.backend()} ({reason})")
    print("Run")
    ran = _run_vector_add()
    # The verdict in `cudakit doctor`'s words.
    print()
    if gpu:
        print("GPU path ready")
    else:
        print("GPU path unusable (see above)")
        if ran:
            print("CPU backend works: kernels run on the host"
                  + ("" if options.cpu_ok else " (--cpu-ok: exit 0 for that)"))
    return 0 if ran and (gpu or options.cpu_ok) else 1


if __name__ == "__main__":
    sys.exit(main())
