#!/usr/bin/env bash
# GPU call 76 (2026-11-26): are dlca_backward's update layers bound by their tables' L2 round
# trips? At batch 512 the tables (wires, rev, rcoef, coef: about 218 KB read per unit) exceed the
# L1 that 3 groups' 143 KB of local memory leave. Timing-only ablations (ablate.py): ABL 256 keeps
# every update-layer table load of the backward in a 64-entry window of its layer (L1 hits); ABL
# 512 sends the second and third slots' loads (not prefetched) to the first slot's addresses.
# The final tree (b292dd3) as the baseline, two rounds.
#     bash scripts/gpu/sweep76.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
python3 $ROOT/scripts/gpu/ablate.py kernels-cl/trainer.cl || exit 1
B() { n=$1 opts=$2
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 512 --warmup 2 --repeats 5 > $R/$n.out 2> $R/$n.err
  echo "$n [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -oE 'backward [0-9.]+ ms' $R/$n.out); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  B a0-$round "-DABL=0"
  B a256-$round "-DABL=256"
  B a512-$round "-DABL=512"
done
cd $OUT && tar czf r.tgz r && rm -rf r
