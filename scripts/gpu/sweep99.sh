#!/usr/bin/env bash
# GPU call 99 (2026-11-26): the tile forward's shape after v23 (sweep98: TL 16 took dlca_forward_tile
# 13.77 -> 12.82 ms at b512): TL 16 with TWG 256 and 512 and 4, 5 or 8 groups a CU, against the
# shipped TL 8, at b8, b32, b128 and b512 (TILE_CELLS 2048: the tile forward runs from b8 on).
#     bash scripts/gpu/sweep99.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1; shift; tab "$@"
  bench/dlca-bench --preset checkerboard --batch 8,32,128,512 --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2>&1
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' '); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/ x20, backward .*//')"; }
B base1
B tl16 TL=16
B tl16w512 TL=16 TWG=512
B tl16g5 TL=16 TILE_FWD_GROUPS_PER_CU=5
B tl16g8 TL=16 TILE_FWD_GROUPS_PER_CU=8
B tl16w512g5 TL=16 TWG=512 TILE_FWD_GROUPS_PER_CU=5
B base2
cd $OUT && tar czf r.tgz r && rm -rf r
