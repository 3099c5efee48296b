#!/usr/bin/env bash
# GPU call 135 (2026-11-26): v29's order (the aimed search, BWD_BANKS_EFFORT 1200) makes the push's
# gathers near conflict-free; do dlca_backward's other switches still pay? b512, two rounds:
# BWD_EARLY 0, BWD_TAIL 0, BWD_MAXNREG 0 (uncapped, 3 groups an SM) and 120, CELLS_PER_GROUP 2.
# Then the split presets at b32 against v28's sweep126.sh/127.sh on the same H100 kind.
#     bash scripts/gpu/sweep135.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 p=$2 b=$3; shift 3; tab "$@"
  bench/dlca-bench --preset $p --batch $b --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n $p b$b [$*]: $(grep -E "^$p " $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//')"; }
bench/dlca-bench --preset checkerboard --batch 512 --warmup 1 --repeats 1 > /dev/null 2>&1  # kernel cache, order cache
for round in 1 2; do
  B ship-$round checkerboard 512
  B early0-$round checkerboard 512 BWD_EARLY=0
  B tail0-$round checkerboard 512 BWD_TAIL=0
  B nocap-$round checkerboard 512 BWD_MAXNREG=0
  B cap120-$round checkerboard 512 BWD_MAXNREG=120
  B cpg2-$round checkerboard 512 CELLS_PER_GROUP=2
done
for p in checkerboard growth colour checkerboard-async; do B $p-b32 $p 32; done
B cb-b128 checkerboard 128
cd $OUT && tar czf r.tgz r && rm -rf r
