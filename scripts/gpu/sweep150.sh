#!/usr/bin/env bash
# GPU call 150 (2026-11-26): v31 TV 2, two adjacent cells a lane of dlca_forward_tile (one read of a
# gate's staged tables and 8-byte row reads for both), against the shipped TV 1: checkerboard b512
# with TFWD_CHUNK 1 / 2 (shipped) / 4 / 0, TWG 128 / 512, TFWD_MAXNREG 80 / 0, TL 8; then b128,
# b32, b8, growth and colour b8 and b32; parity with TV 2 on the presets the tile forward runs.
#     bash scripts/gpu/sweep150.sh
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
B tv2 checkerboard 512 TV=2
B tv2c1 checkerboard 512 TV=2 TFWD_CHUNK=1
B tv2c4 checkerboard 512 TV=2 TFWD_CHUNK=4
B tv2c0 checkerboard 512 TV=2 TFWD_CHUNK=0
B tv2w128 checkerboard 512 TV=2 TWG=128
B tv2w512 checkerboard 512 TV=2 TWG=512
B tv2r80 checkerboard 512 TV=2 TFWD_MAXNREG=80
B tv2r0 checkerboard 512 TV=2 TFWD_MAXNREG=0
B tv2tl8 checkerboard 512 TV=2 TL=8 TILE_FWD_GROUPS_PER_CU=8
B ship2 checkerboard 512
B tv2b checkerboard 512 TV=2
for w in "checkerboard 128" "checkerboard 32" "checkerboard 8" "growth 8" "growth 32" "colour 8" "colour 32"; do set -- $w
  B ship-$1-$2 $1 $2; B tv2-$1-$2 $1 $2 TV=2; done
unset CUDA_CACHE_DISABLE
tab TV=2
echo "parity tv2 checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity tv2 checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
for p in growth colour; do echo "parity tv2 $p b8 $(timeout 120 tools/dlca-parity --preset $p --batch 8 --random 1 2>&1 | tail -1)"; done
tab
cd $OUT && tar czf r.tgz r && rm -rf r
