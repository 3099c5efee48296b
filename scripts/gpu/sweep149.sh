#!/usr/bin/env bash
# GPU call 149 (2026-11-26): v31 TFWD_PREFETCH, dlca_forward_tile reading the next chunk's staged
# tables (1: the wires; 2: and the coefficients) before this chunk's stores, with TFWD_CHUNK 1 / 2
# (shipped) / 4; checkerboard b512, b32, b8; parity with it at checkerboard b128 and async b16.
#     bash scripts/gpu/sweep149.sh
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
  echo "$n b$b [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, backward .*//'); tile: $(regs $n dlca_forward_tile)"; }
B ship 512
B p1 512 TFWD_PREFETCH=1
B p2 512 TFWD_PREFETCH=2
B c1 512 TFWD_CHUNK=1
B c1p1 512 TFWD_CHUNK=1 TFWD_PREFETCH=1
B c1p2 512 TFWD_CHUNK=1 TFWD_PREFETCH=2
B c4 512 TFWD_CHUNK=4
B c4p1 512 TFWD_CHUNK=4 TFWD_PREFETCH=1
B c4p2 512 TFWD_CHUNK=4 TFWD_PREFETCH=2
B ship2 512
B p1b 512 TFWD_PREFETCH=1
B p2b 512 TFWD_PREFETCH=2
for b in 32 8; do B ship-b$b $b; B p1-b$b $b TFWD_PREFETCH=1; B p2-b$b $b TFWD_PREFETCH=2; done
unset CUDA_CACHE_DISABLE
for v in 1 2; do tab TFWD_PREFETCH=$v
  echo "parity p$v checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
  echo "parity p$v checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"; done
tab
cd $OUT && tar czf r.tgz r && rm -rf r
