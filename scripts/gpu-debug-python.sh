#!/usr/bin/env bash
# On a GPU machine: build (as gpu-check.sh does), then run the Python suite one
# file at a time (a crash in one file does not hide the others) and take a
# native backtrace (cuda-gdb, which also debugs host code) of the tests named
# in GPU_DEBUG_TESTS. Logs under $OUT; a table of files last.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
GPU_CHECK_BUILD_ONLY=1 BUDGET=${BUILD_BUDGET:-200} bash scripts/gpu-check.sh >"$OUT/build-steps.log" 2>&1
export LD_LIBRARY_PATH=$ROOT/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONPATH=$ROOT/build-gpu/pysite${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
cd tests/python
n=0
for t in ${GPU_DEBUG_TESTS:-}; do
  n=$((n + 1))
  timeout 150 cuda-gdb -batch -ex run -ex bt -ex "info sharedlibrary" --args \
    python3 -m pytest -x -q -p no:cacheprovider -p no:faulthandler "$t" >"$OUT/gdb-$n.log" 2>&1
  echo "== backtrace $n ($t)"
  grep -E "^#[0-9]+ " "$OUT/gdb-$n.log" | head -25
done
START=$(date +%s)
for f in test_*.py jit; do
  if (($(date +%s) - START > ${PY_BUDGET:-240})); then echo "$f: not run (out of time)"; continue; fi
  timeout 120 python3 -m pytest -q -p no:cacheprovider --timeout=60 -rf "$f" >"$OUT/py-${f%.py}.log" 2>&1
  echo "$f: rc=$? $(grep -E "passed|failed|error|Fatal" "$OUT/py-${f%.py}.log" | tail -1)"
  grep -E "^FAILED|Fatal Python|File \"/work" "$OUT/py-${f%.py}.log" | head -6 | sed 's/^/    /'
done
cd "$OUT" && tar czf pylogs.tgz --remove-files ./*.log
