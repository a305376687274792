#!/usr/bin/env bash
# Runs the documentation examples of Numba's CUDA target (the
# numba/cuda/tests/doc_examples/test_*.py files of numba-cuda) against
# cudakit, and prints the pass / fail / skip counts. Numba's code is read
# into a scratch directory and never kept in this repository.
#
#   tests/python/compat/run_numba_doc_examples.sh [PYTHON] [WORKDIR]
#
# PYTHON: the interpreter with cudakit installed (default: .venv/bin/python,
# else python3). WORKDIR: where the examples go (default: a new temporary dir).
# Extra pytest arguments: PYTEST_ARGS="-x", a selection: PYTEST_K="vecadd or matmul".
# The backend is the CPU
# one unless CUDAKIT_BACKEND says otherwise.
#
# Where the examples come from (NUMBA_DOCS_FROM, default auto):
#   sdist      the numba-cuda sdist (version NUMBA_CUDA_SDIST_VERSION, default
#              below): one in WORKDIR, else one in the deps directory
#              (CUDAKIT_DEPS_DIR, default .deps/ at the repository root, its
#              sdist/ folder or itself, which scripts/fetch-gpu-deps.sh
#              fills), else downloaded from PyPI.
#   installed  the numba-cuda package installed in PYTHON: its wheels ship
#              the examples (numba_cuda/numba/cuda/tests/doc_examples).
#   auto       a local sdist if there is one, else the installed package,
#              else the download: a machine without internet runs it offline.
#
# Only import lines are rewritten: `from numba import cuda` and
# `numba.cuda[.X]` imports point at cudakit.cuda; the test harness of
# numba-cuda (numba.cuda.testing, numba.cuda.tests.support) and `import
# numba` (whose @numba.jit makes a CPU function that kernels may call) point
# at a small shim written next to the tests.
# test_ffi.py's from_buffer example imports cffi: where PYTHON lacks it, a
# cffi wheel (and pycparser's) in the deps directory (its wheels/ folder or
# itself) is unpacked into WORKDIR
# and put on PYTHONPATH; without either, that example fails at its import.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
python="${1:-}"
if [ -z "$python" ]; then
  if [ -x "$root/.venv/bin/python" ]; then python="$root/.venv/bin/python"; else python=python3; fi
fi
# A relative path to the interpreter keeps working after the cd below.
case "$python" in */*) python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")" ;; esac
sdist_version="${NUMBA_CUDA_SDIST_VERSION:-0.24.0}"  # the newest numba-cuda with an sdist
deps="${CUDAKIT_DEPS_DIR:-$root/.deps}"
from="${NUMBA_DOCS_FROM:-auto}"
work="${2:-$(mktemp -d -t cudakit-numba-docs.XXXXXX)}"
mkdir -p "$work"
cd "$work"
export CUDAKIT_BACKEND="${CUDAKIT_BACKEND:-cpu}"

# The doc_examples folder of the installed numba-cuda (found without
# importing it: numba may not import with this NumPy), or nothing.
installed_docs() {
  "$python" - <<'PY' 2> /dev/null || true
import importlib.util, os
spec = importlib.util.find_spec("numba_cuda")
for base in (spec.submodule_search_locations or []) if spec else []:
    for folder, _, _ in os.walk(base):
        if folder.replace(os.sep, "/").endswith("/cuda/tests/doc_examples"):
            print(folder)
            raise SystemExit
PY
}

# An sdist already here: the newest in WORKDIR, else the pinned one in the deps directory.
local_sdist() {
  local found
  found="$(ls numba_cuda-*.tar.gz 2> /dev/null | sort -V | tail -n 1)"
  if [ -n "$found" ]; then echo "$work/$found"; return; fi
  for found in "$deps/sdist/numba_cuda-$sdist_version.tar.gz" \
    "$deps/numba_cuda-$sdist_version.tar.gz"; do
    if [ -f "$found" ]; then echo "$found"; return 0; fi
  done
  return 0
}

rm -rf examples data && mkdir -p examples/src data
sdist="$(local_sdist)"
docs=""
case "$from" in
  sdist) ;;
  installed | auto)
    if [ "$from" = installed ] || [ -z "$sdist" ]; then
      docs="$(installed_docs)"
      if [ -z "$docs" ] && [ "$from" = installed ]; then
        echo "NUMBA_DOCS_FROM=installed: $python has no numba-cuda with tests/doc_examples" \
          "(pip show numba-cuda); use NUMBA_DOCS_FROM=sdist" >&2
        exit 2
      fi
    fi
    ;;
  *) echo "NUMBA_DOCS_FROM must be auto, sdist or installed, not '$from'" >&2; exit 2 ;;
esac
if [ -n "$docs" ]; then
  source_name="numba-cuda $("$python" -c 'import importlib.metadata as m; print(m.version("numba-cuda"))' 2> /dev/null || echo '?') (installed: $docs)"
else
  if [ -z "$sdist" ]; then
    echo "== downloading the numba-cuda $sdist_version sdist (PyPI) into $work"
    # Only numba-cuda itself as source: its build requirements come as wheels.
    if ! "$python" -m pip download --no-deps --no-binary numba-cuda \
        "numba-cuda==$sdist_version" -d . -q; then
      echo "no numba-cuda examples: no sdist in $work or $deps (scripts/fetch-gpu-deps.sh" \
        "puts one there), no installed numba-cuda that ships them, and no download" >&2
      exit 2
    fi
    sdist="$(local_sdist)"
  fi
  source_name="$(basename "$sdist")"
  tar xzf "$sdist" -C examples/src --strip-components=1 --wildcards \
    '*/tests/doc_examples/*' '*/tests/data/include/*'
  docs="$(find examples/src -type d -path '*/tests/doc_examples' | head -n 1)"
fi
cp -r "$docs"/. examples/
# Headers an example includes from ../data/include (next to doc_examples).
cp -r "$docs"/../data/include data/
rm -rf examples/src examples/__init__.py examples/__pycache__

# cffi for test_ffi.py, from wheels in the deps directory where PYTHON lacks it.
any_file() { for f in "$@"; do [ -f "$f" ] && return 0; done; return 1; }
if ! "$python" -c "import cffi" 2> /dev/null \
    && any_file "$deps"/cffi-*.whl "$deps"/wheels/cffi-*.whl; then
  rm -rf site && mkdir site
  for wheel in "$deps"/cffi-*.whl "$deps"/pycparser-*.whl "$deps"/wheels/cffi-*.whl \
    "$deps"/wheels/pycparser-*.whl; do
    [ -f "$wheel" ] && "$python" -m zipfile -e "$wheel" site
  done
  export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
  "$python" -c "import cffi" 2> /dev/null \
    || echo "== the cffi wheel in $deps does not import with $python (test_ffi's from_buffer will fail)"
fi
echo "== $source_name: running tests/doc_examples/test_*.py against cudakit ($CUDAKIT_BACKEND backend)"

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
