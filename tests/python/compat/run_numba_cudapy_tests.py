#!/usr/bin/env python3
"""Runs numba-cuda's own kernel tests (numba/cuda/tests/cudapy/test_*.py)
against cudakit and prints passed / failed / skipped per file, the total and
the share that passed.

    tests/python/compat/run_numba_cudapy_tests.py [--numba] [--work DIR]
        [--timeout S] [--files test_a.py,test_b.py]

The tests come from the numba-cuda wheel in the deps directory
(CUDAKIT_DEPS_DIR, default .deps/ at the repository root: its wheels/ folder),
else from the numba-cuda installed in this interpreter, else from a wheel
pip downloads; only the test files, their *_usecases modules and tests/data
are used. numba_test_shim.py points `numba` / `numba.cuda` at cudakit.cuda
and stands in for numba-cuda's test harness only: a name cudakit lacks makes
the tests that import it fail. EXCLUDED_FILES (below) test Numba's internals
and are not run; EXCLUDED_TESTS are the tests of Numba's internals inside
files that also test what kernels do ("Class", "Class::test_name" or a bare
"test_name"): they are deselected and not counted.

Each file runs in its own pytest process with a timeout: a hang or a crash
stops only that file, and its tests that did not report count as failed.
--numba also runs the same files with numba-cuda itself (the one installed
in --numba-python, default this interpreter): on the GPU with the CUDA
backend, in numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1) with the CPU
backend. It prints numba-cuda's counts next to cudakit's and, test by test,
the share of the tests numba-cuda passes that pass on cudakit (the issue's
measure); the tests numba-cuda passes and cudakit does not are written to
WORK/numba-passes-cudakit-fails.txt. --jobs runs that many files at once.
The backend is the CPU one unless CUDAKIT_BACKEND says otherwise.
This file is also the pytest plugin (-p) that records each test's outcome.
"""

from __future__ import annotations

import argparse
import ast
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any
import zipfile

NUMBA_CUDA_VERSION = "0.30.4"
TESTS_IN_WHEEL = "numba_cuda/numba/cuda/tests/"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

# Files that test Numba's machinery rather than what a kernel computes.
EXCLUDED_FILES = {
    "test_analysis.py": "Numba IR analyses (dead branch pruning, CFG) on run_frontend output",
    "test_byteflow.py": "Numba's bytecode flow analysis",
    "test_copy_propagate.py": "Numba's copy propagation pass on its IR",
    "test_ir.py": "Numba IR node classes and their equality",
    "test_ir_utils.py": "Numba IR utilities (dead code, alias analysis)",
    "test_ssa.py": "Numba's SSA reconstruction of its IR",
    "test_typeinfer.py": "Numba's type inference engine",
    "test_typeconv.py": "Numba's type conversion rules and cast graph",
    "test_caching.py": "Numba's on-disk cache machinery (index files, cache locators)",
    "test_launch_config_sensitive.py": "Numba's cache of launch-config-sensitive rewrites",
    "test_debuginfo.py": "DWARF debug info in Numba's LLVM IR",
    "test_debuginfo_types.py": "DWARF type descriptions in Numba's LLVM IR",
    "test_lineinfo.py": "line info directives in Numba's PTX / LLVM IR",
    "test_inspect.py": "inspect_llvm / inspect_asm / inspect_types output of Numba",
    "test_debug.py": "NUMBA_DEBUG_* dumps of Numba's IR, LLVM and PTX",
    "test_optimization.py": "FileCheck of Numba's optimized PTX",
    "test_tracing.py": "Numba's internal event tracing",
    "test_extending.py": "Numba's extension API (typing templates, LLVM lowering, data models)",
    "test_extending_types.py": "Numba's extension API for new types (models, lowering)",
    "test_bfloat16_bindings.py": "Numba's generated bindings of CUDA's bf16 header (LLVM level)",
    "test_fp8_bindings.py": "Numba's generated bindings of CUDA's fp8 header (LLVM level)",
    "test_gufunc_scheduling.py": "GUFuncEngine, numba-cuda's internal gufunc loop scheduler",
    "test_const_string.py": "string constants in Numba's LLVM IR (llvmlite, NVVM compile_ir)",
    "test_inline.py": "inline= / forceinline= as alwaysinline attributes in Numba's LLVM IR",
}

