#!/usr/bin/env bash
# GPU call 130 (2026-11-26): how much of dlca_forward_tile is bank conflicts between the two
# slices of a warp? Timing-only TPAR 1 (scripts/gpu/tpar.py: each input row takes the reading
# slice's parity); and TFWD_STAGE 0 under the 64-register cap. b512.
#     bash scripts/gpu/sweep130.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
python3 $ROOT/scripts/gpu/tpar.py kernels-cl/trainer_tile.cl || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | head -2 | paste -sd' '; }
B() { n=$1 b=$2 o=$3; shift 3; tab "$@"; export CUDA_CACHE_DISABLE=1
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $o" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$o $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//'); tile: $(regs $n dlca_forward_tile)"; }
B ship 512 ""
B tpar 512 "-DTPAR=1"
B stage0 512 "" TFWD_STAGE=0
B ship2 512 ""
B tpar2 512 "-DTPAR=1"
cd $OUT && tar czf r.tgz r && rm -rf r
