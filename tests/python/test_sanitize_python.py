"""`cudakit run --sanitize -- python script.py`: the tutorials' missing
`if (i < n)` in a SourceModule kernel and in a @cuda.jit kernel is reported
by AddressSanitizer on the CPU backend, naming the kernel and the line of the
Python file; and how a SourceModule's lines are mapped to that file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from cudakit import _source_lines
from sanitizer_scripts import (JIT_OOB, SOURCE_MODULE_BUILT_AT_RUN_TIME, SOURCE_MODULE_OOB,
                               cli_or_skip, marked_line, run_script)

ASAN_WRITE = r"AddressSanitizer: (heap-buffer-overflow|use-after-poison)"


@pytest.fixture(scope="module")
def cli() -> str:
    found = cli_or_skip()
    probe = subprocess.run([found, "run", "--sanitize", "--", "true"], capture_output=True,
                           text=True, timeout=60)
    if "no AddressSanitizer runtime" in probe.stderr:
        pytest.skip("the sanitizer runtime is not available: " + probe.stderr.strip())
    return found


def sanitize(cli: str, tmp_path: Path, name: str, script: str,
             *args: str) -> subprocess.CompletedProcess[str]:
    return run_script(cli, tmp_path, name, script, ["run", "--sanitize"], args,
                      CUDAKIT_BACKEND="cpu")


# The tutorials' missing `if (i < n)`, in a SourceModule kernel and in a
# @cuda.jit kernel: the report names the Python file's line either way.
@pytest.mark.parametrize("name,script,marker", [("fill_sm.py", SOURCE_MODULE_OOB, "// BUG"),
                                                ("fill_jit.py", JIT_OOB, "# BUG")],
                         ids=["source_module", "jit_kernel"])
def test_out_of_bounds_names_the_python_line(cli: str, tmp_path: Path, name: str, script: str,
                                             marker: str) -> None:
    result = sanitize(cli, tmp_path, name, script)
    assert result.returncode != 0, result.stdout
    line = marked_line(script, marker)
    path = re.escape(str(tmp_path / name))
    assert re.search(ASAN_WRITE, result.stdout), result.stdout
    assert re.search(rf"#0 0x[0-9a-f]+ in fill_ones {path}:{line}\n", result.stdout), \
        result.stdout
    assert "finished" not in result.stdout


def test_source_module_with_the_check_runs_clean(cli: str, tmp_path: Path) -> None:
    # Python itself runs under the preloaded runtime without a report (no
    # leak reports from the uninstrumented interpreter either).
    result = sanitize(cli, tmp_path, "fill_sm.py", SOURCE_MODULE_OOB, "fixed")
    assert result.returncode == 0, result.stdout
    assert "finished" in result.stdout
    assert "AddressSanitizer" not in result.stdout and "runtime error" not in result.stdout


def test_source_built_at_run_time_names_the_source_module_call(cli: str, tmp_path: Path) -> None:
    result = sanitize(cli, tmp_path, "built.py", SOURCE_MODULE_BUILT_AT_RUN_TIME)
    assert result.returncode != 0, result.stdout
    call = marked_line(SOURCE_MODULE_BUILT_AT_RUN_TIME, "# CALL")
    # Line 4 of the source itself: `p[i] = 1.0f;`.
    assert re.search(rf"in fill_ones \S*<SourceModule at built\.py line {call}>:4\n",
                     result.stdout), result.stdout


# How a SourceModule source is found in the calling file (no CLI needed).

FILE_LINES = [
    "import x\n",
    "mod = SourceModule(\"\"\"\n",
    "    __global__ void k(float *p)\n",
    "    {\n",
    "        p[0] = 1.0f;\n",
    "    }\n",
    "    \"\"\")\n",
]


def test_source_found_in_the_file_starts_at_its_first_line() -> None:
    source = "\n__global__ void k(float *p)\n{\n    p[0] = 1.0f;\n}\n"  # dedented
    assert _source_lines._first_line_in_file(source, FILE_LINES, near=2) == 2
    one_line = "__global__ void k(float *p)"
    assert _source_lines._first_line_in_file(one_line, FILE_LINES, near=2) == 3


def test_source_not_in_the_file_is_not_found() -> None:
    assert _source_lines._first_line_in_file("__global__ void other() {}\n", FILE_LINES, 1) == 0
    assert _source_lines._first_line_in_file("\n\n", FILE_LINES, 1) == 0


def test_nearest_copy_of_a_source_wins() -> None:
    lines = FILE_LINES + FILE_LINES
    source = "\n    __global__ void k(float *p)\n    {\n        p[0] = 1.0f;\n    }\n    "
    assert _source_lines._first_line_in_file(source, lines, near=3) == 2
    assert _source_lines._first_line_in_file(source, lines, near=12) == 9


def test_no_directive_outside_the_debugging_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUDAKIT_CPU_DEBUG", raising=False)
    monkeypatch.delenv("CUDAKIT_LINEINFO", raising=False)
    assert _source_lines.source_line_directive("__global__ void k() {}", depth=0) == ""


def test_directive_names_this_file_under_the_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDAKIT_LINEINFO", "1")
    source = "__global__ void k_in_this_file() {}"  # found on this very line
    directive = _source_lines.source_line_directive(source, depth=0)
    this_file = str(Path(__file__).resolve())
    line = marked_line(Path(this_file).read_text(), "void k_in_this_file() {}\"  # found")
    assert directive == f'#line {line} "{this_file}"\n'


def test_compile_error_under_the_tools_numbers_the_source_itself(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cudakit.compiler import CompileError, SourceModule
    monkeypatch.setenv("CUDAKIT_LINEINFO", "1")
    source = """
    __global__ void broken(float *p)
    {
        p[0] = undeclared_name;
    }
    """
    with pytest.raises(CompileError) as raised:
        SourceModule(source, cache_dir=False)
    message = str(raised.value)
    # The excerpt is the source's own line 4, as without the tools.
    assert "source around line 4" in message, message
    assert "undeclared_name" in message.split("source around line 4")[1], message


# A pooled block reused for a larger array than its last use: the bytes the
# new array may touch are unpoisoned again (no false use-after-poison report).
REUSED_BLOCKS = """
import numpy as np
from cudakit import cuda
for n in (206, 7, 100):
    for dtype in (np.uint16, np.int8, np.int64):
        values = np.random.default_rng(n).integers(0, 100, n).astype(dtype)
        device = cuda.to_device(values)
        assert (device.copy_to_host() == values).all()
print("finished")
"""


def test_reused_pool_blocks_of_growing_size_run_clean(cli: str, tmp_path: Path) -> None:
    result = sanitize(cli, tmp_path, "reuse.py", REUSED_BLOCKS)
    assert result.returncode == 0, result.stdout
    assert "finished" in result.stdout
    assert "AddressSanitizer" not in result.stdout
