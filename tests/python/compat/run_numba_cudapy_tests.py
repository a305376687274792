"""Runs numba-cuda's own kernel-API tests (numba/cuda/tests/cudapy/
test_intrinsics.py, test_atomics.py, test_warp_ops.py by default) against
cudakit and prints the pass / fail / skip counts per file. numba-cuda's code
is read from its wheel into a scratch directory and never kept here.

    python tests/python/compat/run_numba_cudapy_tests.py [WHEEL] [--work DIR]
        [--tests test_intrinsics,test_atomics,...] [pytest args ...]

WHEEL: a numba_cuda-*.whl (default: the newest in the deps directory,
CUDAKIT_DEPS_DIR or .deps/ at the repository root, or its wheels/ folder). Only import
lines are rewritten (`from numba import cuda` and `numba.cuda[.X]` imports
point at cudakit.cuda); numba-cuda's test harness (numba.cuda.testing: its
CUDATestCase, the skip decorators, assertPreciseEqual, config flags) points at
a small shim written next to the tests. The backend is the CPU one unless
CUDAKIT_BACKEND says otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_TESTS = "test_intrinsics,test_atomics,test_warp_ops"

SHIM = '''"""Stand-ins for numba-cuda's test harness (numba.cuda.testing)."""
import unittest
from types import SimpleNamespace

import numpy as np

HAS_NUMBA = False
config = SimpleNamespace(ENABLE_CUDASIM=False)


class CUDATestCase(unittest.TestCase):
    FLOAT16_RTOL = np.finfo(np.float16).eps

    def assertPreciseEqual(self, first, second, prec="exact", ulps=1, **kwargs):
        # numba's helper: exact, or within `ulps` at single/double precision.
        a, b = np.asarray(first), np.asarray(second)
        if prec == "exact":
            np.testing.assert_array_equal(a, b)
        else:
            dtype = np.float32 if prec == "single" else np.float64
            np.testing.assert_array_max_ulp(a.astype(dtype), b.astype(dtype), maxulp=ulps)


def cc_X_or_above(*version):
    return True


def compile_ptx(*args, **kwargs):
    raise NotImplementedError("numba.cuda.compiler.compile_ptx is not part of cudakit")


def _no_op(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda target: target


def __getattr__(name):
    if name.startswith("skip"):  # skip_on_cudasim, skip_unless_cc_53, ...
        return _no_op
    raise AttributeError(name)
'''

# (pattern, replacement) on import lines only.
IMPORTS = [
    (r"^(\s*)from numba\.cuda\.testing import", r"\1from numba_cudapy_shim import"),
    (r"^(\s*)from numba\.cuda import HAS_NUMBA", r"\1from numba_cudapy_shim import HAS_NUMBA"),
    (r"^(\s*)from numba\.cuda\.core\.errors import", r"\1from cudakit.cuda import"),
    (r"^(\s*)from numba\.cuda\.core import config", r"\1from numba_cudapy_shim import config"),
    (r"^(\s*)from numba\.cuda\.compiler import compile_ptx",
     r"\1from numba_cudapy_shim import compile_ptx"),
    (r"^(\s*)from numba import cuda, errors\s*$",
     r"\1from cudakit import cuda; from cudakit.cuda.translate import errors"),
    (r"^(\s*)from numba\.cuda(\.[a-z_.]+)? import", r"\1from cudakit.cuda\2 import"),
    (r"^(\s*)from numba import cuda\s*$", r"\1from cudakit import cuda"),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", nargs="?")
    parser.add_argument("--work", help="scratch directory (default: a new temporary one)")
    parser.add_argument("--tests", default=DEFAULT_TESTS)
    options, pytest_args = parser.parse_known_args()
    deps = Path(os.environ.get("CUDAKIT_DEPS_DIR", ROOT / ".deps"))
    wheel = options.wheel or max([*deps.glob("numba_cuda-*.whl"),
                                  *(deps / "wheels").glob("numba_cuda-*.whl")], default=None)
    if wheel is None:
        print(f"no numba_cuda wheel given, none in {deps} or {deps / 'wheels'}",
              file=sys.stderr)
        return 2
    work = Path(options.work or tempfile.mkdtemp(prefix="cudakit-numba-cudapy-"))
    work.mkdir(parents=True, exist_ok=True)
    names = [n.strip() for n in options.tests.split(",") if n.strip()]
    with zipfile.ZipFile(wheel) as archive:
        for name in names:
            member = next(m for m in archive.namelist()
                          if m.endswith(f"numba/cuda/tests/cudapy/{name}.py"))
            lines = archive.read(member).decode().splitlines()
            for i, line in enumerate(lines):
                for pattern, replacement in IMPORTS:
                    line = re.sub(pattern, replacement, line)
                lines[i] = line
            (work / f"{name}.py").write_text("\n".join(lines) + "\n")
    (work / "numba_cudapy_shim.py").write_text(SHIM)
    (work / "conftest.py").write_text("")
    env = dict(os.environ)
    env.setdefault("CUDAKIT_BACKEND", "cpu")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "python"), str(work),
                                         env.get("PYTHONPATH", "")])
    print(f"== {Path(wheel).name}: {', '.join(names)} against cudakit "
          f"({env['CUDAKIT_BACKEND']} backend) in {work}")
    run = subprocess.run([sys.executable, "-m", "pytest", "-v", "-rfE", "--tb=line",
                          "-p", "no:cacheprovider", *pytest_args,
                          *[f"{n}.py" for n in names]], cwd=work, env=env,
                         capture_output=True, text=True)
    log = run.stdout + run.stderr
    (work / "pytest.log").write_text(log)
    print(log)
    print("== per file: passed / failed / skipped")
    for name in names:
        counts = [len(re.findall(rf"^{name}\.py::\S+ {word}", log, re.M))
                  for word in ("PASSED", "(?:FAILED|ERROR)", "SKIPPED")]
        print(f"   {name + '.py':28s} {counts[0]} / {counts[1]} / {counts[2]}")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
