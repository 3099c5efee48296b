#!/usr/bin/env bash
# GPU call 102 (2026-11-26): v24, BWD_BANKS: the trainer runs the model with each hidden update
# layer's gates in a bank-aware order (lib/cl/bank_order.c; sweep101.sh measured the same idea
# through a relabelled model file: b512 60.0 -> 54.4 ms). BWD_BANKS 0 against 1 at b128 and b512,
# two rounds; parity with the order taken (split forced, every preset; b128); the banks case of
# tests/main trainer (the same bits in both orders) on the GPU.
#     bash scripts/gpu/sweep102.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1; shift; tab "$@"
  bench/dlca-bench --preset checkerboard --batch 128,512 --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2>&1
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' '); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//')"; }
for round in 1 2; do
  B banks0-$round BWD_BANKS=0
  B banks1-$round BWD_BANKS=1
done
tab BWD_BANKS=1
echo "parity checkerboard b128 banks $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
tab BWD_BANKS=1 PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p split+push+banks $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
CK_RUN_CASE=banks timeout 120 tests/main trainer > $R/tests-banks.log 2>&1; echo "tests/main trainer (banks) rc=$?: $(grep -v SKIP $R/tests-banks.log | tail -2 | paste -sd' ')"
cd $OUT && tar czf r.tgz r && rm -rf r
