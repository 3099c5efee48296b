#!/usr/bin/env bash
# GPU call 140 (2026-11-26): (1) what more cells a phase would buy dlca_backward if a cell's row were
# smaller (16-bit activations, fewer stored layers): timing-only probe140.py, PROBE_CPW 3 (the
# shipped row, a check) to 6 cells a unit in the same local memory, b512. (2) BWD_GSUMS 2 against
# the shipped 0 where the split runs few units a group: checkerboard b16 and b64, growth b16 and
# b32, colour b32, checkerboard-async b32.
# BWD_GSUMS was not kept: apply doc/data/v30-h100/bwd-gsums.patch to rerun its rows.
#     bash scripts/gpu/sweep140.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py $ROOT/scripts/gpu/probe140.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes stack frame|[0-9]+ bytes spill stores' | head -3 | paste -sd' '; }
B() { n=$1 p=$2 b=$3; shift 3; tab "$@"; export CUDA_CACHE_DISABLE=1
  DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset $p --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n $p b$b [$*]: $(grep -E "^$p " $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//'); bwd: $(regs $n dlca_backward)"; }
for p in "checkerboard 16" "checkerboard 64" "growth 16" "growth 32" "colour 32" "checkerboard-async 32"; do
  set -- $p; B $1-b$2-ship $1 $2; B $1-b$2-gs2 $1 $2 BWD_GSUMS=2
done
cp lib/cl/cl_trainer.c /tmp/cl_trainer.c
python3 probe140.py lib/cl/cl_trainer.c && make -j16 -s >/dev/null 2>&1 || echo "probe build failed"
for c in 3 4 5 6; do PROBE_CPW=$c B probe-cpw$c checkerboard 512; done
PROBE_CPW=5 B probe-cpw5-gs2 checkerboard 512 BWD_GSUMS=2
cp /tmp/cl_trainer.c lib/cl/cl_trainer.c && make -j16 -s >/dev/null 2>&1
B ship-b512 checkerboard 512
cd $OUT && tar czf r.tgz r && rm -rf r
