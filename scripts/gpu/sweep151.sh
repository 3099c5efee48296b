#!/usr/bin/env bash
# GPU call 151 (2026-11-26): sweep150.sh's TV 2 failed on the H100 (CL_OUT_OF_RESOURCES, a kernel
# fault) where PoCL passed: are its 8-byte local accesses misaligned? The rows' buffer is now
# declared float4; TV_SCALAR 1 (a probe) reads and writes the two cells as two 4-byte accesses.
# Then sweep150.sh's rows.
#     bash scripts/gpu/sweep151.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | head -2 | paste -sd' '; }
B() { n=$1 p=$2 b=$3 o=$4; shift 4; tab "$@"; export CUDA_CACHE_DISABLE=1
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $o" bench/dlca-bench --preset $p --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n $p b$b [$o $*]: $(grep -E "^$p " $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, backward .*//'); tile: $(regs $n dlca_forward_tile)"; }
B ship checkerboard 512 ""
B tv2 checkerboard 512 "" TV=2
B tv2s checkerboard 512 "-DTV_SCALAR=1" TV=2
if grep -q FAILED $R/tv2.out; then grep -h 'warm-up epoch' $R/tv2.out | head -1; fi
B tv2c1 checkerboard 512 "" TV=2 TFWD_CHUNK=1
B tv2c4 checkerboard 512 "" TV=2 TFWD_CHUNK=4
B tv2w128 checkerboard 512 "" TV=2 TWG=128
B tv2r80 checkerboard 512 "" TV=2 TFWD_MAXNREG=80
B tv2tl8 checkerboard 512 "" TV=2 TL=8 TILE_FWD_GROUPS_PER_CU=8
B ship2 checkerboard 512 ""
B tv2b checkerboard 512 "" TV=2
for b in 128 32 8; do B ship-$b checkerboard $b ""; B tv2-$b checkerboard $b "" TV=2; done
unset CUDA_CACHE_DISABLE
tab TV=2
echo "parity tv2 checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity tv2 checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
tab
cd $OUT && tar czf r.tgz r && rm -rf r
