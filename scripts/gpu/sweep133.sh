#!/usr/bin/env bash
# GPU call 133 (2026-11-26): after the review's refactor (one annotation reader, nwg_perc computed
# once): the caps still land (ptxas' counts), b512, parity checkerboard b128, tests/main cache.
#     bash scripts/gpu/sweep133.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | head -2 | paste -sd' '; }
CUDA_CACHE_DISABLE=1 DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset checkerboard --batch 512 \
  --warmup 2 --repeats 5 > $R/ship.out 2> $R/ship.err
echo "b512: $(grep -E '^checkerboard' $R/ship.out | awk '{print $5 " ms"}'); bwd: $(regs ship dlca_backward); tile: $(regs ship dlca_forward_tile); $(grep -c maxnreg $R/ship.err) cap warnings"
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
timeout 120 tests/main cache > $R/tests-cache.log 2>&1; echo "tests/main cache rc=$?: $(tail -1 $R/tests-cache.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
