#!/usr/bin/env bash
# Profiles steps of the mean filter (cudakit bench conv) with Nsight Compute
# on a GPU machine, clocks and caches left as the benchmark leaves them:
# where a launch's time goes (active cycles per multiprocessor against the
# elapsed ones, warps active, issue rate, stall reasons).
#   scripts/conv-profile.sh STEP...   (labels: 1, 6t, ...; "copy" for the copy ceiling)
# Needs build/bin/cudakit (or $CUDAKIT) and ncu on PATH; writes under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
CUDAKIT=${CUDAKIT:-$PWD/build/bin/cudakit}
if [ -d .deps ] && compgen -G ".deps/*.deb" >/dev/null; then
  mkdir -p .deps/root
  for deb in .deps/*.deb; do dpkg -x "$deb" .deps/root; done
  export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second
METRICS+=,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max
METRICS+=,smsp__cycles_active.avg,smsp__inst_executed.sum,smsp__issue_active.avg.per_cycle_active
METRICS+=,sm__warps_active.avg.pct_of_peak_sustained_active,sm__warps_launched.sum
METRICS+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
METRICS+=,"regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio"
for step in "$@"; do
  if [ "$step" = copy ]; then
    # the streaming-store copy: after two configurations of 12 launches
    kernel=copy_bytes_16; steps=1; skip=30
  else
    skip=6
    steps=$step
    kernel=$([ "$step" = 1 ] && echo convolution_3x3 || echo regex:mean_filter_)
  fi
  echo "=== $step"
  ncu --clock-control none --cache-control none -k "$kernel" --launch-skip $skip --launch-count 1 \
    --metrics "$METRICS" --print-metric-instances values \
    "$CUDAKIT" bench conv --steps "$steps" --repeats 10 >"$OUT/ncu-$step.txt" 2>&1
  grep -E "^\s+(gpu__|sm__|smsp__|dram__|lts__)" "$OUT/ncu-$step.txt" | \
    sed -E 's/smsp__average_warps_issue_stalled_(.*)_per_issue_active.ratio/stall_\1/' | \
    awk '{ if (length($0) > 220) print substr($0, 1, 220) " ..."; else print }'
done