# Tests of Numba's internals in files whose other tests run kernels:
# file -> {name: reason}, a name being a test class ("TestCFGraph"), one test
# of a class ("Class::test_name") or a test name wherever it is ("test_x").
# The names such tests import from Numba's internals are placeholders in the
# shim (numba_test_shim.EXCLUDED_INTERNALS), so that the file imports.
EXCLUDED_TESTS = {
    "test_array_alignment.py": {
        name: "the align of Numba's LLVM IR (its _cudapy_lmem alloca / _cudapy_smem global, "
              "from inspect_llvm) before the address check"
        for name in ("test_array_alignment_1d", "test_array_alignment_2d",
                     "test_array_alignment_3d")},
    "test_casting.py": {
        name: "only the conversion instruction of Numba's PTX (cvt.rni.s8.f16, cvt.f64.f16 "
              "...; cudakit's converts through float32); the values are test_casting's others"
        for name in ("test_float16_to_float_ptx", "test_float16_to_int_ptx",
                     "test_float16_to_uint_ptx", "test_int_to_float16_ptx",
                     "test_uint_to_float16_ptx")},
    "test_cooperative_groups.py": {
        "test_false_cooperative_doesnt_link_cudadevrt": "the files Numba's CodeLibrary links "
                                                        "(overload._codelibrary._linking_files)",
    },
    "test_device_func.py": {
        "test_inspect_llvm": "Numba's LLVM IR of a device function (inspect_llvm)",
        "test_declare_device_cabi_propagate": "the status Numba's LLVM IR returns "
                                              "(library.get_llvm_str(): 'ret i32 0')",
    },
    "test_enums.py": {
        "test_int_enum_no_conversion": "Numba's typing context (cuda.descriptor.cuda_target."
                                       "typing_context.can_convert of IntEnumMember)",
    },
    "test_localmem.py": {
        name: "local arrays of a type made with Numba's extension API (typeof_impl, a "
              "StructModel data model, lowering in LLVM IR): test_extending's matter"
        for name in ("test_type_with_struct_data_model", "test_struct_model_type_arr")},
    "test_sm_creation.py": {
        "test_type_with_struct_data_model": "shared arrays of a type made with Numba's "
                                            "extension API (a StructModel data model, "
                                            "lowering in LLVM IR): test_extending's matter",
    },
    "test_warp_ops.py": {
        name: "the constant mode operand of the shfl / vote calls in Numba's LLVM IR "
              "(inspect_llvm)"
        for name in ("test_shfl_sync_const_mode_val", "test_vote_sync_const_mode_val")},
    "test_compiler.py": {
        "test_compile_jitted_subroutine": "an @intrinsic writing LLVM IR (context.compile_"
                                          "subroutine, call_internal) and Numba's CUDACallConv",
        "test_numba_abi_has_env_global": "the NumbaEnv global of Numba's LLVM-level ABI",
    },
    "test_flow_control.py": {
        "TestCFGraph": "Numba's CFGraph (dominators, post-dominators, loops of its CFG)",
        "TestRealCodeDomFront": "dominance frontiers of Numba's ControlFlowAnalysis on "
                                "bytecode (numba.cuda.core.bytecode)",
    },
}


def _excluded(file_name: str, class_name: str | None, test_name: str | None = None) -> bool:
    names = EXCLUDED_TESTS.get(file_name, {})
    return (class_name is not None and class_name in names) or (
        test_name is not None and (test_name in names or f"{class_name}::{test_name}" in names))


