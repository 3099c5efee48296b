#!/usr/bin/env bash
# GPU call 136 (2026-11-26, sixth session): the v29 tree (the aimed bank-order search, BWD_BANKS_EFFORT
# 1200, the order cached on disk): every target workload (the two commands of doc/performance.md);
# the split from 4096 cells a step (PERC_SPLIT_CELLS, shipped 8192) at checkerboard b16 and
# checkerboard-async b32; the host time the order cache saves (a b512 run with orders/ emptied, then
# again).
#     bash scripts/gpu/sweep136.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7 --json $R/cb.json --markdown $R/perf.md > $R/cb.out 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour,gol --batch 1 --repeats 7 --json $R/other.json --markdown $R/perf.md > $R/other.out 2>&1
grep -hE '^(checkerboard|checkerboard-async|growth|colour|gol) ' $R/cb.out $R/other.out | awk '{print $1, "b" $2, $5 " ms"}' | paste -sd';'
grep -A3 -E '^checkerboard +512' $R/cb.out | tail -2
for pb in checkerboard:16 checkerboard-async:32; do p=${pb%:*} b=${pb#*:}
  bench/dlca-bench --preset $p --batch $b --repeats 7 > $R/$p-$b.out 2>&1
  tab PERC_SPLIT_CELLS=4096; bench/dlca-bench --preset $p --batch $b --repeats 7 > $R/$p-$b-s4096.out 2>&1; tab
  echo "$p b$b: shipped $(grep -E "^$p " $R/$p-$b.out | awk '{print $5}') ms, split from 4096 cells $(grep -E "^$p " $R/$p-$b-s4096.out | awk '{print $5}') ms"
done
cdir=$(tools/dlca-info --cache-dir 2>/dev/null | tail -1)
for k in cold warm; do
  [ $k = cold ] && rm -rf "$cdir/orders"
  s0=$(date +%s.%N); bench/dlca-bench --preset checkerboard --batch 512 --warmup 1 --repeats 1 > $R/order-$k.out 2>&1
  echo "order cache $k: b512 run $(python3 -c "import time; print(round(time.time() - $s0, 2))") s wall; $(ls "$cdir/orders" 2>/dev/null | wc -l) entries"
done
cd $OUT && tar czf r.tgz r && rm -rf r
