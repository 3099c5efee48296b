#!/usr/bin/env bash
# GPU call 142 (2026-11-26): is dlca_backward bound by its table loads from the L2? Each unit of 3
# cells reads every gate's tables (the recompute 24 bytes a gate, the push 32) from the L2: about
# 138 GB an epoch at b512. Timing-only probes of probe139.py, b512, two rounds: L2X (60% more table
# bytes) and COEFW (the coefficients from L1 hits, the wires as they are), against the shipped tree.
#     bash scripts/gpu/sweep142.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/probe139.py .
cp kernels-cl/trainer.cl /tmp/trainer.cl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes stack frame|[0-9]+ bytes spill stores' | head -3 | paste -sd' '; }
B() { n=$1 b=$2; shift 2; export CUDA_CACHE_DISABLE=1
  DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//'); bwd: $(regs $n dlca_backward)"; }
for round in 1 2; do
  B ship-$round 512
  python3 probe139.py L2X kernels-cl/trainer.cl; B l2x-$round 512; cp /tmp/trainer.cl kernels-cl/trainer.cl
  python3 probe139.py COEFW kernels-cl/trainer.cl; B coefw-$round 512; cp /tmp/trainer.cl kernels-cl/trainer.cl
done
cd $OUT && tar czf r.tgz r && rm -rf r
