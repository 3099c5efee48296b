#!/usr/bin/env bash
# GPU call 96 (2026-11-26): v22, BWD_PUSH with the output gradient's slot loop of constant
# trip count (UF of the layer above): A/B against the pull at b512, then where the push phase's
# time goes (scripts/gpu/pushabl.py, timing only: PABL 1 no scatter stores, 2 one slot read,
# 4 a and b read contiguous, 7 all three).
#     bash scripts/gpu/sweep96.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tab BWD_PUSH=1
echo "parity checkerboard b128 push $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
python3 $ROOT/scripts/gpu/pushabl.py kernels-cl/trainer.cl || exit 1
B() { n=$1 opts=$2; shift 2; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 512 \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$opts $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_backward'" | grep -o 'Used [0-9]* registers')"; }
B pull "" BWD_PUSH=0
B push "-DPABL=0" BWD_PUSH=1
B p1 "-DPABL=1" BWD_PUSH=1
B p2 "-DPABL=2" BWD_PUSH=1
B p4 "-DPABL=4" BWD_PUSH=1
B p7 "-DPABL=7" BWD_PUSH=1
cd $OUT && tar czf r.tgz r && rm -rf r
