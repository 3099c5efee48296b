#!/usr/bin/env bash
# GPU call 111 (2026-11-26, fourth session): where the v25 tree's b512 epoch waits, by timing-only
# switches (scripts/gpu/tabl.py): the tables' footprint (1 the recompute's, 2 the push's, 4 the tile
# forward's, each read inside a 64-gate window: L1 hits), the small layers 10-15 (8 in
# dlca_backward, 16 in the tile forward) and the tile forward's perception stacks (32); and the
# SM clock during a run.
#     bash scripts/gpu/sweep111.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
python3 $ROOT/scripts/gpu/tabl.py kernels-cl/trainer.cl kernels-cl/trainer_tile.cl || exit 1
B() { n=$1 opts=$2
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 512 \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_backward'" | grep -o 'Used [0-9]* registers')"; }
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader -lms 250 > $R/clocks.csv &
SMI=$!
B base "-DTABL=0"
kill $SMI
B t1 "-DTABL=1"
B t2 "-DTABL=2"
B t3 "-DTABL=3"
B t8 "-DTABL=8"
B t4 "-DTABL=4"
B t16 "-DTABL=16"
B t32 "-DTABL=32"
B t52 "-DTABL=52"
B base2 "-DTABL=0"
sort $R/clocks.csv | uniq -c | sort -rn | head -5
cd $OUT && tar czf r.tgz r && rm -rf r
