#!/usr/bin/env bash
# GPU call 124 (2026-11-26): v28 with dlca_backward_perc's own groups (PERC_GROUPS_PER_CU) and the
# backward's cap only under the split (BWD_NREG): dlca_backward at 128 registers in 4 groups an SM
# while dlca_backward_perc keeps 6 launched a CU; the tile forward at 64; BWD_EARLY 0 under the cap;
# dlca_backward_perc at 128 in 4 groups. b512 two rounds, b128, b32, b8; parity; tests/main trainer.
#     bash scripts/gpu/sweep124.sh
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
  echo "$n b$b [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | tail -1 | sed 's/.*forward/forward/; s/, adamw.*//')"
  echo "   bwd: $(regs $n dlca_backward); perc: $(regs $n dlca_backward_perc); tile: $(regs $n dlca_forward_tile); $(grep -c 'refused\|without that cap' $R/$n.err) cap warnings"; }
CAP="BWD_MAXNREG=128 PERC_SPLIT_GROUPS_PER_CU=2 PERC_GROUPS_PER_CU=3"
B base 512
B cap 512 $CAP
B capt 512 $CAP TFWD_MAXNREG=64
B capt-e0 512 $CAP TFWD_MAXNREG=64 BWD_EARLY=0
B capt-p128 512 BWD_MAXNREG=128 PERC_SPLIT_GROUPS_PER_CU=2 PERC_GROUPS_PER_CU=2 PERC_MAXNREG=128 TFWD_MAXNREG=64
B base2 512
B capt2 512 $CAP TFWD_MAXNREG=64
B base-128 128
B capt-128 128 $CAP TFWD_MAXNREG=64
B base-32 32
B capt-32 32 $CAP TFWD_MAXNREG=64
B base-8 8
B capt-8 8 $CAP TFWD_MAXNREG=64
grep -h -m3 'refused\|without that cap' $R/*.err | head -5
tab $CAP TFWD_MAXNREG=64
echo "parity checkerboard b128 (caps) $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity checkerboard b2 (caps) $(timeout 120 tools/dlca-parity --preset checkerboard --random 2 2>&1 | tail -1)"
timeout 200 tests/main trainer > $R/tests-main.log 2>&1; echo "tests/main trainer (caps) rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
