#!/usr/bin/env bash
# GPU call 129 (2026-11-26): dlca_backward at WG 256 (WG_NARROW 0: a gate a thread in the 256-wide
# layers, no second slot) under caps: uncapped, 64 registers (4 groups of 256 an SM, as many cells as
# v28's 4 of 128), 80 (3 groups); the perception launch at 3 groups of 256 a CU. b512, registers.
#     bash scripts/gpu/sweep129.sh
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
  echo "$n b$b [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//'); bwd: $(regs $n dlca_backward); perc: $(regs $n dlca_backward_perc)"; }
B ship 512
B w256 512 WG_NARROW=0 BWD_MAXNREG=0 PERC_SPLIT_GROUPS_PER_CU=2 PERC_GROUPS_PER_CU=3
B w256-64 512 WG_NARROW=0 BWD_MAXNREG=64 PERC_SPLIT_GROUPS_PER_CU=4 PERC_GROUPS_PER_CU=3
B w256-80 512 WG_NARROW=0 BWD_MAXNREG=80 PERC_SPLIT_GROUPS_PER_CU=3 PERC_GROUPS_PER_CU=3
B w256-64p6 512 WG_NARROW=0 BWD_MAXNREG=64 PERC_SPLIT_GROUPS_PER_CU=4 PERC_GROUPS_PER_CU=6 PERC_MAXNREG=80
cd $OUT && tar czf r.tgz r && rm -rf r
