#!/usr/bin/env bash
# GPU call 137 (2026-11-26, sixth session): where the split should start (PERC_SPLIT_CELLS, shipped
# 8192; sweep136.sh: 4096 is faster at checkerboard b16 and checkerboard-async b32): each preset where
# its cells a step cross 2048-8192, shipped against 4096 and 2048 (BWD_PERSIST 2 beside 2048, or the
# one-launch pass keeps the split off at checkerboard b8). Then the v29 tree's parity on every preset (shipped table, and
# the split forced, which puts every preset through the push and the aimed order), checkerboard b128
# and checkerboard-async b16.
#     bash scripts/gpu/sweep137.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ms() { grep -E "^$1 " $2 | awk '{print $5}'; }
for pb in checkerboard:8 checkerboard:16 checkerboard-async:16 checkerboard-async:32 growth:8 growth:16 colour:16 colour:32; do
  p=${pb%:*} b=${pb#*:}
  tab; bench/dlca-bench --preset $p --batch $b --repeats 7 > $R/s-$p-$b.out 2>&1
  tab PERC_SPLIT_CELLS=4096; bench/dlca-bench --preset $p --batch $b --repeats 7 > $R/s-$p-$b-4096.out 2>&1
  tab PERC_SPLIT_CELLS=2048 BWD_PERSIST=2; bench/dlca-bench --preset $p --batch $b --repeats 7 > $R/s-$p-$b-2048.out 2>&1
  tab
  echo "$p b$b: shipped $(ms $p $R/s-$p-$b.out), 4096 $(ms $p $R/s-$p-$b-4096.out), 2048+persist2 $(ms $p $R/s-$p-$b-2048.out) ms"
done
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth gol colour; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
cd $OUT && tar czf r.tgz r && rm -rf r
