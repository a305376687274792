#!/usr/bin/env bash
# The one script run on a GPU machine (Ubuntu 24.04, CMake 4, ninja, nvcc):
# unpacks the carried .deps/*.deb, configures with ninja, builds everything,
# runs the GPU tests and the full suite, `cudakit doctor/info/demo/bench all`
# and the bench/ programs, saves every log under $OUT (default ./out) and
# prints a summary table last. Each step has its own timeout; the whole run
# stays under 9 minutes. Knobs (environment): GPU_CHECK_SKIP_REST (no non-GPU
# ctest), GPU_CHECK_SKIP_PYTHON (no pytest, no Python benchmarks),
# GPU_CHECK_SKIP_PYBENCH (pytest but no Python benchmarks), GPU_CHECK_PYBENCH
# (only those Python benchmarks), GPU_CHECK_SKIP_PYTEST_GPU (the whole suite
# only, not its GPU marker first), GPU_CHECK_SKIP_CLI
# (no doctor/demo/bench), GPU_CHECK_CTEST_REGEX, GPU_CHECK_SKIP_CTEST,
# GPU_CHECK_COMPAT (PyCUDA's suite and Numba's doc examples), GPU_CHECK_WHEEL
# (pip wheel ., a fresh venv, doctor and the tutorials: scripts/wheel-check.sh),
# GPU_CHECK_AFTER_BUILD (a probe command), GPU_CHECK_BUILD_ONLY, BUDGET (seconds).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=${BUILD:-$ROOT/build-gpu}
JOBS=${JOBS:-$(nproc)}
START=$(date +%s)
BUDGET=${BUDGET:-530}   # seconds for all steps together

declare -A STATUS
note() { echo "== $*" | tee -a "$OUT/steps.log"; }
left() { echo $((BUDGET - ($(date +%s) - START))); }
# step NAME LIMIT LOG CMD...: runs CMD with a timeout of min(LIMIT, time left)
step() {
  local name=$1 limit=$2 log=$3
  shift 3
  local remaining
  remaining=$(left)
  if ((remaining < 15)); then
    STATUS[$name]="skipped (out of time)"
    note "$name: skipped, out of time"
    return 124
  fi
  ((limit > remaining)) && limit=$remaining
  note "$name (timeout ${limit}s): $*"
  local t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >"$OUT/$log" 2>&1
  local rc=$?
  local took=$(($(date +%s) - t0))
  case $rc in
    0) STATUS[$name]="ok (${took}s)" ;;
    124 | 137) STATUS[$name]="TIMEOUT after ${took}s" ;;
    *) STATUS[$name]="exit $rc (${took}s)" ;;
  esac
  note "$name: ${STATUS[$name]}"
  return $rc
}

