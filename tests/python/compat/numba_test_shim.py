"""Runs numba-cuda's own tests against cudakit: `numba` and `numba.cuda`
imports resolve to cudakit.cuda, and numba-cuda's test harness
(numba.cuda.testing, numba.cuda.tests.support) to the small stand-ins below.

Only the harness is stood in for, never behaviour: a name the tests import
from numba that cudakit does not have stays missing, and the tests that need
it fail (that is what the run measures).

    import numba_test_shim
    numba_test_shim.install(tests_dir, data_dir)   # before the tests import

The one exception, EXCLUDED_INTERNALS: names of Numba internals that a
file imports at its top only for test classes the runner excludes
(run_numba_cudapy_tests.py EXCLUDED_TESTS), so that the file's other tests
run. Each is a placeholder that raises ExcludedNumbaInternal when used.

tests_dir holds numba-cuda's tests/cudapy files (its *_usecases modules are
imported as numba.cuda.tests.cudapy.NAME), data_dir its tests/data folder.
"""

from __future__ import annotations

import cmath
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
import warnings

import numpy as np

_TESTS_DIR = ""
_DATA_DIR = ""


# --- numba.cuda.tests.support ---------------------------------------------------

def _bits_for(prec: str, dtype_bits: int) -> int:
    return {"double": 53, "single": 24, "half": 11}.get(prec, dtype_bits)


class TestCase(unittest.TestCase):
    """numba.cuda.tests.support.TestCase: unittest's, with assertPreciseEqual."""

    def assertPreciseEqual(self, first, second, prec="exact", ulps=1, msg=None,
                           ignore_sign_on_zero=False, abs_tol=None):
        if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
            first_array, second_array = np.asarray(first), np.asarray(second)
            self.assertEqual(first_array.shape, second_array.shape, msg)
            self.assertEqual(first_array.dtype, second_array.dtype, msg)
            for a, b in zip(first_array.ravel().tolist(), second_array.ravel().tolist()):
                self._assert_scalar_equal(a, b, prec, ulps, msg, ignore_sign_on_zero, abs_tol,
                                          first_array.dtype)
            return
        if isinstance(first, (list, tuple)) and isinstance(second, (list, tuple)):
            self.assertEqual(len(first), len(second), msg)
            for a, b in zip(first, second):
                self.assertPreciseEqual(a, b, prec, ulps, msg, ignore_sign_on_zero, abs_tol)
            return
        self._assert_scalar_equal(first, second, prec, ulps, msg, ignore_sign_on_zero, abs_tol,
                                  np.asarray(first).dtype)

    def reset_module_warnings(self, module):
        """Forgets the warnings `module` has given (they show again)."""
        if isinstance(module, str):
            module = sys.modules[module]
        if hasattr(module, "__warningregistry__"):
            del module.__warningregistry__

    def _assert_scalar_equal(self, first, second, prec, ulps, msg, ignore_sign_on_zero,
                             abs_tol, dtype):
        if isinstance(first, complex) or isinstance(second, complex):
            first, second = complex(first), complex(second)
            if cmath.isnan(first) and cmath.isnan(second):
                return  # as Numba's: two values that both hold a NaN are not compared
            if prec != "exact":
                # Numba's tolerance for complex numbers: both parts within
                # 2**(ulps - bits - 1) * (|first| + |second|), the magnitudes.
                delta = 2.0 ** (ulps - _bits_for(prec, 53) - 1) * (abs(first) + abs(second))
                for a, b in ((first.real, second.real), (first.imag, second.imag)):
                    if not (a == b or abs(a - b) <= delta):
                        self.fail(msg or f"{first} != {second} to within {delta}")
                return
            for a, b in ((first.real, second.real), (first.imag, second.imag)):
                self._assert_scalar_equal(a, b, prec, ulps, msg, ignore_sign_on_zero, abs_tol,
                                          np.dtype(np.float64))
            return
        if not isinstance(first, float) and not isinstance(second, float):
            self.assertEqual(first, second, msg)
            return
        first, second = float(first), float(second)
        if np.isnan(first) or np.isnan(second):
            self.assertEqual(np.isnan(first), np.isnan(second), msg or f"{first} != {second}")
            return
        if first == second:
            if not ignore_sign_on_zero and first == 0.0:
                self.assertEqual(np.signbit(first), np.signbit(second),
                                 msg or f"{first} != {second} (sign of zero)")
            return
        if abs_tol is not None and abs(first - second) <= abs_tol:
            return
        if prec == "exact":
            self.fail(msg or f"{first} != {second}")
        bits = _bits_for(prec, 53 if getattr(dtype, "itemsize", 8) >= 8 else 24)
        tolerance = 2.0 ** (1 - bits) * ulps * max(abs(first), abs(second))
        if not abs(first - second) <= tolerance:
            self.fail(msg or f"{first} != {second} to within {ulps} ulp(s) of {prec} precision")


