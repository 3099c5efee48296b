#!/usr/bin/env bash
# GPU call 139 (2026-11-26): where dlca_backward's 1,100 cycles a layer phase go. Its 96 gate sums a
# thread (24 slots x 4) live across units in 128 registers, with a 144-byte stack of spills that
# 4 groups x 128 threads an SM cannot keep in the L1 beside 192 KB of local memory. b512, two rounds:
# BWD_GSUMS 1 (slot 1's sums in the group's slot of `partial`, read with the phase's tables) and 2
# (every slot's) against the shipped 0; timing-only probes (probe139.py): NOACC (no sums at all),
# NOBAR (no barrier between the pushed layers) and NORECOMP (no recompute). ptxas' registers and spills of each.
# BWD_GSUMS was not kept: apply doc/data/v30-h100/bwd-gsums.patch to rerun its rows.
#     bash scripts/gpu/sweep139.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py $ROOT/scripts/gpu/probe139.py .
cp tuning/default.json /tmp/shipped.json
cp kernels-cl/trainer.cl /tmp/trainer.cl
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes stack frame|[0-9]+ bytes spill stores' | head -3 | paste -sd' '; }
B() { n=$1 b=$2; shift 2; tab "$@"; export CUDA_CACHE_DISABLE=1
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//'); bwd: $(regs $n dlca_backward)"; }
for round in 1 2; do
  B ship-$round 512
  B gs1-$round 512 BWD_GSUMS=1
  B gs2-$round 512 BWD_GSUMS=2
done
B gs2-b128 128 BWD_GSUMS=2
B ship-b128 128
B gs2-b32 32 BWD_GSUMS=2
B ship-b32 32
python3 probe139.py NOACC kernels-cl/trainer.cl; B noacc 512; cp /tmp/trainer.cl kernels-cl/trainer.cl
python3 probe139.py NOBAR kernels-cl/trainer.cl; B nobar 512; cp /tmp/trainer.cl kernels-cl/trainer.cl
python3 probe139.py NORECOMP kernels-cl/trainer.cl; B norecomp 512; cp /tmp/trainer.cl kernels-cl/trainer.cl
tab BWD_GSUMS=2
echo "parity gs2 checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
