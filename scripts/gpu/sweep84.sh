#!/usr/bin/env bash
# (PERC_BATCH 0, the loops before v19, is 1 since the review after this session; 0 no longer builds.)
# GPU call 84 (2026-11-26): v19, PERC_BATCH: dlca_backward_perc's unit-start loads (7 patches
# and 7 update-input gradients, 19 a thread) issued 4 (or 8) at a time before their stores,
# against 0 (a load and its store at a time, the v18 code), two rounds at b128, b512, b1024, with
# ptxas' registers of dlca_backward_perc; parity with the split forced.
#     bash scripts/gpu/sweep84.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
B() { n=$1 opts=$2
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 128,512,1024 --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' '); b1024 $(grep -oE 'backward_perc [0-9.]+ ms' $R/$n.out | tail -1); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_backward_perc'" | grep -oE 'Used [0-9]+ registers' | sort -u | paste -sd' ')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  B b0-$round "-DPERC_BATCH=0"
  B b4-$round ""
  B b8-$round "-DPERC_BATCH=8"
done
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth gol colour; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
