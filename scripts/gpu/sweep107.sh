#!/usr/bin/env bash
# GPU call 107 (2026-11-26): sweep106.sh again on a clean tree (that call ran on the warm tree of sweep105.sh, with its last table: TL 32 in place and TILE_CELLS 1 in every row). With the push and the bank-aware order (split only), is the split now
# worth taking below b128? BWD_PERSIST 4 with PERC_SPLIT_CELLS 8192 (b32 split) and BWD_PERSIST 1
# with PERC_SPLIT_CELLS 2048 (b8 split) against the shipped 16 / 32768, at b2-b128, two rounds.
#     bash scripts/gpu/sweep107.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1; shift; tab "$@"
  bench/dlca-bench --preset checkerboard --batch 2,8,32,128 --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2>&1
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' ')"; }
for round in 1 2; do
  B shipped-$round
  B s8192-$round BWD_PERSIST=4 PERC_SPLIT_CELLS=8192
  B s2048-$round BWD_PERSIST=1 PERC_SPLIT_CELLS=2048
done
cd $OUT && tar czf r.tgz r && rm -rf r
