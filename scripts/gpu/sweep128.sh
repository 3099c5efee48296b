#!/usr/bin/env bash
# GPU call 128 (2026-11-26): under v28's 128-register cap, do other switches of dlca_backward cut its
# spills (296 bytes) and time? BWD_TAIL 0, UNROLL 0, BWD_BANKS 0 (bank order off); b512, registers.
#     bash scripts/gpu/sweep128.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | head -2 | paste -sd' '; }
B() { n=$1 b=$2; shift 2; tab "$@"; export CUDA_CACHE_DISABLE=1
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//'); bwd: $(regs $n dlca_backward)"; }
B ship 512
B tail0 512 BWD_TAIL=0
B unroll0 512 UNROLL=0
B banks0 512 BWD_BANKS=0
B ship2 512
cd $OUT && tar czf r.tgz r && rm -rf r