def count_tests_in_source(path: str) -> int:
    """test* methods and functions in the file, less EXCLUDED_TESTS: what a
    file that fails to import or crashes counts as failed."""
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except (OSError, SyntaxError):
        return 1
    file_name = os.path.basename(path)
    count = 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test") \
                and not _excluded(file_name, None, node.name):
            count += 1
        elif isinstance(node, ast.ClassDef) and (
                node.name.startswith("Test") or any("TestCase" in ast.unparse(base)
                                                    for base in node.bases)):
            if _excluded(file_name, node.name):
                continue
            count += sum(isinstance(item, ast.FunctionDef) and item.name.startswith("test")
                         and not _excluded(file_name, node.name, item.name)
                         for item in node.body)
    return max(count, 1)


# --- where the tests come from -------------------------------------------------------

_FIND_TESTS = (
    "import importlib.util, os\n"
    "spec = importlib.util.find_spec('numba_cuda')\n"
    "for base in (spec.submodule_search_locations or []) if spec else []:\n"
    "    folder = os.path.join(base, 'numba', 'cuda', 'tests')\n"
    "    if os.path.isdir(os.path.join(folder, 'cudapy')): print(folder); break\n")


def installed_tests_dir(python: str = sys.executable, env: dict | None = None) -> str | None:
    """numba_cuda's tests folder as the interpreter `python` sees it (found
    without importing numba_cuda, in a child process so that any interpreter
    and environment can be asked the same way)."""
    probe = subprocess.run([python, "-c", _FIND_TESTS], capture_output=True, text=True,
                           env=env)
    return probe.stdout.strip() or None


def find_wheel(work: str) -> str | None:
    deps = os.environ.get("CUDAKIT_DEPS_DIR", os.path.join(ROOT, ".deps"))
    for folder in (os.path.join(deps, "wheels"), deps, work):
        found = sorted(glob.glob(os.path.join(folder, f"numba_cuda-{NUMBA_CUDA_VERSION}-*.whl")))
        if found:
            return found[-1]
    return None


def download_wheel(work: str) -> str | None:
    print(f"== downloading the numba-cuda {NUMBA_CUDA_VERSION} wheel (PyPI) into {work}")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
         "--python-version", "3.12", "--platform", "manylinux_2_28_x86_64",
         f"numba-cuda=={NUMBA_CUDA_VERSION}", "-d", work, "-q"])
    return find_wheel(work) if result.returncode == 0 else None


def unpack_tests(work: str) -> tuple[str, str]:
    """Copies numba-cuda's tests/cudapy and tests/data into WORK; returns
    (cudapy folder, where they came from)."""
    target = os.path.join(work, "numba_tests")
    shutil.rmtree(target, ignore_errors=True)
    wheel = find_wheel(work)
    installed = None if wheel else installed_tests_dir()
    if not wheel and not installed:
        wheel = download_wheel(work)
    if wheel:
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                for part in ("cudapy/", "data/"):
                    prefix = TESTS_IN_WHEEL + part
                    if name.startswith(prefix) and not name.endswith("/"):
                        destination = os.path.join(target, part, name[len(prefix):])
                        os.makedirs(os.path.dirname(destination), exist_ok=True)
                        with open(destination, "wb") as out:
                            out.write(archive.read(name))
        origin = os.path.basename(wheel)
    elif installed:
        for part in ("cudapy", "data"):
            shutil.copytree(os.path.join(installed, part), os.path.join(target, part),
                            ignore=shutil.ignore_patterns("__pycache__"))
        origin = f"installed numba-cuda ({installed})"
    else:
        sys.exit("no numba-cuda tests: no wheel in the deps directory (scripts/fetch-gpu-deps.sh"
                 " puts one there), no installed numba-cuda, and no download")
    for path in glob.glob(os.path.join(target, "cudapy", "*.py")):
        # Without the package's __init__.py, `from .extensions_usecases import
        # X` has no parent package: the absolute name of the same module.
        with open(path, encoding="utf-8") as source:
            text = source.read()
        absolute = re.sub(r"^(\s*)from \.(\w)", r"\1from numba.cuda.tests.cudapy.\2", text,
                          flags=re.MULTILINE)
        if absolute != text:
            with open(path, "w", encoding="utf-8") as out:
                out.write(absolute)
    for init in ("cudapy/__init__.py", "data/__init__.py"):
        # Their load_tests hooks are unittest's, and the package is the shim's.
        path = os.path.join(target, init)
        if os.path.exists(path):
            os.remove(path)
    # numba-cuda's own run (--numba) takes these copies as they are now.
    reference = os.path.join(work, "numba_reference")
    shutil.rmtree(reference, ignore_errors=True)
    shutil.copytree(target, reference)
    for path in glob.glob(os.path.join(target, "cudapy", "*.py")):
        # The tests catch a failed driver call as cuda-python's CUDAError (the
        # shim gives that name where cuda-python is absent); cudakit's driver
        # error of the same role is CudaAPIError, also where cuda-python is installed.
        with open(path, encoding="utf-8") as source:
            text = source.read()
        mapped = text.replace(CUDA_PYTHON_ERROR_IMPORT, CUDAKIT_ERROR_IMPORT)
        if mapped != text:
            with open(path, "w", encoding="utf-8") as out:
                out.write(mapped)
    return os.path.join(target, "cudapy"), origin


