#!/usr/bin/env bash
# GPU call 132 (2026-11-26): the reviewed v28 tree (ptx.c's parsing and range checks, the warning for
# non-PTX binaries): the caps still land (ptxas' counts), b512 and b2, no cap warnings; parity
# (checkerboard b128, growth and colour with the split forced); tests/main cache and trainer.
#     bash scripts/gpu/sweep132.sh
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
  echo "   bwd: $(regs $n dlca_backward); perc: $(regs $n dlca_backward_perc); tile: $(regs $n dlca_forward_tile); $(grep -c 'maxnreg' $R/$n.err) cap warnings"; }
B ship 512
B ship-2 2
unset CUDA_CACHE_DISABLE
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in growth colour; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
timeout 120 tests/main cache > $R/tests-cache.log 2>&1; echo "tests/main cache rc=$?: $(tail -1 $R/tests-cache.log)"
timeout 250 tests/main trainer > $R/tests-main.log 2>&1; echo "tests/main trainer rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
