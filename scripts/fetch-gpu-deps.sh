#!/usr/bin/env bash
# Downloads what the GPU check machine lacks into .deps/ (git-ignored), which
# is carried to that machine; run it here, where apt and PyPI work.
# - Debian packages (xxHash headers, Boost.Context): scripts/gpu-check.sh
#   unpacks them there.
# - For the compatibility runs (GPU_CHECK_COMPAT=1 there; tests/python/compat/
#   *.sh also read .deps/ themselves, as that machine has no internet): the
#   numba-cuda and PyCUDA sdists those scripts pin into .deps/sdist, and wheels
#   for its Python 3.12 of cffi (numba's FFI example) and pytools (PyCUDA's
#   tests), with their dependencies, into .deps/wheels.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
cd .deps
apt-get download libxxhash-dev libboost-context1.74-dev libboost-context1.74.0
python="${PYTHON:-python3}"
# Only these two as source (--no-binary names them: pip need not build their
# build requirements from source to read their metadata).
"$python" -m pip download -q --no-deps --no-binary numba-cuda,pycuda \
  numba-cuda==0.24.0 pycuda==2026.1 -d sdist
# numba-cuda's current release ships wheels only (its tests are inside).
"$python" -m pip download -q --no-deps --only-binary :all: --python-version 3.12 --implementation cp \
  --abi cp312 --platform manylinux_2_28_x86_64 numba-cuda==0.30.4 -d wheels
"$python" -m pip download -q --only-binary :all: --python-version 3.12 --implementation cp \
  --abi cp312 --platform manylinux2014_x86_64 cffi pytools==2026.1.1 jinja2==3.1.6 -d wheels
# ml_dtypes: numba-cuda's bfloat16 tests take NumPy's bfloat16 from it (no
# dependencies: the machine's NumPy stays the one used).
"$python" -m pip download -q --no-deps --only-binary :all: --python-version 3.12 --implementation cp \
  --abi cp312 --platform manylinux_2_28_x86_64 ml_dtypes==0.6.0 -d wheels
# numba-cuda's test harness imports filecheck (the reference column of the cudapy run).
"$python" -m pip download -q --no-deps filecheck==1.0.6 -d wheels
# Dask for cudakit.dask's tests and bench/peers/python_dask.py (the versions
# python/requirements-dev.txt pins), with their dependencies.
"$python" -m pip download -q --only-binary :all: --python-version 3.12 --implementation cp \
  --abi cp312 --platform manylinux2014_x86_64 dask==2026.8.0 distributed==2026.8.0 -d wheels
ls -l ./*.deb sdist wheels
