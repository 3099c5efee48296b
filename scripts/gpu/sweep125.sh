#!/usr/bin/env bash
# GPU call 125 (2026-11-26): v28 shipped entries (sweep124's caps) against TWG 512 under the tile
# forward's 64-register cap (2 groups of 512 an SM, where TWG 512 uncapped held 1); b512 two rounds,
# b8; TFWD_CHUNK 4 under the cap.
#     bash scripts/gpu/sweep125.sh
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
  echo "$n b$b [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//'); tile: $(regs $n dlca_forward_tile)"; }
B ship 512
B w512 512 TWG=512
B c4 512 TFWD_CHUNK=4
B ship2 512
B w512b 512 TWG=512
B ship-8 8
B w512-8 8 TWG=512
B ship-32 32
B w512-32 32 TWG=512
cd $OUT && tar czf r.tgz r && rm -rf r