class MemoryLeakMixin:
    """Numba's NRT leak check: cudakit has no NRT, nothing to check."""


EnableNRTStatsMixin = MemoryLeakMixin


class CheckWarningsMixin:
    @contextlib.contextmanager
    def check_warnings(self, messages, category=RuntimeWarning):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        found = 0
        for warning in caught:
            for message in messages:
                if message in str(warning.message):
                    self.assertEqual(warning.category, category)
                    found += 1
        self.assertEqual(found, len(messages))


def _has_cffi() -> bool:
    try:
        import cffi  # noqa: F401
    except ImportError:
        return False
    return True


skip_unless_cffi = unittest.skipUnless(_has_cffi(), "requires cffi")
linux_only = unittest.skipIf(not sys.platform.startswith("linux"), "linux only test")
windows_only = unittest.skipIf(not sys.platform.startswith("win"), "Windows only test")
skip_unless_typeguard = unittest.skip("typeguard is Numba's own type checking")
skip_if_typeguard = lambda target: target  # noqa: E731


def expected_failure_py314(fn):
    return unittest.expectedFailure(fn) if sys.version_info >= (3, 14) else fn


def temp_directory(prefix):
    return tempfile.mkdtemp(prefix=prefix + "-")


def import_dynamic(modname):
    importlib.invalidate_caches()
    __import__(modname)
    return sys.modules[modname]


def ignore_internal_warnings():
    warnings.filterwarnings("ignore", module="typeguard")


def _cudakit_config():
    return importlib.import_module("cudakit.cuda.config")


@contextlib.contextmanager
def override_config(name, value):
    """Sets cudakit.cuda.config.NAME for the block (what numba.cuda.config
    is here); a setting cudakit does not read changes nothing."""
    config = _cudakit_config()
    missing = object()
    old_value = getattr(config, name, missing)
    setattr(config, name, value)
    try:
        yield
    finally:
        if old_value is missing:
            delattr(config, name)
        else:
            setattr(config, name, old_value)


@contextlib.contextmanager
def override_env_config(name, value):
    old_value = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old_value is None:
            del os.environ[name]
        else:
            os.environ[name] = old_value


def run_in_subprocess(code, flags=(), env=None, timeout=30):
    """The snippet in a new interpreter, with this shim installed there too."""
    here = os.path.dirname(os.path.abspath(__file__))
    prologue = (f"import sys; sys.path.insert(0, {here!r}); import numba_test_shim; "
                f"numba_test_shim.install({_TESTS_DIR!r}, {_DATA_DIR!r})\n")
    try:
        proc = subprocess.run([sys.executable, *flags, "-c", prologue + code], env=env,
                              check=True, capture_output=True, text=True, timeout=timeout)
    except subprocess.CalledProcessError as error:
        raise AssertionError(f"process failed with code {error.returncode:d}: stderr:\n"
                             f"{error.stderr}\n") from error
    return proc.stdout, proc.stderr


def captured_stdout():
    return contextlib.redirect_stdout(io.StringIO())


def captured_stderr():
    return contextlib.redirect_stderr(io.StringIO())


# --- numba.cuda.testing ------------------------------------------------------------

class CUDATestCase(TestCase):
    """numba.cuda.testing.CUDATestCase: the tolerance its float16 tests use."""

    FLOAT16_RTOL = np.finfo(np.float16).eps


def _compute_capability() -> tuple[int, int]:
    from cudakit import cuda
    return tuple(cuda.get_current_device().compute_capability)


