"""Runs PyCUDA's own example programs (examples/ and examples/from-wiki/ of
its newest sdist) against cudakit, with `pycuda` renamed to `cudakit` and
nothing else changed, and prints one line per example and the counts.

    python tests/python/compat/run_pycuda_examples.py [--sdist PATH] [--work DIR]

An example runs when every module it imports is one cudakit's users have
with PyCUDA: the standard library, numpy, jinja2, pytools, and (for the
array-interchange examples) numba or cupy where installed. The others are
listed as "needs X" and not counted. On the CPU backend the examples in
GPU_ONLY are not run either, each with its reason. The exit status is 1 when
a counted example fails.

The sdist comes from --sdist, else from the deps directory
(CUDAKIT_DEPS_DIR, default .deps/ at the repository root: its sdist/ folder
or itself), else from PyPI with pip's client (--no-binary pycuda).
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

PYCUDA_VERSION = os.environ.get("PYCUDA_VERSION", "2026.1")
ROOT = Path(__file__).resolve().parents[3]

# Modules an example may import besides the standard library and pycuda.
ALLOWED = {"numpy", "jinja2", "pytools", "numba", "cupy"}
# Optional ones: an example that imports them runs only where they import.
OPTIONAL = {"numba", "cupy", "jinja2", "pytools"}

# Examples that need a GPU by what they do (the CPU backend runs kernels,
# not these features), with the reason printed.
GPU_ONLY = {
    "demo_cdpSimplePrint.py": "dynamic parallelism (a kernel launching kernels) needs a GPU",
    "cai_numba.py": "shares device memory through __cuda_array_interface__ with Numba's "
    "CUDA target, which needs a GPU",
    "cai_cupy_arrays.py": "shares device memory through __cuda_array_interface__ with CuPy, "
    "which needs a GPU",
    "thrust_interop.py": "links against Thrust's host library with nvcc",
}

# Examples that fail on PyCUDA itself under Python 3, and fail the same way
# here: name -> (reason, a pattern the output must show).
FAILS_ON_PYCUDA_TOO = {
    "arithmetic_example.py": (
        "launches with grid=(N/1024+1, 1, 1), a float under Python 3, which PyCUDA's launch "
        "refuses too (Boost.Python converts only ints)", r"TypeError|int\(x\)"),
    "gpu_scalar_mult.py": (
        "binds its GPU scalars to texture references (bind_to_texref_ext), which CUDA 12 "
        "removed: PyCUDA's texture-based get_linear_combination_kernel does not compile there "
        "either", r"texref|[Tt]exture"),
    "cai_numba.py": (
        "calls numpy.row_stack, which NumPy 2.4 removed", r"row_stack"),
    # On a GPU of compute capability 9.0 or higher (passes below it).
    "demo_cdpSimplePrint.py": (
        "sets limit.DEV_RUNTIME_SYNC_DEPTH, which the driver refuses on compute capability "
        "9.0 and higher (CUDA 12's dynamic parallelism has no device-side synchronize): "
        "PyCUDA's set_limit gets the same CUDA_ERROR_UNSUPPORTED_LIMIT",
        r"CUDA_ERROR_UNSUPPORTED_LIMIT|not supported on this architecture"),
}

# Arguments an example needs to finish on its own (each gets Enter on its
# standard input for the prompts that pause it).
ARGUMENTS: dict[str, list[str]] = {}


def find_sdist(explicit: str | None, work: Path) -> Path:
    if explicit:
        return Path(explicit)
    deps = Path(os.environ.get("CUDAKIT_DEPS_DIR", ROOT / ".deps"))
    for folder in (deps / "sdist", deps):
        candidate = folder / f"pycuda-{PYCUDA_VERSION}.tar.gz"
        if candidate.is_file():
            return candidate
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--no-binary", "pycuda", f"pycuda=={PYCUDA_VERSION}", "-d", str(work)],
                   check=True)
    return next(work.glob("pycuda-*.tar.gz"))


def imported_modules(source: str) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module.split(".")[0])
    return modules


def importable(module: str) -> bool:
    return subprocess.run([sys.executable, "-c", f"import {module}"],
                          capture_output=True).returncode == 0


def backend() -> str:
    result = subprocess.run([sys.executable, "-c", "import cudakit.driver as d; print(d.backend())"],
                            capture_output=True, text=True, check=True)
    return result.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sdist")
    parser.add_argument("--work")
    parser.add_argument("--timeout", type=float, default=float(os.environ.get("EXAMPLE_TIMEOUT", 180)))
    parser.add_argument("-k", dest="select", help="run only examples whose path contains this")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="cudakit-pycuda-examples."))
    work.mkdir(parents=True, exist_ok=True)
    sdist = find_sdist(args.sdist, work)
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers()
                   if "/examples/" in m.name and m.name.endswith(".py")]
        archive.extractall(work, members=members, filter="data")
    examples = sorted(work.glob("*/examples/**/*.py"))
    where = backend()
    print(f"== {sdist.name}: {len(examples)} example programs, `pycuda` renamed to `cudakit`, "
          f"on the {where} backend")
    present = {module: importable(module) for module in OPTIONAL}
    counts = {"passed": 0, "failed": 0, "fails on PyCUDA too": 0, "not run": 0}
    failures = []
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    for example in examples:
        name = str(example.relative_to(next(work.glob("*/examples"))))
        if args.select and args.select not in name:
            continue
        source = example.read_text()
        needs = sorted(m for m in imported_modules(source) - {"pycuda", "__future__"}
                       if m not in sys.stdlib_module_names and m not in ALLOWED)
        missing = sorted(m for m in imported_modules(source) & OPTIONAL if not present[m])
        if needs:
            reason = "needs " + ", ".join(needs)
        elif missing:
            reason = "needs " + ", ".join(missing) + " (not installed here)"
        elif where == "cpu" and example.name in GPU_ONLY:
            reason = "GPU only: " + GPU_ONLY[example.name]
        else:
            reason = ""
        if reason:
            counts["not run"] += 1
            print(f"{name:44s} not run   {reason}")
            continue
        renamed = example.with_name(example.stem + "_cudakit.py")
        renamed.write_text(re.sub(r"\bpycuda\b", "cudakit", source))
        started = time.monotonic()
        try:
            result = subprocess.run([sys.executable, renamed.name, *ARGUMENTS.get(example.name, [])],
                                    cwd=example.parent, env=env, capture_output=True, text=True,
                                    timeout=args.timeout, input="\n" * 8)
            ok, output = result.returncode == 0, result.stdout + result.stderr
        except subprocess.TimeoutExpired as timeout:
            ok = False
            output = f"timed out after {args.timeout:.0f} s\n{timeout.stdout or ''}{timeout.stderr or ''}"
        took = time.monotonic() - started
        (work / (name.replace("/", "_") + ".log")).write_text(output if isinstance(output, str) else "")
        known = FAILS_ON_PYCUDA_TOO.get(example.name)
        if not ok and known and re.search(known[1], str(output)):
            counts["fails on PyCUDA too"] += 1
            print(f"{name:44s} fails as on PyCUDA: {known[0]}")
        elif ok:
            counts["passed"] += 1
            print(f"{name:44s} passed    {took:6.1f} s")
        else:
            counts["failed"] += 1
            last = [line for line in str(output).strip().splitlines() if line.strip()][-1:] or ["?"]
            failures.append(name)
            print(f"{name:44s} FAILED    {took:6.1f} s  {last[0][:150]}")
    counted = counts["passed"] + counts["failed"]
    print(f"== examples: {counts['passed']} of {counted} passed, {counts['failed']} failed, "
          f"{counts['fails on PyCUDA too']} fail as on PyCUDA, {counts['not run']} not run "
          f"(logs in {work})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
