"""Running Python in a fresh process with other settings: for what is read
once per process (CUDAKIT_BACKEND, CUDAKIT_CPU_DEVICES, ...)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

# Two virtual devices on the CPU backend, whatever the machine has: the
# multi-device paths without two GPUs (docs/guide/cpu-backend.md).
TWO_CPU_DEVICES = {"CUDAKIT_BACKEND": "cpu", "CUDAKIT_CPU_DEVICES": "2"}


def run_python(args: list[str], timeout: float = 300,
               **env: str) -> subprocess.CompletedProcess[str]:
    """`python ARGS` with `env` added to this process's environment, killed
    after `timeout` seconds; the cudakit imported here is the one the child
    imports. A PYTHONPATH in `env` goes before this process's, which the
    child keeps (where the optional packages may be)."""
    environment = {**os.environ, **env}
    package_root = str(Path(__import__("cudakit").__file__).parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [package_root, env.get("PYTHONPATH"), os.environ.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, env=environment)


def run_code(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -c CODE` (dedented), as run_python."""
    return run_python(["-c", textwrap.dedent(code)], **env)


def checked(result: subprocess.CompletedProcess[str]) -> str:
    """The child's stdout, after asserting it exited with 0 (its stderr otherwise)."""
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def cpu_backend_outputs(test_module: str, name: str, seed: int, folder: Path) -> dict:
    """`run_entry(name, seed)` of tests/python/TEST_MODULE.py on the CPU
    backend, in a child process (a process uses one backend): its outputs by
    name, for comparing with the same run on a GPU."""
    import numpy as np

    path = Path(folder) / f"{test_module}-{name}-cpu.npz"
    checked(run_code(f"""
        import sys
        import numpy as np
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from {test_module} import run_entry
        outputs, _ = run_entry({name!r}, {seed})
        np.savez({str(path)!r}, **outputs)
        """, CUDAKIT_BACKEND="cpu"))
    with np.load(path) as saved:
        return dict(saved)
