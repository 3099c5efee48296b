#!/usr/bin/env bash
# GPU call 134 (2026-11-26): v29, the bank-aware order's aimed search (lib/cl/bank_order.c). Its
# effort BWD_BANKS_EFFORT sets the cycles a warp gather costs (VM's count, checkerboard: 150 1.47,
# 1200 1.17, 4800 1.13; v28's search 1.86). b512 and b128 at each, and BWD_BANKS 0; the host time
# of each run's trainer set-up is in its wall time (the W column).
#     bash scripts/gpu/sweep134.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 b=$2; shift 2; tab "$@"; s0=$(date +%s.%N)
  bench/dlca-bench --preset checkerboard --batch $b --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//'); W $(python3 -c "import time; print(round(time.time() - $s0, 2))") s"; }
bench/dlca-bench --preset checkerboard --batch 512 --warmup 1 --repeats 1 > /dev/null 2>&1  # kernel cache
for round in 1 2; do
  B e1200-$round 512
  B e150-$round 512 BWD_BANKS_EFFORT=150
  B e4800-$round 512 BWD_BANKS_EFFORT=4800
  B nobanks-$round 512 BWD_BANKS=0
done
B e1200-b128 128
B e150-b128 128 BWD_BANKS_EFFORT=150
B e4800-b128 128 BWD_BANKS_EFFORT=4800
cd $OUT && tar czf r.tgz r && rm -rf r
