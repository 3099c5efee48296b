#!/usr/bin/env bash
# Prepared for the next session (not run yet): what dlca-train --jobs gains on the GPU. The same
# growth chain (seed 7, the shipped recipe with its abandon rule) runs for the same wall time one
# run at a time and with 14 runs at once; the last restart line gives the runs done and the rate.
# About 7 minutes with the default 120 s a setting (three settings, and the build).
#     bash scripts/gpu/sweep56.sh [SECONDS]
set -u
source scripts/gpu/setup.sh tools/dlca-train || exit 1
S=${1:-120}
tools/dlca-train --preset growth --epochs 2 --quiet >/dev/null 2>&1   # the kernel cache
for J in 1 4 14; do
  OMP_NUM_THREADS=$((16 / J > 0 ? 16 / J : 1)) timeout -s TERM $S \
    tools/dlca-train --preset growth --seed 7 --restarts 5000 --jobs $J --quiet > $R/jobs$J.out 2> $R/jobs$J.err
  echo "jobs $J: $(grep 'restart [0-9]* of' $R/jobs$J.err | tail -1)"
  grep -E 'right on every|interrupted' $R/jobs$J.err | head -2
done
