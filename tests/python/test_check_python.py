"""`cudakit check -- python script.py` on a GPU: compute-sanitizer finds the
tutorials' missing `if (i < n)` in a SourceModule kernel and in a @cuda.jit
kernel (memcheck), and a shared-memory race in a @cuda.jit kernel
(racecheck); the summary names each kernel and the line of the Python file
(line information is forced on, and the kernels' #line directives point at
the script). Without a GPU, the PTX NVRTC makes under CUDAKIT_LINEINFO=1
shows that line information reaches both kinds of Python kernels' compiles."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sanitizer_scripts import (JIT_OOB, JIT_RACE, SOURCE_MODULE_OOB, cli_or_skip, marked_line,
                               run_script)

NO_SANITIZER = "compute-sanitizer was not found"


@pytest.fixture(scope="module")
def cli() -> str:
    return cli_or_skip()


def check(cli: str, tmp_path: Path, tool: str, name: str,
          script: str) -> subprocess.CompletedProcess[str]:
    result = run_script(cli, tmp_path, name, script, ["check", "--tool", tool])
    if NO_SANITIZER in result.stdout:
        pytest.skip("compute-sanitizer is not installed: " + result.stdout.strip())
    return result


def summary_of(output: str, tool: str) -> str:
    start = output.rfind(f"cudakit check ({tool}):")
    assert start >= 0, output
    return output[start:]


@pytest.mark.gpu
@pytest.mark.parametrize("name, script, marker", [
    ("fill_sm.py", SOURCE_MODULE_OOB, "// BUG"),
    ("fill_jit.py", JIT_OOB, "# BUG"),
])
def test_memcheck_names_the_python_line_of_the_out_of_bounds_write(
        cli: str, tmp_path: Path, name: str, script: str, marker: str) -> None:
    result = check(cli, tmp_path, "memcheck", name, script)
    summary = summary_of(result.stdout, "memcheck")
    line = marked_line(script, marker)
    # One line for the 28 threads past the end: "fill_sm.py:15  fill_ones:
    # Invalid __global__ write of size 4 bytes  x28 (first: thread (100,0,0) ...)".
    assert re.search(rf"\n  {re.escape(name)}:{line}  fill_ones: Invalid __global__ write",
                     summary), result.stdout
    assert result.returncode != 0


@pytest.mark.gpu
def test_racecheck_names_the_python_lines_of_the_shared_memory_race(
        cli: str, tmp_path: Path) -> None:
    result = check(cli, tmp_path, "racecheck", "race_jit.py", JIT_RACE)
    summary = summary_of(result.stdout, "racecheck")
    lines = {marked_line(JIT_RACE, "# BUG write"), marked_line(JIT_RACE, "# BUG read")}
    places = re.findall(r"\n  race_jit\.py:(\d+)  reverse_block: [^\n]*[Rr]ace", summary)
    assert places, result.stdout
    assert set(map(int, places)) <= lines, result.stdout
    assert result.returncode != 0


@pytest.mark.gpu
def test_clean_source_module_kernel_has_no_findings(cli: str, tmp_path: Path) -> None:
    result = run_script(cli, tmp_path, "fixed_sm.py", SOURCE_MODULE_OOB,
                        ["check", "--tool", "memcheck"], ("fixed",))
    if NO_SANITIZER in result.stdout:
        pytest.skip("compute-sanitizer is not installed")
    assert "finished" in result.stdout, result.stdout
    assert "fill_ones" not in summary_of(result.stdout, "memcheck"), result.stdout


# What `cudakit check` relies on, checked without a GPU: with
# CUDAKIT_LINEINFO=1 (which it sets) the PTX of a @cuda.jit kernel and of a
# SourceModule carries line information pointing at the Python file.
PTX_OF_PYTHON_KERNELS = textwrap.dedent('''\
    import sys

    import numpy as np

    from cudakit import _core, cuda
    from cudakit.compiler import SourceModule


    @cuda.jit
    def fill_ones(p):
        i = cuda.grid(1)
        if i < p.shape[0]:
            p[i] = 1.0  # JIT LINE


    fill_ones[1, 128](cuda.device_array(100, dtype=np.float32))
    jit_source = list(fill_ones.inspect_cuda_source().values())[0]
    module = SourceModule("""
    __global__ void scale(float *p, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) p[i] *= 2.0f;  // SM LINE
    }
    """)
    for source in (jit_source, module._module.source):
        sys.stdout.write(_core.jit_compile_for_gpu(source, "compute_90"))
        sys.stdout.write("\\n//----\\n")
    ''')


def ptx_of_python_kernels(tmp_path: Path, line_info: bool) -> list[str]:
    """The PTX of the script's @cuda.jit kernel and SourceModule, in that order."""
    path = tmp_path / "kernels.py"
    path.write_text(PTX_OF_PYTHON_KERNELS)
    environment = {**os.environ, "CUDAKIT_CPU_THREADS": "2"}
    environment.pop("CUDAKIT_LINEINFO", None)
    environment.pop("CUDAKIT_CPU_DEBUG", None)
    if line_info:
        environment["CUDAKIT_LINEINFO"] = "1"
    result = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=environment,
                            capture_output=True, text=True, timeout=300)
    if result.returncode != 0 and "NVRTC" in result.stderr:
        pytest.skip("NVRTC is not available: " + result.stderr.strip()[-300:])
    assert result.returncode == 0, result.stderr
    return result.stdout.split("//----")[:2]


def loc_lines(ptx: str, file_name: str) -> set[int]:
    """The source lines .loc directives give for the file named `file_name`."""
    files = {number for number, name in re.findall(r'\.file\s+(\d+)\s+"([^"]*)"', ptx)
             if name.endswith("/" + file_name)}
    return {int(line) for number, line in re.findall(r"\.loc\s+(\d+)\s+(\d+)", ptx)
            if number in files}


def test_forced_line_info_reaches_python_kernels(tmp_path: Path) -> None:
    jit_ptx, module_ptx = ptx_of_python_kernels(tmp_path, line_info=True)
    assert marked_line(PTX_OF_PYTHON_KERNELS, "# JIT LINE") in loc_lines(jit_ptx, "kernels.py")
    assert marked_line(PTX_OF_PYTHON_KERNELS, "// SM LINE") in loc_lines(module_ptx,
                                                                         "kernels.py")


def test_no_line_info_without_the_tool(tmp_path: Path) -> None:
    jit_ptx, module_ptx = ptx_of_python_kernels(tmp_path, line_info=False)
    assert ".loc" not in jit_ptx and ".loc" not in module_ptx
