"""DynamicModule's whole path without a GPU: NVRTC compiles relocatable PTX,
cudakit's linker hands it, with libcudadevrt.a from cuda_libdir, to a
scripted libcuda (tests/unit/cuda_fake_driver.cpp, built with the C++
tests), whose linker logs like the driver's. Runs in a child process: the
driver is chosen once per process. Skipped when the fake driver is not built.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _fake_driver() -> Path:
    candidates = [os.environ.get("CUDAKIT_FAKE_LIBCUDA", ""),
                  str(ROOT / "build" / "lib" / "libcuda_fake_driver.so")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    pytest.skip("the scripted libcuda (cuda_fake_driver, built with the C++ tests) is not built; "
                "set CUDAKIT_FAKE_LIBCUDA to it")


def _run(program: str, tmp_path: Path, **extra_env: str) -> str:
    env = dict(os.environ, CUDAKIT_LIBCUDA=str(_fake_driver()), CUDAKIT_BACKEND="cuda",
               CUDAKIT_CACHE_DIR=str(tmp_path / "cache"), **extra_env)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(program)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_sources_and_cudadevrt_are_linked_by_the_drivers_linker(tmp_path) -> None:
    libdir = tmp_path / "cuda-lib"
    libdir.mkdir()
    (libdir / "libcudadevrt.a").write_bytes(b"!<arch>\n")
    out = _run(f"""
        import cudakit.autoinit
        import cudakit.driver as drv
        from cudakit.compiler import DynamicModule
        assert drv.backend() == "cuda"
        messages = []
        mod = DynamicModule(message_handler=lambda *m: messages.append(m), cuda_libdir={str(libdir)!r})
        mod.add_source('extern __device__ float s(float);'
                       '__global__ void vec_add(float* a) {{ a[0] = s(a[0]); }}',
                       nvcc_options=["-rdc=true", "-lcudadevrt"])
        mod.add_source('__device__ float s(float x) {{ return 2.0f * x; }}', name="s.cu")
        mod.add_stdlib("cudadevrt")  # already added by -lcudadevrt: once
        mod.link()
        print("MESSAGES", messages)
        print("KERNEL", mod.get_function("vec_add") is not None)
    """, tmp_path)
    assert "MESSAGES [(True, 'info    : linked 3 inputs', '')]" in out, out
    assert "KERNEL True" in out


def test_link_errors_carry_the_linkers_log_and_a_missing_library_its_paths(tmp_path) -> None:
    libdir = tmp_path / "cuda-lib"
    libdir.mkdir()
    (libdir / "libcudadevrt.a").write_bytes(b"!<arch>\n")
    out = _run(f"""
        import cudakit.autoinit
        import cudakit.driver as drv
        from cudakit.compiler import DynamicSourceModule
        try:
            DynamicSourceModule('extern __device__ int undefined_function();'
                                '__global__ void k(int* a) {{ a[0] = undefined_function(); }}',
                                cuda_libdir={str(libdir)!r})
        except drv.Error as error:
            print("LINK", type(error).__name__, str(error).replace("\\n", " | "))
        try:
            DynamicSourceModule('__global__ void k() {{}}', cuda_libdir={str(libdir / "nope")!r})
        except drv.LibraryNotFound as error:
            print("LIB", str(error).replace("\\n", " | "))
        try:
            drv.Linker().add_data(b"//", 7)
        except drv.ArgumentError as error:
            print("TYPE", error)
    """, tmp_path)
    link = next(line for line in out.splitlines() if line.startswith("LINK"))
    assert "Undefined reference to 'undefined_function'" in link
    assert "-rdc=true" in link  # the hint
    lib = next(line for line in out.splitlines() if line.startswith("LIB"))
    assert str(libdir / "nope" / "libcudadevrt.a") in lib and "cuda_libdir" in lib
    assert "TYPE" in out and "unknown input type 7" in out


def test_python_launches_through_the_cuda_backend_keep_their_checks(tmp_path) -> None:
    # The paths bench/peers/python_launch_host.py times, on the CUDA backend
    # (the scripted driver finds the loaded kernels by name): repeated
    # launches from one call site, then bad extents, are still checked.
    out = _run("""
        import numpy as np
        import cudakit.autoinit
        import cudakit.driver as drv
        from cudakit import cuda
        from cudakit.compiler import SourceModule
        f = SourceModule('extern "C" __global__ void touch(float *d, int n) '
                         '{ if (threadIdx.x < n) d[threadIdx.x] = 0.0f; }',
                         no_extern_c=True).get_function("touch")
        data = drv.mem_alloc(4096)
        for block in ((256, 1, 1), (256, 1, 1), (128, 1, 1)):
            f(data, np.int32(1024), block=block, grid=(4, 1))
            f.prepared_call((4, 1), block, data, np.int32(1024))
        for bad in ((2048, 1, 1), (0, 1, 1)):
            try:
                f(data, np.int32(1024), block=bad, grid=(4, 1))
            except drv.Error as error:
                print("REFUSED", type(error).__name__, " ".join(str(error).split()))

        @cuda.jit
        def fill(values, n):
            i = cuda.grid(1)
            if i < n:
                values[i] = 1.0

        values = cuda.to_device(np.zeros(1024, np.float32))
        for _ in range(3):
            fill[4, 256](values, 1024)
        try:
            fill[4, 256](values, 1024, 5)
        except Exception as error:
            print("REFUSED", type(error).__name__, " ".join(str(error).split()))
        print("DONE")
    """, tmp_path, CUDAKIT_FAKE_ANY_KERNEL="1")
    assert "DONE" in out, out
    refusals = [line for line in out.splitlines() if line.startswith("REFUSED")]
    assert len(refusals) == 3, out
    assert "LaunchConfigError" in refusals[0] and "max threads per block" in refusals[0], out
    assert "block extent 0" in refusals[1], out
    assert "takes 2 arguments, 3 given" in refusals[2], out
