#!/usr/bin/env bash
# Runs the documentation examples of Numba's CUDA target (the
# numba/cuda/tests/doc_examples/test_*.py files of the numba-cuda sdist)
# against cudakit, and prints the pass / fail / skip counts. Numba's code is
# downloaded into a scratch directory and never kept in this repository.
#
#   tests/python/compat/run_numba_doc_examples.sh [PYTHON] [WORKDIR]
#
# PYTHON: the interpreter with cudakit installed (default: .venv/bin/python,
# else python3). WORKDIR: where the sdist goes (default: a new temporary dir).
# Extra pytest arguments: PYTEST_ARGS="-x", a selection: PYTEST_K="vecadd or matmul".
# The backend is the CPU
# one unless CUDAKIT_BACKEND says otherwise.
#
# Only import lines are rewritten: `from numba import cuda` and
# `numba.cuda[.X]` imports point at cudakit.cuda; the test harness of
# numba-cuda (numba.cuda.testing, numba.cuda.tests.support) and `import
# numba` (whose @numba.jit makes a CPU function that kernels may call) point
# at a small shim written next to the tests.
# test_ffi.py's from_buffer example imports cffi: without it installed
# (`pip install cffi`) that example fails at its import.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
python="${1:-}"
if [ -z "$python" ]; then
  if [ -x "$root/.venv/bin/python" ]; then python="$root/.venv/bin/python"; else python=python3; fi
fi
work="${2:-$(mktemp -d -t cudakit-numba-docs.XXXXXX)}"
mkdir -p "$work"
cd "$work"
export CUDAKIT_BACKEND="${CUDAKIT_BACKEND:-cpu}"

if ! ls numba_cuda-*.tar.gz > /dev/null 2>&1; then
  echo "== downloading the numba-cuda sdist (PyPI) into $work"
  # Only numba-cuda itself as source: its build requirements come as wheels.
  "$python" -m pip download --no-deps --no-binary numba-cuda numba-cuda -d . -q
fi
sdist="$(ls numba_cuda-*.tar.gz | sort -V | tail -n 1)"
rm -rf examples && mkdir -p examples/src
tar xzf "$sdist" -C examples/src --strip-components=1 --wildcards \
  '*/tests/doc_examples/*' '*/tests/data/include/*'
docs="$(find examples/src -type d -path '*/tests/doc_examples' | head -n 1)"
cp -r "$docs"/. examples/
# Headers an example includes from ../data/include (next to doc_examples).
rm -rf data && mkdir -p data && cp -r "$docs"/../data/include data/
rm -rf examples/src examples/__init__.py
echo "== $(basename "$sdist"): running tests/doc_examples/test_*.py against cudakit ($CUDAKIT_BACKEND backend)"

# The harness numba-cuda's tests import (not part of the API cudakit provides).
cat > examples/numba_doc_shim.py <<'PY'
"""Stand-ins for numba-cuda's test harness and for `import numba`."""
import contextlib
import io
import sys
import unittest

CUDATestCase = unittest.TestCase


def _no_op_decorator(*args, **kwargs):
    # Used both bare (@skip_x) and with a reason (@skip_x("why")).
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda target: target


def __getattr__(name):
    # skip_on_cudasim, skip_unless_cc_60, skip_if_cudadevrt_missing, ...
    if name.startswith("skip"):
        return _no_op_decorator
    raise AttributeError(name)


@contextlib.contextmanager
def captured_stdout():
    saved = sys.stdout
    sys.stdout = io.StringIO()
    try:
        yield sys.stdout
    finally:
        sys.stdout = saved


@contextlib.contextmanager
def override_config(name, value):
    yield


class _CpuJitFunction:
    """What @numba.jit gives: a CPU-callable function whose Python source
    (py_func) CUDA kernels may call as a device function."""

    def __init__(self, py_func):
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)


def jit(*args, **kwargs):
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return _CpuJitFunction(args[0])
    return _CpuJitFunction


njit = jit
PY

# Rewrite the import lines only (the rest of each file is Numba's).
for test_file in examples/test_*.py; do
  sed -i -E \
    -e 's/^([[:space:]]*)from numba\.cuda\.(testing|tests\.support) import/\1from numba_doc_shim import/' \
    -e 's/^([[:space:]]*)from numba\.cuda(\.[a-z_.]+)? import/\1from cudakit.cuda\2 import/' \
    -e 's/^([[:space:]]*)from numba import cuda([[:space:]]*(#.*)?)$/\1from cudakit import cuda\2/' \
    -e 's/^([[:space:]]*)import numba([[:space:]]*(#.*)?)$/\1import numba_doc_shim as numba\2/' \
    "$test_file"
done

cd examples
set +e
"$python" -m pytest -v -rfEs -p no:cacheprovider ${PYTEST_ARGS:-} ${PYTEST_K:+-k "$PYTEST_K"} test_*.py > pytest.log 2>&1
status=$?
set -e
cat pytest.log
echo "== per file: passed / failed / skipped"
for test_file in test_*.py; do
  passed=$(grep -cE "^${test_file}::.* PASSED" pytest.log || true)
  failed=$(grep -cE "^${test_file}::.* (FAILED|ERROR)" pytest.log || true)
  skipped=$(grep -cE "^${test_file}::.* SKIPPED" pytest.log || true)
  printf '   %-28s %d / %d / %d\n' "$test_file" "$passed" "$failed" "$skipped"
done
echo "== total: $(tail -n 1 pytest.log | tr -d '=')"
exit "$status"
