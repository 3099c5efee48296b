#!/usr/bin/env bash
# GPU call 105 (2026-11-26): v25 candidate, TFWD_INPLACE: the tile forward keeps one row (a layer's
# gates all read, a barrier, then stored over their inputs), so that tiles of 32 cells fit 48 KiB
# (a warp = one slice: conflict-free rows, one table address a warp). TL 32 with TWG 512 and 1024,
# 4 or 5 groups a CU, and TL 16 in place, against the shipped TL 16 / TWG 512, at b8-b512.
#     bash scripts/gpu/sweep105.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1; shift; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS=-cl-nv-verbose bench/dlca-bench --preset checkerboard --batch 8,32,128,512 --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' '); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/ x20, backward .*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_forward_tile'" | grep -o 'Used [0-9]* registers' | tail -1)"; }
B base1
B tl32 TL=32 TFWD_INPLACE=1
B tl32w1024 TL=32 TWG=1024 TFWD_INPLACE=1
B tl32g5 TL=32 TFWD_INPLACE=1 TILE_FWD_GROUPS_PER_CU=5
B tl16in TL=16 TFWD_INPLACE=1 TILE_FWD_GROUPS_PER_CU=6
B base2
for p in checkerboard checkerboard-async growth; do tab TL=32 TFWD_INPLACE=1 TILE_CELLS=1; echo "parity $p TL 32 in place $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
cd $OUT && tar czf r.tgz r && rm -rf r