def cc_X_or_above(major, minor):
    """The device's compute capability on a GPU. The CPU backend (which
    reports 0.0) stands where Numba's simulator does, for which numba-cuda's
    harness answers True: the tests run and count, passed or failed."""
    from cudakit import driver
    if driver.backend() == "cpu":
        return True
    return _compute_capability() >= (major, minor)


def _skip_unless_cc(major, minor):
    def decorate(fn):
        return unittest.skipUnless(cc_X_or_above(major, minor),
                                   f"requires cc >= {major}.{minor}")(fn)
    return decorate


skip_unless_cc_50 = _skip_unless_cc(5, 0)
skip_unless_cc_53 = _skip_unless_cc(5, 3)
skip_unless_cc_60 = _skip_unless_cc(6, 0)
skip_unless_cc_75 = _skip_unless_cc(7, 5)
skip_unless_cc_90 = _skip_unless_cc(9, 0)


def _runs(reason=None):
    """A skip_* decorator whose condition never holds for cudakit (it is not
    Numba's simulator; its toolkit pieces are its own)."""
    if callable(reason):
        return reason
    return lambda target: target


def _skips(why):
    def decorator(reason=None):
        if callable(reason):
            return unittest.skip(why)(reason)
        return unittest.skip(f"{why}: {reason}" if reason else why)
    return decorator


skip_on_cudasim = _runs
skip_if_external_memmgr = _runs
skip_under_cuda_memcheck = _runs
skip_on_arm = _runs
skip_on_wsl2 = _runs
skip_if_cuda_includes_missing = _runs
skip_if_curand_kernel_missing = _runs
skip_if_cudadevrt_missing = _runs
skip_if_nvjitlink_missing = _runs
skip_on_nvjitlink_13_1_sm_120 = _runs
skip_unless_cudasim = _skips("runs only on Numba's simulator")
skip_unless_conda_cudatoolkit = _skips("needs a conda cudatoolkit")
# numba-cuda skips these without the base numba package (its CPU target);
# here `numba.njit` / `numba.jit` are the shim's CPU stand-in (below), so they run.
skip_on_standalone_numba_cuda = _runs
skip_without_nvdisasm = (_runs if shutil.which("nvdisasm") else _skips("needs nvdisasm"))
skip_with_nvdisasm = (_skips("runs only without nvdisasm") if shutil.which("nvdisasm")
                      else _runs)


def xfail_unless_cudasim(fn):
    return unittest.expectedFailure(fn)


