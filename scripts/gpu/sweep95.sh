#!/usr/bin/env bash
# GPU call 95 (2026-11-26): v22, BWD_PUSH: dlca_backward's update layers push each gate's
# two input gradients into gradient slots of its inputs instead of pulling them through the
# reverse wiring. Registers (BWD_PUSH 1), parity with the push taken (the split forced on
# every preset, and checkerboard b128), then BWD_PUSH 0 against 1 at b128 and b512, two rounds.
# (sweep92.sh ran the first version, whose plan with three slot rows (the checkerboard's
# 256-wide layers have inputs of 3 readers) did not fit 48 KiB: the push was not taken.)
#     bash scripts/gpu/sweep95.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tab BWD_PUSH=1
DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS=-cl-nv-verbose bench/dlca-bench --preset checkerboard --batch 512 --repeats 3 --json $R/regs.json > $R/regs.out 2> $R/regs.err
tr '\\' '\n' < $R/regs.err | grep -A3 -E "entry function 'dlca_(backward|backward_perc|forward_tile)'" | grep -E "entry|Used" | sed 's/ptxas info *: //' | paste -sd' '
echo "parity checkerboard b128 push $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
tab BWD_PUSH=1 PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p split+push $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
B() { n=$1; shift; tab "$@"
  bench/dlca-bench --preset checkerboard --batch 128,512 --repeats 7 --json $R/$n.json > $R/$n.out 2>&1
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' ') | $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//')"; }
for round in 1 2; do
  B pull-$round BWD_PUSH=0
  B push-$round BWD_PUSH=1
done
cd $OUT && tar czf r.tgz r && rm -rf r
