#!/usr/bin/env bash
# GPU call 71 (2026-11-26): v14, dlca_backward_perc's own cells per unit (PERC_SPLIT_UNIT_CELLS;
# 0 = the backward's 3), more cells sharing each unit's barriers and global-load round trips:
# checkerboard b128, b512, b1024 for 0, 5 and 7 (7: the most that 48 KiB holds), two rounds;
# parity with the split forced at 7, and the trainer and tuning suites.
#     bash scripts/gpu/sweep71.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
B() { n=$1; shift; tab "$@"
  bench/dlca-bench --preset checkerboard --batch 128,512,1024 --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2>&1
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5 " ms"}' | paste -sd' '); b512: $(grep -A3 -E '^checkerboard +512' $R/$n.out | grep -oE 'backward(_perc)? [0-9.]+ ms' | paste -sd' ')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  B u0-$round
  B u5-$round PERC_SPLIT_UNIT_CELLS=5
  B u7-$round PERC_SPLIT_UNIT_CELLS=7
done
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0 PERC_SPLIT_UNIT_CELLS=7
for p in checkerboard checkerboard-async growth colour; do echo "split parity, 7 a unit: $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab PERC_SPLIT_UNIT_CELLS=7
echo "parity checkerboard b128, 7 a unit $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
tab
timeout 300 tests/main trainer tuning > $R/tests-main.log 2>&1; echo "tests/main trainer tuning rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
