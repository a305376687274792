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


def _run(program: str, tmp_path: Path) -> str:
    env = dict(os.environ, CUDAKIT_LIBCUDA=str(_fake_driver()), CUDAKIT_BACKEND="cuda",
               CUDAKIT_CACHE_DIR=str(tmp_path / "cache"))
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
