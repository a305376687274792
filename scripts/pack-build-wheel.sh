#!/usr/bin/env bash
# Packs the cudakit wheel from a build tree `make build` has built: the one
# C++ build's extension and CLI, no second compile. CMake's "python" install
# component is staged, scikit-build-core writes the dist-info for this
# pyproject.toml (its PEP 517 metadata hook: no configure, no compile: the
# same METADATA, WHEEL tag and `cudakit` console script as `pip wheel .`),
# and `wheel pack` zips both with their RECORD. Takes seconds. `make
# python-install` installs the result, so the Python tests run against an
# installed wheel.
# The wheel links what that build linked (a shared Boost.Context where the
# build found one): a wheel for other machines comes from `pip wheel .` or
# `make wheel`.
# usage: scripts/pack-build-wheel.sh BUILD_DIR PYTHON OUT_DIR
#   PYTHON: an interpreter with scikit-build-core and wheel (the dev venv's).
# Prints the wheel's path.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 BUILD_DIR PYTHON OUT_DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
python=$2
out=$3
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "$0: $build is not a configured build directory (run make build first)" >&2
  exit 1
fi
if ! grep -q "^CUDAKIT_BUILD_PYTHON:BOOL=ON" "$build/CMakeCache.txt"; then
  echo "$0: $build was configured without the Python extension: configure it with" \
    "-DCUDAKIT_BUILD_PYTHON=ON (make build does)" >&2
  exit 1
fi
stage=$(mktemp -d "${TMPDIR:-/tmp}/cudakit-wheel-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
cmake --install "$build" --component python --prefix "$stage" > /dev/null
for needed in "$stage"/cudakit/_core*.so "$stage/cudakit/bin/cudakit"; do
  if [ ! -e "$needed" ]; then
    echo "$0: $needed was not installed: build the targets _core and cudakit_cli" \
      "(configure with CUDAKIT_BUILD_TOOLS=ON)" >&2
    exit 1
  fi
done
(cd "$root" && "$python" -c '
import sys
from scikit_build_core.build import prepare_metadata_for_build_wheel
prepare_metadata_for_build_wheel(sys.argv[1])' "$stage") > /dev/null
rm -f "$out"/cudakit-*.whl
"$python" -m wheel pack "$stage" -d "$out" > /dev/null
ls "$out"/cudakit-*.whl
