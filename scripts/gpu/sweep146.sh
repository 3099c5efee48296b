#!/usr/bin/env bash
# GPU call 146 (2026-11-26): the ceiling of a two-group pipeline for dlca_backward (each group a
# half of the update layers, their rows and their gate sums, handing a unit's middle activations
# and gradients to the other through global memory), before anyone builds it. Timing only
# (probe146.py on the kernel, probe140.py on the host), b512, BWD_TAIL 0 throughout: the whole
# model, layers 0-4 (with the perception stacks) and layers 5-15 (without), at 3 cells a unit and
# at 6 in the local memory of 3. The handoffs are not counted.
#     bash scripts/gpu/sweep146.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py $ROOT/scripts/gpu/probe140.py $ROOT/scripts/gpu/probe146.py .
cp tuning/default.json /tmp/shipped.json
cp kernels-cl/trainer.cl /tmp/trainer.cl
cp lib/cl/cl_trainer.c /tmp/cl_trainer.c
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes stack frame' | head -2 | paste -sd' '; }
B() { n=$1; shift; export CUDA_CACHE_DISABLE=1
  DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $*" bench/dlca-bench --preset checkerboard --batch 512 \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$* cpw ${PROBE_CPW:-3}]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*backward /backward /; s/, backward_perc.*//'); bwd: $(regs $n dlca_backward)"; }
python3 probe140.py lib/cl/cl_trainer.c && make -j16 -s >/dev/null 2>&1 || echo "probe build failed"
python3 probe146.py kernels-cl/trainer.cl
tab BWD_TAIL=0
for round in 1 2; do
  B full3-$round
  B a3-$round -DPL0=0 -DPL1=5
  B b3-$round -DPL0=5 -DPL1=16 -DPNOPERC=1
  PROBE_CPW=6 B full6-$round
  PROBE_CPW=6 B a6-$round -DPL0=0 -DPL1=5
  PROBE_CPW=6 B b6-$round -DPL0=5 -DPL1=16 -DPNOPERC=1
done
tab
cp /tmp/trainer.cl kernels-cl/trainer.cl; cp /tmp/cl_trainer.c lib/cl/cl_trainer.c && make -j16 -s >/dev/null 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
