#!/usr/bin/env bash
# GPU call 113 (2026-11-26): v26's staged tile forward took 100 registers (64 before), one group of
# 512 an SM instead of two; which variant keeps the staging within 64: TFWD_STAGE 0 and 1, the gates
# in chunks of 4 and 2 (-DTFWD_CHUNK), the perception coefficients from global memory
# (-DTFWD_STAGE_PERC=0), the layer loop rolled (TFWD_UNROLL 0), 256 threads. b512, forward only.
#     bash scripts/gpu/sweep113.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 opts=$2; shift 2; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 512 \
    --warmup 2 --repeats 3 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$opts $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, backward.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_forward_tile'" | grep -o 'Used [0-9]* registers' | head -1)"; }
B s0 "" TFWD_STAGE=0
B s1 "" TFWD_STAGE=1
B c4 "-DTFWD_CHUNK=4" TFWD_STAGE=1
B c2 "-DTFWD_CHUNK=2" TFWD_STAGE=1
B c1 "-DTFWD_CHUNK=1" TFWD_STAGE=1
B np "-DTFWD_STAGE_PERC=0" TFWD_STAGE=1
B c4np "-DTFWD_CHUNK=4 -DTFWD_STAGE_PERC=0" TFWD_STAGE=1
B u0 "" TFWD_STAGE=1 TFWD_UNROLL=0
B w256 "" TFWD_STAGE=1 TWG=256
B w256c4 "-DTFWD_CHUNK=4" TFWD_STAGE=1 TWG=256
B s0c4 "-DTFWD_CHUNK=4" TFWD_STAGE=0
cd $OUT && tar czf r.tgz r && rm -rf r