CUDA_PYTHON_ERROR_IMPORT = "from cuda.core._utils.cuda_utils import CUDAError\n"
CUDAKIT_ERROR_IMPORT = ("from numba.cuda.cudadrv.driver import CudaAPIError as CUDAError"
                        "  # cudakit's driver error (run_numba_cudapy_tests.py)\n")


SITECUSTOMIZE = """\
# Installs numba_test_shim in every interpreter the tests start (spawned
# workers, subprocesses), then runs the sitecustomize this one shadows.
import importlib.machinery, os, sys
if os.environ.get("NUMBA_CUDAPY_SHIM"):
    sys.path.insert(0, {here!r})
    import numba_test_shim
    numba_test_shim.install(*os.environ["NUMBA_CUDAPY_SHIM"].split(os.pathsep))
_other = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [p for p in sys.path if os.path.abspath(p) != {folder!r}])
if _other is not None and _other.loader is not None:
    _other.loader.exec_module(type(sys)("_shadowed_sitecustomize"))
"""


# For numba-cuda's own run: numba-cuda 0.30.4 reads numpy.row_stack at import,
# which NumPy 2.4 removed; the alias lets it import on a newer NumPy.
REFERENCE_SITECUSTOMIZE = """\
import importlib.machinery, sys
import numpy
if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack
_other = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [p for p in sys.path if p != {folder!r}])
if _other is not None and _other.loader is not None:
    _other.loader.exec_module(type(sys)("_shadowed_sitecustomize"))
"""


def write_sitecustomize(work: str, name: str = "shim_site", text: str = SITECUSTOMIZE) -> str:
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "sitecustomize.py"), "w", encoding="utf-8") as out:
        out.write(text.format(here=HERE, folder=os.path.abspath(folder)))
    return folder


# --- running one file ------------------------------------------------------------------

