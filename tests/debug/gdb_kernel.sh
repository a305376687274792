#!/bin/sh
# gdb on a CPU-backend kernel: a breakpoint on the kernel's source line with
# the condition threadIdx.x == 5 stops at that CUDA thread, and gdb prints
# blockIdx and shows the line of my_filter.cu.
#   gdb_kernel.sh PATH/TO/gdb_kernel
# Exit 77 (skipped) when gdb is not installed.
program="$1"
if ! command -v gdb >/dev/null 2>&1; then
  echo "skipped: gdb is not installed (scripts/install-deps.sh installs it)"
  exit 77
fi
# A cache of its own: the kernel is compiled here, and its kept source lives
# under it (cpu-sources/).
cache=$(mktemp -d "${TMPDIR:-/tmp}/cudakit-gdb-test-XXXXXX")
trap 'rm -rf "$cache"' EXIT
out=$(CUDAKIT_CACHE_DIR="$cache" CUDAKIT_BACKEND=cpu CUDAKIT_CPU_THREADS=1 gdb -nx -batch \
  -ex 'set pagination off' -ex 'set breakpoint pending on' \
  -ex 'break my_filter.cu:3 if threadIdx.x == 5' -ex 'run' \
  -ex 'print threadIdx' -ex 'print blockIdx' -ex 'print blockDim' -ex 'print gridDim' \
  -ex 'print i' -ex 'kill' --args "$program" 2>&1)
echo "$out"
fail=0
expect() {
  if ! printf '%s\n' "$out" | grep -Eq "$1"; then
    echo "MISSING: $2"
    fail=1
  fi
}
expect 'scale_by_two \(p=.*, n=13\) at .*my_filter\.cu:3' "the stop in scale_by_two at my_filter.cu:3"
expect '^3[[:space:]]+if \(i < n\) p\[i\] = 2\.0f \* p\[i\];' "the source line 3 shown"
expect '^\$1 = \{x = 5, y = 0, z = 0\}' "threadIdx printed as {x = 5, y = 0, z = 0}"
expect '^\$2 = \{x = 0, y = 0, z = 0\}' "blockIdx printed (the first block)"
expect '^\$3 = \{x = 8, y = 1, z = 1\}' "blockDim printed"
expect '^\$4 = \{x = 2, y = 1, z = 1\}' "gridDim printed"
expect '^\$5 = 5$' "the local i printed"
expect "$cache/cpu-sources/[0-9a-f]+/my_filter\\.cu:3" "the source kept under the cache"
if [ "$fail" -ne 0 ]; then
  echo "gdb_kernel.sh: FAILED"
  exit 1
fi
echo "gdb_kernel.sh: passed"
