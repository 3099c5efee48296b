#!/usr/bin/env bash
# GPU call 157 (2026-11-26): after the review (trainer_tile.cl's TV row macros written once for
# float, float2 and float4; bank_order.c's cost bookkeeping simplified, the same order): the shipped
# table at checkerboard b512 and b8 with ptxas' counts, parity on the tile path, tests/main trainer.
#     bash scripts/gpu/sweep157.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
regs() { tr '\\' '\n' < $R/$1.err | grep -A4 "entry function '$2'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | head -2 | paste -sd' '; }
for b in 512 8; do
  CUDA_CACHE_DISABLE=1 DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset checkerboard \
    --batch $b --warmup 2 --repeats 5 > $R/b$b.out 2> $R/b$b.err
  echo "b$b $(grep -E '^checkerboard' $R/b$b.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/b$b.out | tail -1 | sed 's/.*forward/forward/; s/, backward .*//'); tile: $(regs b$b dlca_forward_tile)"
done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
timeout 280 tests/main trainer > $R/tests-main.log 2>&1; echo "tests/main trainer rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
