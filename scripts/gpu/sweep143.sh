#!/usr/bin/env bash
# GPU call 143 (2026-11-26): where does the split (dlca_backward_perc apart, with the push and the
# bank-aware order) beat the shipped one-launch backward at small batches? v29 found growth b8 3.60
# against 4.47 ms, but checkerboard b8 1.65 against 1.38, with the split from 2048 cells: a cell count
# cannot tell them apart. The split forced (PERC_SPLIT_CELLS 1, BWD_PERSIST 0) against the shipped
# table, every preset at the batches below the shipped 4096 cells a step.
#     bash scripts/gpu/sweep143.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 p=$2 b=$3; shift 3; tab "$@"
  bench/dlca-bench --preset $p --batch $b --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n $p b$b [$*]: $(grep -E "^$p " $R/$n.out | awk '{print $5 " ms"}')"; }
for w in "growth 1" "growth 2" "growth 4" "growth 8" "colour 1" "colour 2" "colour 4" "colour 8" \
         "checkerboard 2" "checkerboard 8" "checkerboard-async 4" "checkerboard-async 16" "gol 64" "gol 512"; do
  set -- $w; B $1-b$2-ship $1 $2; B $1-b$2-split $1 $2 PERC_SPLIT_CELLS=1 BWD_PERSIST=0
done
cd $OUT && tar czf r.tgz r && rm -rf r
