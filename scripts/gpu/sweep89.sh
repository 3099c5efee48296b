#!/usr/bin/env bash
# GPU call 89 (2026-11-26): the table's thresholds after v12-v21: BWD_PERSIST 32 (b128 in one
# launch) and BWD_PERSIST 4 with PERC_SPLIT_CELLS 8192 (b32 split, a launch per step) against
# the shipped entry (16 and 32768), at b8, b32, b128, two rounds.
#     bash scripts/gpu/sweep89.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
B() { n=$1; shift; tab "$@"
  bench/dlca-bench --preset checkerboard --batch 8,32,128 --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2>&1
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' ')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  B shipped-$round
  B p32-$round BWD_PERSIST=32
  B p4s-$round BWD_PERSIST=4 PERC_SPLIT_CELLS=8192
done
cd $OUT && tar czf r.tgz r && rm -rf r
