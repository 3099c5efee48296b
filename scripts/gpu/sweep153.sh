#!/usr/bin/env bash
# GPU call 153 (2026-11-26): TV 4 (four cells a lane of dlca_forward_tile, 16-byte row accesses, one
# read of a gate's tables for four cells) against the shipped TV 2: checkerboard b512 two rounds,
# TFWD_CHUNK 1 / 4 / 0 with it; b128, b32, b8; parity with TV 4 on the tile path.
#     bash scripts/gpu/sweep153.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | head -2 | paste -sd' '; }
B() { n=$1 p=$2 b=$3; shift 3; tab "$@"; export CUDA_CACHE_DISABLE=1
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset $p --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n $p b$b [$*]: $(grep -E "^$p " $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, backward .*//'); tile: $(regs $n dlca_forward_tile)"; }
B ship checkerboard 512
B tv4 checkerboard 512 TV=4
B tv4c1 checkerboard 512 TV=4 TFWD_CHUNK=1
B tv4c4 checkerboard 512 TV=4 TFWD_CHUNK=4
B tv4c0 checkerboard 512 TV=4 TFWD_CHUNK=0
B tv4w512 checkerboard 512 TV=4 TWG=512
B ship2 checkerboard 512
B tv4b checkerboard 512 TV=4
for b in 128 32 8; do B ship-$b checkerboard $b; B tv4-$b checkerboard $b TV=4; done
unset CUDA_CACHE_DISABLE
tab TV=4
echo "parity tv4 checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity tv4 checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
tab
cd $OUT && tar czf r.tgz r && rm -rf r