# --- dependencies the machine lacks: unpack the carried .deb files ---------
DEPS=$ROOT/.deps/root
if compgen -G "$ROOT/.deps/*.deb" >/dev/null; then
  mkdir -p "$DEPS"
  for deb in "$ROOT"/.deps/*.deb; do dpkg -x "$deb" "$DEPS"; done
  note "unpacked $(ls "$ROOT"/.deps/*.deb | wc -l) packages into .deps/root"
else
  note "no .deps/*.deb (run scripts/fetch-gpu-deps.sh where apt works); relying on system packages"
fi
LIBDIR=$DEPS/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Boost.Context: the carried library is Debian's 1.74, the machine's Boost
# headers (and BoostConfig) are newer, and BoostConfig only accepts a context
# component of exactly its own version. Where the system has no Boost.Context
# of its own, a small config package presents the carried library under any
# requested version (its fcontext entry points are a stable C ABI).
BOOST_ARGS=()
SYSTEM_CONTEXT=$(ls /usr/lib/x86_64-linux-gnu/libboost_context.so* /usr/lib/libboost_context.so* 2>/dev/null | head -1)
CARRIED_CONTEXT=$(ls "$LIBDIR"/libboost_context.so.* 2>/dev/null | head -1)
if [[ -z $SYSTEM_CONTEXT && -n $CARRIED_CONTEXT ]]; then
  SHIM=$DEPS/cmake-shim/boost_context
  mkdir -p "$SHIM"
  cat >"$SHIM/boost_context-config-version.cmake" <<'CMAKE'
set(PACKAGE_VERSION "${PACKAGE_FIND_VERSION}")
if(NOT PACKAGE_VERSION)
  set(PACKAGE_VERSION "1.74.0")
endif()
set(PACKAGE_VERSION_COMPATIBLE TRUE)
set(PACKAGE_VERSION_EXACT TRUE)
CMAKE
  cat >"$SHIM/boost_context-config.cmake" <<CMAKE
if(NOT TARGET Boost::context)
  add_library(Boost::context SHARED IMPORTED)
  set_target_properties(Boost::context PROPERTIES
    IMPORTED_LOCATION "$CARRIED_CONTEXT"
    INTERFACE_COMPILE_DEFINITIONS "BOOST_CONTEXT_NO_LIB;BOOST_CONTEXT_DYN_LINK")
  if(TARGET Boost::headers)
    set_property(TARGET Boost::context APPEND PROPERTY INTERFACE_LINK_LIBRARIES Boost::headers)
  endif()
endif()
set(boost_context_FOUND TRUE)
CMAKE
  BOOST_ARGS=("-Dboost_context_DIR=$SHIM")
  note "Boost.Context: using the carried $(basename "$CARRIED_CONTEXT") through $SHIM"
fi
export CUDAKIT_CACHE_DIR=$BUILD/kernel-cache   # a cold cache first, then hits

# --- configure and build -----------------------------------------------------
step configure 90 configure.log \
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_PREFIX_PATH=$DEPS/usr;$LIBDIR/cmake" \
    "-DCMAKE_LIBRARY_PATH=$LIBDIR" \
    "-DCUDAKIT_EXTRA_INCLUDE_DIRS=$DEPS/usr/include" \
    "-DCMAKE_CXX_FLAGS=-isystem $DEPS/usr/include" "${BOOST_ARGS[@]}" \
    -DCUDAKIT_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$(command -v python3)"
step build 330 build.log cmake --build "$BUILD" -j "$JOBS"
# The Python package, installed from the same build (no second compile).
PYSITE=$BUILD/pysite
step python-install 60 python-install.log cmake --install "$BUILD" --component python --prefix "$PYSITE"
export PYTHONPATH=$PYSITE${PYTHONPATH:+:$PYTHONPATH}
if [[ ${STATUS[build]} != ok* ]]; then
  # Keep going with whatever did build; show where it broke.
  grep -E "error|FAILED" "$OUT/build.log" | head -20
  step build-rest 120 build-rest.log cmake --build "$BUILD" -j "$JOBS" -- -k 0
fi
CLI=$BUILD/bin/cudakit
# The Python tests that drive the CLI (cudakit check/run/profile with a script),
# and those that run against the scripted libcuda built with the C++ tests.
export CUDAKIT_CLI=$CLI
export CUDAKIT_FAKE_LIBCUDA=$BUILD/lib/libcuda_fake_driver.so
# GPU_CHECK_BUILD_ONLY=1: configure and build, nothing else (for a quick probe).
[[ ${GPU_CHECK_BUILD_ONLY:-0} == 1 ]] && exit 0


# GPU_CHECK_AFTER_BUILD: a command run once the build is installed (a probe).
[[ -n ${GPU_CHECK_AFTER_BUILD:-} ]] && step after-build 120 after-build.log bash -c "$GPU_CHECK_AFTER_BUILD"

# --- tests ------------------------------------------------------------------
# GPU_CHECK_CTEST_REGEX: only the GPU tests whose names match (ctest -R);
# GPU_CHECK_SKIP_CTEST=1: no ctest at all.
[[ ${GPU_CHECK_SKIP_CTEST:-0} == 1 ]] || step ctest-gpu 200 ctest-gpu.log ctest --test-dir "$BUILD" -L gpu ${GPU_CHECK_CTEST_REGEX:+-R "$GPU_CHECK_CTEST_REGEX"} --output-on-failure -j 4 --timeout 120
[[ ${GPU_CHECK_SKIP_REST:-0} == 1 || ${GPU_CHECK_SKIP_CTEST:-0} == 1 ]] || step ctest-rest 150 ctest-rest.log ctest --test-dir "$BUILD" -LE gpu --output-on-failure -j "$JOBS" --timeout 120

# --- the Python suite (GPU marker first, then everything) -----------------------
# GPU_CHECK_PARALLEL=N: the suite's files in N groups run at once (the GPU is
# shared; no test times anything), each group's log kept, one summary line each.
# GPU_CHECK_PYTEST_FILES: only these files (paths under tests/python, space-separated).
pytest_parallel() {
  local n=$1 g k files=()
  if [[ -n ${GPU_CHECK_PYTEST_FILES:-} ]]; then
    read -r -a files <<<"$GPU_CHECK_PYTEST_FILES"
    ((n > ${#files[@]})) && n=${#files[@]}
  else
    mapfile -t files < <(cd "$ROOT/tests/python" && ls test_*.py jit/test_*.py)
  fi
  for ((g = 0; g < n; g++)); do
    local group=()
    for ((k = g; k < ${#files[@]}; k += n)); do group+=("${files[k]}"); done
    (cd "$ROOT/tests/python" && PYTHONUNBUFFERED=1 python3 -m pytest -q -rfE -p no:cacheprovider \
      --timeout=60 "${group[@]}" >"$OUT/pytest-part-$g.log" 2>&1) &
  done
  wait
  for ((g = 0; g < n; g++)); do
    echo "part $g: $(grep -E "(passed|failed|error)" "$OUT/pytest-part-$g.log" | tail -1)"
    grep -E "^(FAILED|ERROR) " "$OUT/pytest-part-$g.log"
  done
  # Each part must have ended with pytest's summary, and none failed.
  for ((g = 0; g < n; g++)); do grep -qE "[0-9]+ passed" "$OUT/pytest-part-$g.log" || return 1; done
  ! grep -qE "^(FAILED|ERROR) " "$OUT"/pytest-part-*.log
}
# Offline wheels the suite and the compatibility runs use (cffi for the foreign-
# function tests, pytools for PyCUDA's tests), from .deps/ (scripts/fetch-gpu-deps.sh).
if [[ -d $ROOT/.deps/wheels ]]; then
  PYDEPS=$BUILD/pydeps
  python3 -m pip install -q --no-index --find-links "$ROOT/.deps/wheels" --target "$PYDEPS" pytools cffi jinja2 >"$OUT/pydeps.log" 2>&1 || true
  python3 -m pip install -q --no-index --no-deps --find-links "$ROOT/.deps/wheels" --target "$PYDEPS" ml_dtypes >>"$OUT/pydeps.log" 2>&1 || true
  # numba-cuda's test harness (the reference column of the cudapy run) imports filecheck.
  python3 -m pip install -q --no-index --no-deps --find-links "$ROOT/.deps/wheels" --target "$PYDEPS" filecheck >>"$OUT/pydeps.log" 2>&1 || true
  # Dask apart: where its wheels are missing, the rest still installs.
  python3 -m pip install -q --no-index --find-links "$ROOT/.deps/wheels" --target "$PYDEPS" dask distributed >>"$OUT/pydeps.log" 2>&1 || true
  export PYTHONPATH=$PYTHONPATH:$PYDEPS
fi
if [[ ${GPU_CHECK_SKIP_PYTHON:-0} != 1 ]]; then
  # (the parallel groups run the GPU-marked tests too)
  [[ ${GPU_CHECK_SKIP_PYTEST_GPU:-0} == 1 || ${GPU_CHECK_PARALLEL:-1} -gt 1 ]] || step pytest-gpu 150 pytest-gpu.log env PYTHONUNBUFFERED=1 python3 -m pytest -q -rs -p no:cacheprovider -m gpu "$ROOT/tests/python"
  if ((${GPU_CHECK_PARALLEL:-1} > 1)); then
    # (a function: `timeout` runs programs, so it goes through bash -c)
    step pytest-all 240 pytest-all.log bash -c "$(declare -f pytest_parallel); ROOT='$ROOT' OUT='$OUT' GPU_CHECK_PYTEST_FILES='${GPU_CHECK_PYTEST_FILES:-}' pytest_parallel $GPU_CHECK_PARALLEL"
  else
    step pytest-all 200 pytest-all.log env PYTHONUNBUFFERED=1 python3 -m pytest -q -rs -p no:cacheprovider --timeout=60 "$ROOT/tests/python"
  fi
  for py in "$ROOT"/bench/peers/python_*.py; do
    [[ -f $py && ${GPU_CHECK_SKIP_PYBENCH:-0} != 1 ]] || continue
    b=$(basename "$py" .py)
    # GPU_CHECK_PYBENCH: only these (names without .py, space-separated).
    [[ -z ${GPU_CHECK_PYBENCH:-} || " $GPU_CHECK_PYBENCH " == *" $b "* ]] || continue
    step "pybench:$b" 120 "pybench-$b.log" env PYTHONUNBUFFERED=1 python3 "$py"
  done
fi

# --- the wheel as a user builds it (GPU_CHECK_WHEEL=1): pip wheel ., a fresh
# venv, cudakit doctor and the tutorials' programs (scripts/wheel-check.sh).
# Boost.Context goes in statically (as in a wheel for other machines): a
# second config shim presents the carried libboost_context.a.
if [[ ${GPU_CHECK_WHEEL:-0} == 1 ]]; then
  WHEEL_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$DEPS/usr;$LIBDIR/cmake -DCMAKE_LIBRARY_PATH=$LIBDIR -DCUDAKIT_EXTRA_INCLUDE_DIRS=$DEPS/usr/include"
  CARRIED_STATIC_CONTEXT=$(ls "$LIBDIR"/libboost_context.a 2>/dev/null | head -1)
  if [[ -z $SYSTEM_CONTEXT && -n $CARRIED_STATIC_CONTEXT ]]; then
    STATIC_SHIM=$DEPS/cmake-shim-static/boost_context
    mkdir -p "$STATIC_SHIM"
    cp "$SHIM/boost_context-config-version.cmake" "$STATIC_SHIM/"
    sed -e "s|SHARED IMPORTED|STATIC IMPORTED|" -e "s|$CARRIED_CONTEXT|$CARRIED_STATIC_CONTEXT|" \
      -e "s|;BOOST_CONTEXT_DYN_LINK||" "$SHIM/boost_context-config.cmake" >"$STATIC_SHIM/boost_context-config.cmake"
    WHEEL_CMAKE_ARGS+=" -Dboost_context_DIR=$STATIC_SHIM"
  fi
  step wheel-check 330 wheel-check.log env CMAKE_ARGS="$WHEEL_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" \
    CXXFLAGS="-isystem $DEPS/usr/include" PIP_NO_INDEX=1 PYTHON="$(command -v python3)" \
    WHEEL_CHECK_DIR="$BUILD/wheel-check" bash "$ROOT/scripts/wheel-check.sh"
fi

# --- PyCUDA's test suite and Numba's doc examples (GPU_CHECK_COMPAT=1) -----------
# Offline: the sdists and the wheels they need (pytools, cffi) come in .deps/
# (scripts/fetch-gpu-deps.sh).
# GPU_CHECK_COMPAT_PARTS: which of them (default all: pycuda pycuda-examples
# numba numba-installed cudapy).
compat_part() { [[ " ${GPU_CHECK_COMPAT_PARTS:-pycuda pycuda-examples numba numba-installed cudapy} " == *" $1 "* ]]; }
if [[ ${GPU_CHECK_COMPAT:-0} == 1 && -d $ROOT/.deps/sdist ]]; then
  mkdir -p "$BUILD/compat-pycuda" "$BUILD/compat-numba"
  cp "$ROOT"/.deps/sdist/pycuda-*.tar.gz "$BUILD/compat-pycuda/" 2>/dev/null || true
  cp "$ROOT"/.deps/sdist/numba_cuda-*.tar.gz "$BUILD/compat-numba/" 2>/dev/null || true
  compat_part pycuda && step compat-pycuda 240 compat-pycuda.log env PYTEST_K="not big_array and not curand_wrappers_8gb and not curand_wrappers_16gb" \
    bash "$ROOT/tests/python/compat/run_pycuda_suite.sh" python3 "$BUILD/compat-pycuda"
  compat_part pycuda-examples && step compat-pycuda-examples 240 compat-pycuda-examples.log \
    python3 "$ROOT/tests/python/compat/run_pycuda_examples.py" --work "$BUILD/compat-pycuda-examples"
  compat_part numba && step compat-numba 120 compat-numba.log env CUDAKIT_BACKEND=cuda \
    bash "$ROOT/tests/python/compat/run_numba_doc_examples.sh" python3 "$BUILD/compat-numba"
  # The examples of the numba-cuda installed there (newer than the last sdist).
  compat_part numba-installed && step compat-numba-installed 120 compat-numba-installed.log env CUDAKIT_BACKEND=cuda NUMBA_DOCS_FROM=installed \
    bash "$ROOT/tests/python/compat/run_numba_doc_examples.sh" python3 "$BUILD/compat-numba-installed"
  # numba-cuda's own tests/cudapy files, with the installed numba-cuda's counts
  # next to them, and the list of what it passes and cudakit does not.
  compat_part cudapy && step compat-numba-cudapy ${GPU_CHECK_CUDAPY_LIMIT:-420} compat-numba-cudapy.log env CUDAKIT_BACKEND=cuda \
    python3 "$ROOT/tests/python/compat/run_numba_cudapy_tests.py" --numba --timeout 150 \
    --jobs "${GPU_CHECK_CUDAPY_JOBS:-8}" --work "$BUILD/compat-numba-cudapy"
  [[ -f $BUILD/compat-numba-cudapy/numba-passes-cudakit-fails.txt ]] &&
    cp "$BUILD/compat-numba-cudapy/numba-passes-cudakit-fails.txt" "$OUT/"
  [[ -d $BUILD/compat-numba-cudapy/logs ]] &&
    tar czf "$OUT/cudapy-logs.tgz" -C "$BUILD/compat-numba-cudapy" logs
fi

if [[ ${GPU_CHECK_SKIP_CLI:-0} != 1 ]]; then
# --- the CLI -------------------------------------------------------------------
step doctor 60 doctor.log "$CLI" doctor
step info 30 info.log "$CLI" info
step demo 150 demo.log "$CLI" demo
step bench-all 90 bench-all.log "$CLI" bench all
step bench-conv 180 bench-conv.log "$CLI" bench conv --repeats 50 --plot "$OUT/conv.svg"
# The shipped step against the naive one again, the launches timed on an idle
# GPU (the window holds the host's submission too), for comparison.
step bench-conv-idle 60 bench-conv-idle.log "$CLI" bench conv --repeats 50 --steps 1,5v,6t,shipped --timing idle
step bench-conv-warps 60 bench-conv-warps.log "$CLI" bench conv --repeats 5 --steps 1,5v,6t,7a,shipped --warp-times
step bench-launch-profiled 60 bench-launch-profiled.log env CUDAKIT_PROFILE=1 "$CLI" bench launch

# --- the bench/ programs --------------------------------------------------------
BENCHES=$(grep -ho 'add_executable([A-Za-z0-9_]*' "$ROOT"/bench/*.cmake 2>/dev/null | sed 's/add_executable(//' | sort -u)
for b in $BENCHES; do
  if [[ -x $BUILD/bin/$b ]]; then
    step "bench:$b" 90 "bench-$b.log" "$BUILD/bin/$b"
  else
    STATUS["bench:$b"]="not built"
  fi
done

# --- cudakit vs PyTorch / CuPy on the same memory, in one process ------------------
if [[ -f $BUILD/lib/libcudakit_peers.so ]] && python3 -c "import torch" 2>/dev/null; then
  step peers 150 peers.log env PYTHONUNBUFFERED=1 python3 "$ROOT/bench/peers/peer_compare.py" "$BUILD/lib/libcudakit_peers.so"
else
  STATUS[peers]="not run (no libcudakit_peers.so or no torch)"
fi
fi

# --- experiments (GPU_CHECK_EXPERIMENTS=1): bench/experiments/*.cu built with nvcc ---
if [[ ${GPU_CHECK_EXPERIMENTS:-0} == 1 ]] && command -v nvcc >/dev/null; then
  for cu in "$ROOT"/bench/experiments/*.cu; do
    e=$(basename "$cu" .cu)
    step "experiment:$e" 120 "experiment-$e.log" bash -c "nvcc -O3 -arch=sm_90 -o '$BUILD/$e' '$cu' && '$BUILD/$e'"
  done
fi

# --- summary (last) ------------------------------------------------------------
tests_line() {  # "N passed, M failed of T" from a ctest log
  local log=$OUT/$1
  [[ -f $log ]] || { echo "no log"; return; }
  local line
  line=$(grep -E "tests passed(, [0-9]+ tests failed)? out of" "$log" | tail -1)
  [[ -z $line ]] && { echo "no result (see $1)"; return; }
  local failed total skipped
  failed=0
  [[ $line == *"tests failed"* ]] && failed=$(sed -E 's/.*tests passed, ([0-9]+) tests failed.*/\1/' <<<"$line")
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  skipped=$(grep -c "\*\*\*Skipped" "$log" || true)
  echo "$((total - failed - skipped)) passed, $skipped skipped, $failed failed of $total"
}
{
  echo
  echo "================ GPU check summary ($(date -u +%FT%TZ), $(($(date +%s) - START))s) ================"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
  echo "| step | status |"
  echo "| --- | --- |"
  for k in configure build build-rest python-install after-build wheel-check ctest-gpu ctest-rest pytest-gpu pytest-all compat-pycuda compat-pycuda-examples compat-numba compat-numba-installed compat-numba-cudapy doctor info demo bench-all bench-conv bench-conv-idle bench-conv-warps bench-launch-profiled peers; do
    [[ -n ${STATUS[$k]:-} ]] && echo "| $k | ${STATUS[$k]} |"
  done
  for k in "${!STATUS[@]}"; do [[ $k == bench:* || $k == pybench:* || $k == experiment:* ]] && echo "| $k | ${STATUS[$k]} |"; done
  echo
  echo "tests, gpu label : $(tests_line ctest-gpu.log)"
  echo "tests, the rest  : $(tests_line ctest-rest.log)"
  for log in pytest-gpu pytest-all; do
    [[ -f $OUT/$log.log ]] && echo "$log: $(grep -E "(passed|failed|error)" "$OUT/$log.log" | tail -1)"
    [[ $log == pytest-all ]] && grep -E "^part [0-9]+:" "$OUT/$log.log" 2>/dev/null | sed 's/^/  /'
    grep -E "^(FAILED|ERROR) " "$OUT/$log.log" 2>/dev/null | head -15 | sed 's/^/  /'
  done
  for log in compat-pycuda compat-numba compat-numba-installed; do
    [[ -f $OUT/$log.log ]] || continue
    echo "$log:"; tail -8 "$OUT/$log.log" | sed 's/^/  /'
  done
  [[ -f $OUT/compat-pycuda-examples.log ]] && { echo "compat-pycuda-examples:"; grep -E "FAILED|fails as|^==" "$OUT/compat-pycuda-examples.log" | sed 's/^/  /'; }
  [[ -f $OUT/after-build.log ]] && { echo "after-build:"; tail -40 "$OUT/after-build.log" | sed 's/^/  /'; }
  [[ -f $OUT/wheel-check.log ]] && { echo "wheel-check:"; sed -n '/^Summary/,$p' "$OUT/wheel-check.log" | sed 's/^/  /'; }
  [[ -f $OUT/compat-numba-cudapy.log ]] && { echo "compat-numba-cudapy:"; tail -6 "$OUT/compat-numba-cudapy.log" | sed 's/^/  /'; }
  grep -hE "^(FAILED|ERROR) " "$BUILD"/compat-*/*.log 2>/dev/null | head -40 | sed 's/^/  compat: /'
  for log in "$OUT"/pybench-*.log; do
    [[ -f $log ]] || continue
    echo "$(basename "$log" .log):"
    tail -25 "$log" | sed 's/^/  /'
  done
  grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)\)" "$OUT"/ctest-*.log 2>/dev/null | head -20 | sed 's/^/  FAILED: /'
  echo
  echo "doctor: $(grep -E "^(GPU path|CPU backend works)" "$OUT/doctor.log" 2>/dev/null | head -2 | tr '\n' ' ')"
  grep -E "^\[FAIL\]" "$OUT/doctor.log" 2>/dev/null | head -5 | sed 's/^/  /'
  echo
  echo "demo:"
  grep -E "^\|" "$OUT/demo.log" 2>/dev/null || echo "  (no table; see demo.log)"
  echo
  echo "peers (cudakit vs torch/cupy, same memory, one process):"
  sed -n '/^benchmark /,$p' "$OUT/peers.log" 2>/dev/null | sed 's/^/  /'
  grep -E "ran as" "$OUT/peers.log" 2>/dev/null | sed 's/^/  /'
  echo
  for log in "$OUT"/experiment-*.log; do
    [[ -f $log ]] || continue
    echo "$(basename "$log" .log):"
    tail -40 "$log" | sed 's/^/  /'
  done
  grep -h "RESULT" "$OUT"/bench-array_overhead_bench.log 2>/dev/null | sed 's/^/  overhead: /'
  echo "conv (3x3 filter steps):"
  grep -E "^\||shipped|fastest" "$OUT/bench-conv.log" 2>/dev/null | sed 's/^/  /'
  echo "conv, launches timed on an idle GPU:"
  grep -E "^\| (1|5v|6t) |shipped|shipped filter" "$OUT/bench-conv-idle.log" 2>/dev/null | sed 's/^/  /'
  echo "conv, each warp's time in one launch:"
  sed -n '/^warp times/,$p' "$OUT/bench-conv-warps.log" 2>/dev/null | sed 's/^/  /'
  echo "launch with CUDAKIT_PROFILE=1:"
  grep -iE "us|launch" "$OUT/bench-launch-profiled.log" 2>/dev/null | head -6 | sed 's/^/  /'
  echo "launch plain:"
  grep -iE "us|launch" "$OUT/bench-all.log" 2>/dev/null | head -6 | sed 's/^/  /'
  echo "bench ratios:"
  # Not the CUDAKIT_PROFILE=1 run: its launches carry an event pair each.
  grep -hiE "ratio|x \(target" $(ls "$OUT"/bench-*.log | grep -v launch-profiled) 2>/dev/null | sed 's/^/  /' || echo "  (none)"
  echo
  echo "logs: $OUT"
} | tee "$OUT/summary.txt"

# At most a few files come back from the GPU machine: pack the logs into one.
(cd "$OUT" && tar czf logs.tgz --remove-files ./*.log 2>/dev/null || tar czf logs.tgz ./*.log)
