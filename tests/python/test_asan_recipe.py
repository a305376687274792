"""The AddressSanitizer recipe of docs/guide/python.md ("### `cudakit.debug`"),
run as the page writes it: C++ exceptions inside cudakit (an argument
refused, the probe for a driver that is not there) are caught as usual
rather than aborting in AddressSanitizer, and a kernel's out-of-bounds write
is reported at the line of the Python file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cudakit
from sanitizer_scripts import sanitizer_runtime

PYTHON_MD = Path(__file__).resolve().parents[2] / "docs" / "guide" / "python.md"

PROGRAM = '''\
import numpy as np

import cudakit.driver as drv
from cudakit.compiler import SourceModule

try:
    drv.memset_d8(drv.mem_alloc(4), 300, 1)
except drv.ArgumentError as error:
    print("caught:", str(error).splitlines()[0])
mod = SourceModule("""
__global__ void fill_ones(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i] = 1.0f;  // BUG: no if (i < n)
}
""")
out = np.zeros(100, dtype=np.float32)
p = drv.mem_alloc(out.nbytes)
mod.get_function("fill_ones")(p, np.int32(100), block=(128, 1, 1), grid=(1, 1))
drv.memcpy_dtoh(out, p)
print("finished")
'''


def documented_recipe() -> str:
    """The ```sh block under the page's `cudakit.debug` heading, one line."""
    text = PYTHON_MD.read_text(encoding="utf-8")
    section = text[text.index("### `cudakit.debug`"):]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block, "python.md's cudakit.debug section has no ```sh block"
    return block.group(1).replace("\\\n", " ").strip()


def test_the_recipe_preloads_the_cxx_runtime_too() -> None:
    recipe = documented_recipe()
    assert "libasan.so" in recipe and "libstdc++.so" in recipe, recipe
    assert "detect_leaks=0" in recipe and recipe.endswith("prog.py"), recipe


@pytest.mark.skipif(sanitizer_runtime() is None, reason="the host compiler has no libasan")
@pytest.mark.parametrize("backend", ["as written", "no CUDAKIT_BACKEND: the driver is probed"])
def test_documented_recipe_reports_the_out_of_bounds_line(tmp_path: Path, backend: str) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM, encoding="utf-8")
    recipe = documented_recipe()
    if backend != "as written":
        recipe = recipe.replace("CUDAKIT_BACKEND=cpu ", "")
        if os.environ.get("CUDAKIT_BACKEND", "cpu") != "cpu" or cudakit_has_a_gpu():
            pytest.skip("probes the driver where there is none; this machine has a GPU")
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("CUDAKIT_BACKEND", "LD_PRELOAD", "ASAN_OPTIONS")}
    environment["PATH"] = os.pathsep.join([str(Path(sys.executable).parent),
                                           environment.get("PATH", "")])
    environment["PYTHONPATH"] = str(Path(cudakit.__file__).parent.parent)
    result = subprocess.run(["sh", "-c", recipe], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env=environment)
    output = result.stdout + result.stderr
    assert "CHECK failed" not in output, output
    assert "caught: memset_d8: data must be in 0..255" in output, output
    line = PROGRAM.splitlines().index("    p[i] = 1.0f;  // BUG: no if (i < n)") + 1
    assert re.search(r"AddressSanitizer: (heap-buffer-overflow|use-after-poison)", output), output
    assert re.search(rf"in fill_ones \S*prog\.py:{line}\n", output), output
    assert result.returncode != 0 and "finished" not in output


def cudakit_has_a_gpu() -> bool:
    import cudakit.driver as drv

    return drv.backend() == "cuda"


def test_cudakit_run_sanitize_catches_cxx_exceptions_too(tmp_path: Path) -> None:
    # `cudakit run --sanitize` preloads the C++ runtime with the sanitizer's,
    # so an error cudakit raises from C++ is an exception, not an abort.
    from sanitizer_scripts import cli_or_skip, run_script

    cli = cli_or_skip()
    if sanitizer_runtime() is None:
        pytest.skip("the host compiler has no libasan")
    result = run_script(cli, tmp_path, "prog.py", PROGRAM, ["run", "--sanitize"],
                        CUDAKIT_BACKEND="cpu")
    assert "CHECK failed" not in result.stdout, result.stdout
    assert re.search(r"LD_PRELOAD=\S*libasan\.so:\S*libstdc\+\+\.so", result.stdout), \
        result.stdout
    assert "caught: memset_d8: data must be in 0..255" in result.stdout, result.stdout
    assert re.search(r"in fill_ones \S*prog\.py:\d+\n", result.stdout), result.stdout
