#!/usr/bin/env bash
# GPU call 98 (2026-11-26): after v22 (BWD_PUSH) and v23 (TFWD_LOADS_FIRST), are the neighbouring
# tunables still right at b512? BWD_EARLY 0, TFWD_UNROLL 2, TL 16, TILE_FWD_GROUPS_PER_CU 2 and 8,
# PERC_SPLIT_GROUPS_PER_CU 2, against the shipped table (first and last).
#     bash scripts/gpu/sweep98.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 opts=$2; shift 2; tab "$@"
  DLCA_CL_BUILD_OPTIONS="$opts" bench/dlca-bench --preset checkerboard --batch 512 --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2>&1
  echo "$n [$opts $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//')"; }
B base1 ""
B early0 "-DBWD_EARLY=0"
B unroll2 "" TFWD_UNROLL=2
B tl16 "" TL=16
B fwd2 "" TILE_FWD_GROUPS_PER_CU=2
B fwd8 "" TILE_FWD_GROUPS_PER_CU=8
B psg2 "" PERC_SPLIT_GROUPS_PER_CU=2
B base2 ""
cd $OUT && tar czf r.tgz r && rm -rf r