def run_file(path: str, timeout: float, env: dict, cwd: str, python: str = sys.executable,
             log: str | None = None) -> tuple[int, int, int, str, dict[str, str]]:
    """(passed, failed, skipped, note, outcomes) of one test file in its own
    pytest; outcomes maps "Class::test" (the node id less the file) to
    passed / failed / skipped. pytest's output goes to `log` if given."""
    report = tempfile.NamedTemporaryFile("w+", suffix=".jsonl", delete=False)
    report.close()
    command = [python, "-m", "pytest", "-q", "--tb=short", "-p", "no:cacheprovider", "-p",
               "run_numba_cudapy_tests", "-o", "addopts=", "--rootdir", os.path.dirname(path),
               path]
    run_env = dict(env, NUMBA_CUDAPY_REPORT=report.name)
    note = ""
    try:
        completed = subprocess.run(command, env=run_env, cwd=cwd, timeout=timeout,
                                   capture_output=True, text=True)
        if log:
            with open(log, "w", encoding="utf-8") as out:
                out.write(completed.stdout + completed.stderr)
        if completed.returncode not in (0, 1, 5):
            note = f"pytest exit {completed.returncode}"
            tail = (completed.stdout + completed.stderr).strip().splitlines()[-3:]
            if tail:
                note += ": " + " | ".join(tail)[:200]
    except subprocess.TimeoutExpired:
        note = f"timed out after {timeout:.0f}s"
    outcomes: dict[str, str] = {}
    collected = None
    collect_error = ""
    with open(report.name, encoding="utf-8") as lines:
        for line in lines:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a crash
            if entry["kind"] == "collected":
                collected = entry["count"]
            elif entry["kind"] == "collect_error":
                collect_error = entry["message"]
            else:
                previous = outcomes.get(entry["nodeid"])
                if previous != "failed":
                    outcomes[entry["nodeid"]] = entry["outcome"] if previous != "skipped" \
                        or entry["outcome"] == "failed" else "skipped"
    os.unlink(report.name)
    passed = sum(o == "passed" for o in outcomes.values())
    skipped = sum(o == "skipped" for o in outcomes.values())
    failed = sum(o == "failed" for o in outcomes.values())
    expected = collected if collected else None
    if collect_error or expected is None:
        expected = max(count_tests_in_source(path), len(outcomes))
        note = collect_error or note
    failed += max(0, expected - len(outcomes))  # never reported: crashed or hung
    by_test = {nodeid.split("::", 1)[-1]: outcome for nodeid, outcome in outcomes.items()}
    return passed, failed, skipped, note, by_test


# --- the pytest plugin half (loaded in each pytest process with -p) -------------------

def _record(entry: dict) -> None:
    target = os.environ.get("NUMBA_CUDAPY_REPORT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")
            out.flush()


if os.environ.get("NUMBA_CUDAPY_SHIM") and __name__ != "__main__":
    sys.path.insert(0, HERE)
    import numba_test_shim
    numba_test_shim.install(*os.environ["NUMBA_CUDAPY_SHIM"].split(os.pathsep))

if __name__ != "__main__" and os.environ.get("NUMBA_CUDAPY_REPORT"):
    import pytest

    @pytest.fixture
    def initialize_from_pytest_config():
        """numba-cuda's CUDATestCase asks for it; its repository's conftest
        (not shipped in the wheel) defines it."""
        yield

    def pytest_collectreport(report):
        if report.failed:
            message = str(report.longrepr).strip().splitlines()
            _record({"kind": "collect_error", "message": message[-1][:200] if message else ""})

    def pytest_collection_modifyitems(config, items):
        """Leaves out the file's EXCLUDED_TESTS by exact name (pytest's
        --deselect and -k match prefixes and substrings: test_x_sm100 too)."""
        kept, dropped = [], []
        for item in items:
            cls = getattr(item, "cls", None)
            name = getattr(item, "originalname", None) or item.name
            excluded = _excluded(os.path.basename(str(item.fspath)),
                                 cls.__name__ if cls else None, name)
            (dropped if excluded else kept).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def pytest_collection_finish(session):
        _record({"kind": "collected", "count": len(session.items)})

    def pytest_runtest_logreport(report):
        if report.when == "call" and hasattr(report, "wasxfail"):
            outcome = "passed" if report.skipped else "failed"  # xfail / xpass (strict)
        elif report.failed:
            outcome = "failed"
        elif report.skipped:
            outcome = "skipped"
        elif report.when == "call":
            outcome = "passed"
        else:
            return
        _record({"kind": "test", "nodeid": report.nodeid, "outcome": outcome})


