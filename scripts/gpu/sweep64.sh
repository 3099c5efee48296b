#!/usr/bin/env bash
# GPU call 64 (2026-11-26): with the perception coefficients staged gate-major (sweep63), does the
# split (PERC_SPLIT_CELLS 32768, 3 groups a CU) still win over one backward launch per step?
#     bash scripts/gpu/sweep64.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
B() { n=$1; shift
  bench/dlca-bench --preset checkerboard --batch 128,512,1024 --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' ') | $(grep -o 'backward[_a-z]* [0-9.]* ms x[0-9]*' $R/$n.out | tail -2 | paste -sd' ')"; }
for round in 1 2; do
  tab PERC_SPLIT_CELLS=0; B nosplit-$round
  tab; B split-$round
done
cd $OUT && tar czf r.tgz r && rm -rf r
