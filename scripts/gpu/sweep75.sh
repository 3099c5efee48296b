#!/usr/bin/env bash
# GPU call 75 (2026-11-26): v15, the tile forward step's layer loop unrolled (TFWD_UNROLL 1) and
# its gate loops too (2), against 0 (as before), with ptxas' registers of dlca_forward_tile (4
# groups of 256 an SM need <= 64) and TILE_FWD_GROUPS_PER_CU 2 and 3; the rcoef loads skipped for
# padding entries (this tree) on the small workloads; parity of the tile forward unrolled.
#     bash scripts/gpu/sweep75.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
V() { n=$1; shift; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS=-cl-nv-verbose bench/dlca-bench --preset checkerboard --batch 512 --warmup 2 --repeats 5 > $R/$n.out 2> $R/$n.err
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -oE 'forward_tile [0-9.]+ ms' $R/$n.out); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_forward_tile'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | paste -sd' ')"; }
B() { n=$1; shift; tab "$@"
  bench/dlca-bench --preset checkerboard --batch 8,32,128,512 --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2>&1
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' '); b512 $(grep -oE 'forward_tile [0-9.]+ ms' $R/$n.out | tail -1)"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V v0 TFWD_UNROLL=0
V v1 TFWD_UNROLL=1
V v2 TFWD_UNROLL=2
for round in 1 2; do
  B t0-$round TFWD_UNROLL=0
  B t1-$round TFWD_UNROLL=1
  B t2-$round TFWD_UNROLL=2
done
B t1-g2 TFWD_UNROLL=1 TILE_FWD_GROUPS_PER_CU=2
B t2-g2 TFWD_UNROLL=2 TILE_FWD_GROUPS_PER_CU=2
B t2-g3 TFWD_UNROLL=2 TILE_FWD_GROUPS_PER_CU=3
tab
for round in 1 2; do
  bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 9 > $R/small-$round.out 2>&1
  echo "small round $round: $(grep -E '^(checkerboard-async|growth|colour) ' $R/small-$round.out | awk '{print $1 " " $5}' | paste -sd';')"
done
for u in 1 2; do tab TFWD_UNROLL=$u
  for b in 8 32; do echo "parity TFWD_UNROLL $u b$b: $(timeout 90 tools/dlca-parity --preset checkerboard --batch $b --random 2 2>&1 | tail -1)"; done
done
tab
for p in checkerboard checkerboard-async growth; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
cd $OUT && tar czf r.tgz r && rm -rf r
