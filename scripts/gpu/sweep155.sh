#!/usr/bin/env bash
# GPU call 155 (2026-11-26): TFWD_WPAIR 1, dlca_forward_tile reading the staged wires of a slice's
# gates q and q + 1 in one 8-byte local read (TV 2, TFWD_CHUNK 2: 8 gates a slice), against the
# shipped 0: checkerboard b512 two rounds, b128, b32, b8; parity with it on the tile path.
#     bash scripts/gpu/sweep155.sh
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
B wp checkerboard 512 TFWD_WPAIR=1
B ship2 checkerboard 512
B wp2 checkerboard 512 TFWD_WPAIR=1
B wpc4 checkerboard 512 TFWD_WPAIR=1 TFWD_CHUNK=4
for b in 128 32 8; do B ship-$b checkerboard $b; B wp-$b checkerboard $b TFWD_WPAIR=1; done
unset CUDA_CACHE_DISABLE
tab TFWD_WPAIR=1
echo "parity wp checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity wp checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
tab
cd $OUT && tar czf r.tgz r && rm -rf r
