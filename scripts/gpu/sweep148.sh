#!/usr/bin/env bash
# GPU call 148 (2026-11-26, the v30 tree: probe148.py patches its trainer_tile.cl): the ceiling of a tile forward specialised to the model's wiring.
# Timing only (probe148.py, results wrong under PROBE_TAB > 0): dlca_forward_tile at checkerboard
# b512 with its tables as they are (0), with conflict-free rows (1), with constant coefficients and
# the real wires (4), with no update-layer tables at all (2), and no perception coefficients either
# (3); 3 also uncapped (TFWD_MAXNREG 0) and at 80 registers, to see what the freed registers buy.
#     bash scripts/gpu/sweep148.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
python3 $ROOT/scripts/gpu/probe148.py kernels-cl/trainer_tile.cl || exit 1
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
B tab1 512 "-DPROBE_TAB=1"
B tab4 512 "-DPROBE_TAB=4"
B tab2 512 "-DPROBE_TAB=2"
B tab3 512 "-DPROBE_TAB=3"
B tab3-nocap 512 "-DPROBE_TAB=3" TFWD_MAXNREG=0
B tab3-80 512 "-DPROBE_TAB=3" TFWD_MAXNREG=80
B ship2 512 ""
B tab3b 512 "-DPROBE_TAB=3"
B ship-b32 32 ""
B tab3-b32 32 "-DPROBE_TAB=3"
grep -h -i "error\|failed" $R/*.out | head -5
cd $OUT && tar czf r.tgz r && rm -rf r
