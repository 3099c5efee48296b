#!/usr/bin/env bash
# GPU call 63 (2026-11-26): the perception coefficients staged gate-major in local memory
# (stage_perc_coef: a warp's float4 loads consecutive instead of PCG[q] float4s apart) in every
# trainer.cl kernel that runs the perception stacks: all targets, parity, the trainer suite.
#     bash scripts/gpu/sweep63.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7 --json $R/cb.json --markdown $R/perf.md > $R/cb.out 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour,gol --batch 1 --repeats 7 --json $R/other.json --markdown $R/perf.md > $R/other.out 2>&1
grep -hE '^(checkerboard|checkerboard-async|growth|colour|gol) ' $R/cb.out $R/other.out | awk '{print $1, "b" $2, $5 " ms"}' | paste -sd';'
grep -A3 '^checkerboard *512' $R/cb.out | grep -E 'kernels|coef'
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 (split) $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
timeout 200 tests/main trainer relax > $R/tests-main.log 2>&1; echo "tests/main trainer relax rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
