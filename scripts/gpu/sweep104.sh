#!/usr/bin/env bash
# GPU call 104 (2026-11-26): after v24, (1) BWD_BANKS 2: the order also weighs the push's stores
# (an input read twice by one warp is two slots in one bank), against 1; (2) the backward at WG 256
# (WG_NARROW 0: one gate slot a thread) with 2 or 3 groups a CU under the split, against WG_NARROW
# 128; b128 and b512, registers of dlca_backward.
#     bash scripts/gpu/sweep104.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1; shift; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS=-cl-nv-verbose bench/dlca-bench --preset checkerboard --batch 128,512 --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' '); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_backward'" | grep -o 'Used [0-9]* registers' | tail -1)"; }
B banks1 BWD_BANKS=1
B banks2 BWD_BANKS=2
B wg256g2 WG_NARROW=0 PERC_SPLIT_GROUPS_PER_CU=2
B wg256g3 WG_NARROW=0 PERC_SPLIT_GROUPS_PER_CU=3
B banks2b BWD_BANKS=2
B banks1b BWD_BANKS=1
cd $OUT && tar czf r.tgz r && rm -rf r
