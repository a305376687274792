#!/usr/bin/env bash
# On a GPU machine with Nsight Systems: the profile workload's NVTX ranges
# (its kernel's launch and compile, its copies, its fused expression) appear
# in nsys's NVTX summary. Prints SKIPPED (and exits 0) without nsys or a GPU.
# Usage: nsys_ranges.sh PROFILE_WORKLOAD
set -u
workload=$1
nsys=${CUDAKIT_NSYS:-$(command -v nsys || true)}
if [[ -z $nsys ]]; then
  for candidate in /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys; do
    [[ -x $candidate ]] && nsys=$candidate && break
  done
fi
if [[ -z $nsys ]]; then
  echo "SKIPPED: nsys (Nsight Systems) is not installed"
  exit 0
fi
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "SKIPPED: no GPU"
  exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A real compile each run, so that the compile range is there.
export CUDAKIT_CACHE=0
"$nsys" profile --trace=cuda,nvtx --force-overwrite=true -o "$dir/report" "$workload" || exit 1
"$nsys" stats --report nvtx_sum --format csv "$dir/report.nsys-rep" > "$dir/nvtx.csv" 2>&1 ||
  "$nsys" stats --report nvtxsum --format csv "$dir/report.nsys-rep" > "$dir/nvtx.csv" 2>&1
cat "$dir/nvtx.csv"
status=0
for range in "saxpy" "compile saxpy" "copy " "add(multiply(in0, in1), in0)"; do
  if grep -qF "$range" "$dir/nvtx.csv"; then
    echo "found NVTX range: $range"
  else
    echo "MISSING NVTX range: $range"
    status=1
  fi
done
exit $status