# --- the command line ------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--numba", action="store_true",
                        help="also run the files with numba-cuda itself (reference): on the GPU,"
                             " or in its simulator with the CPU backend")
    parser.add_argument("--numba-python", default=sys.executable,
                        help="the interpreter with numba-cuda installed (default: this one)")
    parser.add_argument("--work", help="scratch folder (default: a new temporary one)")
    parser.add_argument("--timeout", type=float, default=180, help="seconds per file")
    parser.add_argument("--files", help="comma-separated test file names (default: all)")
    parser.add_argument("--jobs", type=int, default=1, help="files run at once (default 1)")
    parser.add_argument("--require", type=float, default=None, metavar="PERCENT",
                        help="exit 1 below this share of numba-cuda's passing tests "
                             "(with --numba; else of the tests that ran)")
    args = parser.parse_args()
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="cudakit-numba-cudapy-"))
    os.makedirs(work, exist_ok=True)
    tests_dir, origin = unpack_tests(work)
    data_dir = os.path.join(os.path.dirname(tests_dir), "data")
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(tests_dir, "test_*.py")))
    if args.files:
        wanted = set(args.files.split(","))
        unknown = wanted - set(names)
        if unknown:
            sys.exit(f"--files: {', '.join(sorted(unknown))} not among numba-cuda's tests "
                     f"(in {tests_dir})")
        names = [n for n in names if n in wanted]
    counted = [n for n in names if n not in EXCLUDED_FILES]
    backend = os.environ.setdefault("CUDAKIT_BACKEND", "cpu")
    base_env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    python_path = [write_sitecustomize(work), HERE] + [
        p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    cudakit_env = dict(base_env, PYTHONPATH=os.pathsep.join(python_path),
                       NUMBA_CUDAPY_SHIM=os.pathsep.join([tests_dir, data_dir]))
    cudakit_env.pop("NUMBA_ENABLE_CUDASIM", None)
    # This folder (the plugin) and the caller's PYTHONPATH (optional packages
    # such as filecheck, which numba-cuda's harness imports), without the shim.
    reference_site = write_sitecustomize(work, "reference_site", REFERENCE_SITECUSTOMIZE)
    numba_env = dict(base_env, PYTHONPATH=os.pathsep.join([reference_site] + python_path[1:]))
    numba_env.pop("NUMBA_CUDAPY_SHIM", None)
    reference_name = "numba-cuda"
    if backend == "cpu":
        numba_env["NUMBA_ENABLE_CUDASIM"] = "1"  # the CPU backend's peer: numba-cuda's simulator
        reference_name = "numba-cuda simulator"
    reference_dir = None
    if os.sep in args.numba_python:
        # the files run with their own working folders: a relative path would not resolve
        args.numba_python = os.path.abspath(args.numba_python)
    if args.numba:
        # numba-cuda runs copies of the same files (their relative imports
        # made absolute resolve to its installed package): pytest run on the
        # installed files would put numba_cuda/numba on sys.path, where
        # `cuda` is numba.cuda and not the CUDA Python bindings.
        installed = installed_tests_dir(args.numba_python, numba_env)
        reference_dir = os.path.join(work, "numba_reference", "cudapy") if installed else None
        if reference_dir is None:
            print(f"== --numba: no numba-cuda installed in {args.numba_python}; "
                  "its column stays empty")
        else:
            # Its harness needs the CUDA Python bindings and filecheck: without
            # them every file would fail to import, which measures nothing.
            probe = subprocess.run([args.numba_python, "-c", "import numba.cuda.testing"],
                                   capture_output=True, text=True, env=numba_env)
            if probe.returncode != 0:
                reason = (probe.stderr.strip().splitlines() or ["?"])[-1]
                print(f"== --numba: the installed numba-cuda's test harness does not import "
                      f"({reason}); its column stays empty")
                reference_dir = None

    print(f"== {origin}: {len(counted)} test files of tests/cudapy against cudakit "
          f"({backend} backend), {len(names) - len(counted)} excluded")
    header = f"   {'file':40} {'cudakit p/f/s':>16}"
    if reference_dir:
        header += f" {reference_name + ' p/f/s':>24}"
    print(header, flush=True)

    logs = os.path.join(work, "logs")  # each file's pytest output
    os.makedirs(logs, exist_ok=True)

    def run_one(name: str, reference: bool):
        stem = os.path.join(logs, name[:-3])
        if not reference:
            return run_file(os.path.join(tests_dir, name), args.timeout, cudakit_env, work,
                            log=stem + ".cudakit.log")
        if not reference_dir or not os.path.exists(os.path.join(reference_dir, name)):
            return None
        return run_file(os.path.join(reference_dir, name), args.timeout, numba_env, work,
                        args.numba_python, log=stem + ".numba.log")

    totals = [0, 0, 0]
    reference_totals = [0, 0, 0]
    notes = []
    numba_passed = 0
    both_passed = 0
    missed = []  # (file, test, cudakit's outcome) that numba-cuda passes
    results: dict[tuple[str, bool], Any] = {}
    # Both runs of every file at once, each file's line printed when both are
    # done (so a run cut short still shows what finished).
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_one, name, reference): (name, reference)
                   for name in counted for reference in (False, True)}
        for future in as_completed(futures):
            name, reference = futures[future]
            results[name, reference] = future.result()
            if (name, not reference) not in results:
                continue
            result, reference_result = results[name, False], results[name, True]
            line = f"   {name:40} {'%d / %d / %d' % result[:3]:>16}"
            totals = [t + r for t, r in zip(totals, result[:3])]
            if result[3]:
                notes.append(f"   {name}: {result[3]}")
            if reference_result is not None:
                reference_totals = [t + r for t, r in zip(reference_totals, reference_result[:3])]
                line += f" {'%d / %d / %d' % reference_result[:3]:>24}"
                if reference_result[3]:
                    notes.append(f"   {name} ({reference_name}): {reference_result[3]}")
                for test, outcome in sorted(reference_result[4].items()):
                    if outcome != "passed":
                        continue
                    numba_passed += 1
                    mine = result[4].get(test, "failed (not reported)")
                    if mine == "passed":
                        both_passed += 1
                    else:
                        missed.append((name, test, mine))
            elif reference_dir:
                line += f" {'(not installed)':>24}"
            print(line, flush=True)

    def share(counts: list[int]) -> str:
        ran = counts[0] + counts[1]
        return f"{100.0 * counts[0] / ran:.1f}% of the tests that ran passed" if ran else "none ran"

    if notes:
        print("== files that did not import, crashed or timed out:")
        print("\n".join(notes))
    print("== excluded (Numba internals):")
    for name in names:
        if name in EXCLUDED_FILES:
            print(f"   {name}: {EXCLUDED_FILES[name]}")
        for test, reason in sorted(EXCLUDED_TESTS.get(name, {}).items()):
            if name not in EXCLUDED_FILES:
                print(f"   {name}::{test}: {reason}")
    if reference_dir:
        listing = os.path.join(work, "numba-passes-cudakit-fails.txt")
        with open(listing, "w", encoding="utf-8") as out:
            for name, test, mine in sorted(missed):
                out.write(f"{name}::{test}: {mine}\n")
        by_file: dict[str, int] = {}
        for name, _, _ in missed:
            by_file[name] = by_file.get(name, 0) + 1
        print(f"== passed by {reference_name}, not by cudakit ({len(missed)}; listed in {listing}):")
        for name, count in sorted(by_file.items(), key=lambda item: -item[1]):
            print(f"   {name}: {count}")
    # The totals last: gpu-check's summary shows the log's last lines.
    print(f"== total cudakit:    {totals[0]} passed / {totals[1]} failed / {totals[2]} skipped"
          f" ({share(totals)})")
    if reference_dir:
        print(f"== total {reference_name}: {reference_totals[0]} passed / {reference_totals[1]}"
              f" failed / {reference_totals[2]} skipped ({share(reference_totals)})")
        measure = f"{100.0 * both_passed / numba_passed:.1f}%" if numba_passed else "n/a"
        print(f"== of the {numba_passed} tests {reference_name} passes, cudakit passes "
              f"{both_passed}: {measure}")
    if args.require is not None:
        if reference_dir and numba_passed:
            got, what = 100.0 * both_passed / numba_passed, f"of what {reference_name} passes"
        else:
            ran = totals[0] + totals[1]
            got, what = (100.0 * totals[0] / ran if ran else 0.0), "of the tests that ran"
        if got < args.require:
            print(f"== FAILED: cudakit passes {got:.1f}% {what}, below the required "
                  f"{args.require:g}%")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
