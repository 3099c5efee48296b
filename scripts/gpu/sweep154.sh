#!/usr/bin/env bash
# GPU call 154 (2026-11-26): PERC_CFAST 1, dlca_backward_perc's threads running their (channel,
# kernel) pairs channel first, so that a warp reads the staged coefficients of 4 kernels instead of
# 16 (checkerboard; colour: 1 instead of 4), against the shipped 0: checkerboard b512
# two rounds, b128, b32; checkerboard-async b32; colour b32; growth b32 (C K > WG: no change);
# parity with it on the presets where the split runs.
# Not kept: the kernel change is doc/data/v31-h100/sweep154/perc-cfast.patch (apply it to rerun).
#     bash scripts/gpu/sweep154.sh
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
  echo "$n $p b$b [$*]: $(grep -E "^$p " $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*backward /backward /; s/, adamw.*//'); perc: $(regs $n dlca_backward_perc)"; }
B ship checkerboard 512
B cf checkerboard 512 PERC_CFAST=1
B ship2 checkerboard 512
B cf2 checkerboard 512 PERC_CFAST=1
for w in "checkerboard 128" "checkerboard 32" "checkerboard-async 32" "colour 32" "growth 32"; do set -- $w
  B ship-$1-$2 $1 $2; B cf-$1-$2 $1 $2 PERC_CFAST=1; done
unset CUDA_CACHE_DISABLE
tab PERC_CFAST=1
echo "parity cf checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity cf checkerboard-async b32 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 32 --random 1 2>&1 | tail -1)"
for p in colour growth; do echo "parity cf $p b16 $(timeout 120 tools/dlca-parity --preset $p --batch 16 --random 1 2>&1 | tail -1)"; done
tab
cd $OUT && tar czf r.tgz r && rm -rf r
