#!/usr/bin/env bash
# GPU call 112 (2026-11-26): v26, the tile forward's tables staged in local memory (TFWD_STAGE):
# registers, A/B against TFWD_STAGE 0 at b512 (two rounds) and b8/b32/b128, parity on the tile path.
#     bash scripts/gpu/sweep112.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 b=$2; shift 2; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_forward_tile'" | grep -o 'Used [0-9]* registers.*' | head -1)"; }
B s0a 512 TFWD_STAGE=0
B s1a 512 TFWD_STAGE=1
B s0b 512 TFWD_STAGE=0
B s1b 512 TFWD_STAGE=1
for b in 8 32 128; do B s0-$b $b TFWD_STAGE=0; B s1-$b $b TFWD_STAGE=1; done
tab
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity checkerboard b8 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 8 --random 1 2>&1 | tail -1)"
echo "parity checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