class ForeignArray:
    """An array seen only through __cuda_array_interface__."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


# --- placeholders of Numba internals used only by excluded tests ------------------------

class ExcludedNumbaInternal(NotImplementedError):
    """A test used a placeholder of EXCLUDED_INTERNALS."""


class _ExcludedInternal:
    """Stands for a Numba internal cudakit does not implement, imported by
    a file only for its excluded test classes: any use raises."""

    def __init__(self, qualified_name: str, used_by: str):
        self._message = (f"{qualified_name} is a Numba internal that cudakit does not "
                         f"implement (imported for {used_by}, which the runner excludes: "
                         "run_numba_cudapy_tests.py EXCLUDED_TESTS)")

    def _refuse(self, *args, **kwargs):
        raise ExcludedNumbaInternal(self._message)

    __call__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = _refuse
    __iter__ = __len__ = __getitem__ = _refuse
    __hash__ = object.__hash__

    def __getattr__(self, name):
        if name.startswith("_"):  # (what pytest and unittest probe on module globals)
            raise AttributeError(name)
        self._refuse()

    def __repr__(self):
        return f"<placeholder: {self._message}>"


# module -> {name: the excluded tests that use it}; only names that nothing
# but excluded tests use.
EXCLUDED_INTERNALS = {
    "numba.cuda.core.controlflow": {
        "CFGraph": "test_flow_control.py's TestCFGraph",
        "ControlFlowAnalysis": "test_flow_control.py's TestRealCodeDomFront",
    },
    "numba.cuda.core.bytecode": {
        "FunctionIdentity": "test_flow_control.py's TestRealCodeDomFront",
        "ByteCode": "test_flow_control.py's TestRealCodeDomFront",
        "_fix_LOAD_GLOBAL_arg": "test_flow_control.py's TestRealCodeDomFront",
    },
}


def _excluded_internals_module(fullname: str) -> types.ModuleType:
    names = EXCLUDED_INTERNALS[fullname]
    return _module(fullname, None, {
        "__doc__": f"Placeholders of Numba internals used only by excluded tests: "
                   f"{', '.join(sorted(set(names.values())))}",
        **{name: _ExcludedInternal(f"{fullname}.{name}", used_by)
           for name, used_by in names.items()}})


# --- cuda-python's driver error (a harness mapping of an exception type) ---------------

def _cuda_python_module(fullname: str) -> types.ModuleType | None:
    """numba-cuda's tests catch a failed driver call as cuda-python's
    CUDAError (`from cuda.core._utils.cuda_utils import CUDAError`); cudakit
    does not use cuda-python, and its driver error of the same role is
    numba.cuda.cudadrv.driver.CudaAPIError (a driver call that failed: its
    CUresult name in the message). Only these module names are given, and
    only where cuda-python is not installed."""
    if fullname == "cuda.core._utils.cuda_utils":
        driver = importlib.import_module("cudakit.cuda.cudadrv.driver")
        return _module(fullname, None, {"CUDAError": driver.CudaAPIError})
    if fullname in ("cuda", "cuda.core", "cuda.core._utils"):
        return _module(fullname, [], {})
    return None


# --- the import redirection ----------------------------------------------------------

class _CpuJitFunction:
    """What @numba.njit gives: a CPU-callable function whose Python source
    (py_func) CUDA kernels may call as a device function (as in
    run_numba_doc_examples.sh)."""

    def __init__(self, py_func):
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)


def _cpu_jit(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return _CpuJitFunction(args[0])
    return _CpuJitFunction


def _numba_root_getattr(name):
    """`numba.X`: cuda, types and the type objects (int32, void, ...) from
    cudakit; njit/jit as the CPU stand-in; nothing else."""
    if name in ("jit", "njit"):
        return _cpu_jit
    if name in ("vectorize", "guvectorize"):  # `from numba import vectorize` -> cudakit's
        return getattr(importlib.import_module("cudakit"), name)
    cuda = importlib.import_module("cudakit.cuda")
    if name == "cuda":
        return cuda
    if name == "types":
        return cuda.types
    if name == "errors":  # numba.errors re-exports numba.core.errors
        return importlib.import_module("cudakit.cuda.core.errors")
    if name == "typeof":
        return importlib.import_module("cudakit.cuda.typing").typeof
    if not name.startswith("__") and hasattr(cuda.types, name):
        return getattr(cuda.types, name)
    raise AttributeError(f"module 'numba' (cudakit's stand-in) has no attribute {name!r}")


def _module(name: str, path: list[str] | None, attributes: dict) -> types.ModuleType:
    module = types.ModuleType(name)
    if path is not None:
        module.__path__ = path
    module.__dict__.update(attributes)
    return module


def _harness_module(name: str, names: list[str]) -> types.ModuleType:
    return _module(name, None, {n: globals()[n] for n in names})


_SUPPORT_NAMES = [
    "TestCase", "MemoryLeakMixin", "EnableNRTStatsMixin", "CheckWarningsMixin",
    "skip_unless_cffi", "linux_only", "windows_only", "skip_unless_typeguard",
    "skip_if_typeguard", "expected_failure_py314", "temp_directory", "import_dynamic",
    "ignore_internal_warnings", "override_config", "override_env_config",
    "run_in_subprocess", "captured_stdout", "captured_stderr"]
_TESTING_NAMES = [
    "CUDATestCase", "cc_X_or_above", "skip_unless_cc_50", "skip_unless_cc_53",
    "skip_unless_cc_60", "skip_unless_cc_75", "skip_unless_cc_90", "skip_on_cudasim",
    "skip_if_external_memmgr", "skip_under_cuda_memcheck", "skip_on_arm", "skip_on_wsl2",
    "skip_if_cuda_includes_missing", "skip_if_curand_kernel_missing",
    "skip_if_cudadevrt_missing", "skip_if_nvjitlink_missing",
    "skip_on_nvjitlink_13_1_sm_120", "skip_unless_cudasim", "skip_unless_conda_cudatoolkit",
    "skip_on_standalone_numba_cuda", "skip_without_nvdisasm", "skip_with_nvdisasm",
    "xfail_unless_cudasim", "ForeignArray", "unittest", "override_config", "captured_stdout",
    "captured_stderr"]


class _Ready(importlib.abc.Loader):
    """Loads a module object made beforehand."""

    def __init__(self, module: types.ModuleType):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class _NumbaFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in ("cuda", "cuda.core", "cuda.core._utils",
                        "cuda.core._utils.cuda_utils") and not _HAS_CUDA_PYTHON:
            module = _cuda_python_module(fullname)
            return importlib.machinery.ModuleSpec(fullname, _Ready(module), is_package=hasattr(
                module, "__path__"))
        if fullname != "numba" and not fullname.startswith("numba."):
            return None
        module = self._module_for(fullname)
        if module is None:
            return None
        is_package = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _Ready(module), is_package=is_package)

    @staticmethod
    def _module_for(fullname: str) -> types.ModuleType | None:
        if fullname == "numba":
            # A package with no folder: numba.core, numba.np, ... are not found.
            return _module("numba", [], {"__getattr__": _numba_root_getattr})
        if fullname == "numba.core":  # only the modules numba.cuda has copies of
            return _module(fullname, [], {})
        if fullname in ("numba.core.errors", "numba.errors"):
            return importlib.import_module("cudakit.cuda.core.errors")
        if fullname == "numba.core.extending":  # re-exports numba.cuda.extending's API
            return importlib.import_module("cudakit.cuda.extending")
        if fullname == "numba.core.typing":
            return _module(fullname, [], {})
        if fullname == "numba.core.typing.typeof":  # numba.cuda.typing.typeof's original
            return importlib.import_module("cudakit.cuda.typing.typeof")
        if fullname == "numba.cuda":
            return importlib.import_module("cudakit.cuda")
        if fullname == "numba.cuda.testing":
            module = _harness_module(fullname, _TESTING_NAMES)
            module.test_data_dir = pathlib.Path(_DATA_DIR)  # numba-cuda has a Path
            return module
        if fullname == "numba.cuda.tests":
            return _module(fullname, [], {})
        if fullname == "numba.cuda.tests.support":
            return _harness_module(fullname, _SUPPORT_NAMES)
        if fullname == "numba.cuda.tests.cudapy":
            return _module(fullname, [_TESTS_DIR], {})
        if fullname == "numba.cuda.tests.data":
            return _module(fullname, [_DATA_DIR], {})
        if fullname.startswith(("numba.cuda.tests.cudapy.", "numba.cuda.tests.data.")):
            return None  # numba-cuda's own file, found on the package's path
        if fullname in EXCLUDED_INTERNALS:
            return _excluded_internals_module(fullname)
        if fullname.startswith("numba.cuda."):
            cudakit_name = "cudakit.cuda." + fullname[len("numba.cuda."):]
            try:
                found = importlib.util.find_spec(cudakit_name)
            except ModuleNotFoundError:
                found = None
            if found is None:
                raise ModuleNotFoundError(
                    f"No module named {fullname!r} (cudakit has no {cudakit_name})",
                    name=fullname)
            return importlib.import_module(cudakit_name)
        raise ModuleNotFoundError(f"No module named {fullname!r} (a Numba internal; cudakit "
                                  "provides only numba.cuda)", name=fullname)


_HAS_CUDA_PYTHON = importlib.util.find_spec("cuda") is not None


def install(tests_dir: str, data_dir: str) -> None:
    """Points `numba` imports at cudakit (see the module docstring)."""
    global _TESTS_DIR, _DATA_DIR
    _TESTS_DIR, _DATA_DIR = os.path.abspath(tests_dir), os.path.abspath(data_dir)
    for name in [n for n in sys.modules if n == "numba" or n.startswith("numba.")]:
        del sys.modules[name]
    if not any(isinstance(finder, _NumbaFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _NumbaFinder())
