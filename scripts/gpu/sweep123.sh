#!/usr/bin/env bash
# GPU calls 123-124 (2026-11-26; 123 found the caps unapplied: the 580 driver ends its PTX in two NULs): v28 register caps written into the PTX (.maxnreg, lib/cl/ptx.c):
# dlca_backward at 128 (4 groups an SM instead of 3), with 6 and 4 groups a CU launched;
# dlca_forward_tile at 64 and 80; dlca_backward_perc at 96. b512; registers and spills.
#     bash scripts/gpu/sweep123.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | head -2 | paste -sd' '; }
B() { n=$1 b=$2; shift 2; tab "$@"; export CUDA_CACHE_DISABLE=1
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//')"
  echo "   bwd: $(regs $n dlca_backward); perc: $(regs $n dlca_backward_perc); tile: $(regs $n dlca_forward_tile); $(grep -c 'refused\|without that cap' $R/$n.err) cap warnings"; }
B base 512
B b128 512 BWD_MAXNREG=128
B b128g2 512 BWD_MAXNREG=128 PERC_SPLIT_GROUPS_PER_CU=2
B t64 512 TFWD_MAXNREG=64
B t80 512 TFWD_MAXNREG=80
B p96 512 PERC_MAXNREG=96
B all 512 BWD_MAXNREG=128 PERC_SPLIT_GROUPS_PER_CU=2 TFWD_MAXNREG=64
B base2 512
grep -h -m3 'refused\|without that cap' $R/*.err | head -5
tab BWD_MAXNREG=128 PERC_SPLIT_GROUPS_PER_CU=2 TFWD_MAXNREG=64
echo "parity checkerboard b128 (caps) $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
