"""Planted bugs in Python scripts, and how to run them under the cudakit CLI.

Shared by test_sanitize_python.py (`cudakit run --sanitize`, CPU backend) and
test_check_python.py (`cudakit check`, compute-sanitizer on a GPU). Each
script marks its buggy line with a `# BUG` or `// BUG` comment; the tests
expect the reports to name that line of the script file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

def sanitizer_runtime() -> str | None:
    """The host compiler's AddressSanitizer runtime (libasan.so), or None."""
    try:
        found = subprocess.run(["c++", "-print-file-name=libasan.so"], capture_output=True,
                               text=True, timeout=60).stdout.strip()
    except OSError:
        return None
    return found if os.path.isabs(found) and os.path.exists(found) else None


# The tutorials' bug: 100 floats, 128 threads, no `if (i < n)`. Run with
# "fixed" as argument the kernel has the check (-DFIXED: a clean run).
SOURCE_MODULE_OOB = textwrap.dedent('''\
    import sys

    import numpy as np

    import cudakit.autoinit  # noqa: F401
    import cudakit.driver as drv
    from cudakit.compiler import SourceModule

    options = ["-DFIXED"] if sys.argv[1:] == ["fixed"] else []
    mod = SourceModule("""
    __global__ void fill_ones(float *p, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
    #ifdef FIXED
        if (i >= n) return;
    #endif
        p[i] = 1.0f;  // BUG
    }
    """, options=options)
    fill_ones = mod.get_function("fill_ones")
    n = 100
    out = np.zeros(n, dtype=np.float32)
    p = drv.mem_alloc(out.nbytes)
    fill_ones(p, np.int32(n), block=(128, 1, 1), grid=(1, 1))
    drv.memcpy_dtoh(out, p)
    assert (out == 1.0).all()
    print("finished")
    ''')

# The same kernel source, put together at run time: it is nowhere in the
# file as written, so reports name the SourceModule call instead.
SOURCE_MODULE_BUILT_AT_RUN_TIME = textwrap.dedent('''\
    import numpy as np

    import cudakit.autoinit  # noqa: F401
    import cudakit.driver as drv
    from cudakit.compiler import SourceModule

    lines = ["__global__ void fill_ones(float *p, int n)", "{",
             "    int i = blockIdx.x * blockDim.x + threadIdx.x;",
             "    p[i] = 1.0f;", "}"]
    mod = SourceModule("\\n".join(lines))  # CALL
    p = drv.mem_alloc(400)
    mod.get_function("fill_ones")(p, np.int32(100), block=(128, 1, 1), grid=(1, 1))
    drv.Context.synchronize()
    ''')

JIT_OOB = textwrap.dedent('''\
    import numpy as np

    from cudakit import cuda


    @cuda.jit
    def fill_ones(p):
        i = cuda.grid(1)
        p[i] = 1.0  # BUG


    d = cuda.device_array(100, dtype=np.float32)
    fill_ones[1, 128](d)
    cuda.synchronize()
    print("finished")
    ''')

# A shared-memory race: each thread reads an element another thread wrote,
# with no cuda.syncthreads() between (racecheck names the two lines).
JIT_RACE = textwrap.dedent('''\
    import numpy as np

    from cudakit import cuda
    from cudakit.cuda import float32


    @cuda.jit
    def reverse_block(out, inp):
        tile = cuda.shared.array(256, dtype=float32)
        t = cuda.threadIdx.x
        base = cuda.blockIdx.x * 256
        tile[t] = inp[base + t]  # BUG write
        out[base + t] = tile[255 - t]  # BUG read


    host = np.random.default_rng(1).random(4 * 256, dtype=np.float32)
    inp = cuda.to_device(host)
    out = cuda.device_array_like(host)
    reverse_block[4, 256](out, inp)
    cuda.synchronize()
    print("finished")
    ''')


def marked_line(script: str, marker: str) -> int:
    """The 1-based line of the script holding `marker`."""
    for number, line in enumerate(script.splitlines(), start=1):
        if marker in line:
            return number
    raise AssertionError(f"no line holds {marker!r}")


def find_cli() -> str | None:
    """The cudakit CLI: $CUDAKIT_CLI, this checkout's build, or PATH."""
    named = os.environ.get("CUDAKIT_CLI")
    if named:
        return named
    repo = Path(__file__).resolve().parents[2]
    for candidate in (repo / "build" / "bin" / "cudakit", repo / "build" / "tools" / "cudakit"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("cudakit")


def cli_or_skip() -> str:
    """find_cli(), or the calling test skipped with the reason."""
    import pytest

    found = find_cli()
    if found is None:
        pytest.skip("the cudakit CLI is not built (cmake --build build --target cudakit_cli) "
                    "nor on PATH; or name it with CUDAKIT_CLI")
    return found


def run_script(cli: str, tmp_path: Path, name: str, script: str, cli_args: list[str],
               script_args: tuple[str, ...] = (), **env: str) -> subprocess.CompletedProcess[str]:
    """Writes `script` to tmp_path/name and runs `cudakit CLI_ARGS -- python name ARGS`
    with this interpreter; stdout and stderr together in .stdout."""
    path = tmp_path / name
    path.write_text(script)
    environment = {**os.environ, "CUDAKIT_CPU_THREADS": "2", **env}
    return subprocess.run([cli, *cli_args, "--", sys.executable, str(path), *script_args],
                          cwd=tmp_path, env=environment, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
