#!/usr/bin/env bash
# GPU call 156 (2026-11-26, eighth session): the final v31 tree (TV 2 and TFWD_WPAIR 1 in the NVIDIA entries;
# sweep152.sh again): ptxas' counts for
# dlca_backward and dlca_forward_tile at b512 (expected: 128 and 64 registers); every target workload
# (the two commands of doc/performance.md) and growth and colour at b4 and b8, with markdown rows;
# parity on every preset, at growth and colour b8 and on the tile path (checkerboard b128, async b16);
# tests/main trainer (its tile cases run TV 2 on the GPU).
#     bash scripts/gpu/sweep156.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
CUDA_CACHE_DISABLE=1 DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset checkerboard --batch 512 \
  --warmup 2 --repeats 5 > $R/regs.out 2> $R/regs.err
echo "b512 $(grep -E '^checkerboard' $R/regs.out | awk '{print $5 " ms"}'); bwd: $(tr '\\' '\n' < $R/regs.err | grep -A4 "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes stack frame' | head -2 | paste -sd' ')"
echo "tile: $(tr '\\' '\n' < $R/regs.err | grep -A4 "entry function 'dlca_forward_tile'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | head -2 | paste -sd' ')"
bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7 --json $R/cb.json --markdown $R/perf.md > $R/cb.out 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour,gol --batch 1 --repeats 7 --json $R/other.json --markdown $R/perf.md > $R/other.out 2>&1
bench/dlca-bench --preset growth,colour --batch 4,8 --repeats 7 --json $R/wide.json --markdown $R/perf.md > $R/wide.out 2>&1
grep -hE '^(checkerboard|checkerboard-async|growth|colour|gol) ' $R/cb.out $R/other.out $R/wide.out | awk '{print $1, "b" $2, $5 " ms"}' | paste -sd';'
grep -A3 -E '^checkerboard +512' $R/cb.out | tail -2
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
for p in growth colour; do echo "parity $p b8 $(timeout 120 tools/dlca-parity --preset $p --batch 8 --random 1 2>&1 | tail -1)"; done
timeout 280 tests/main trainer > $R/tests-main.log 2>&1; echo "tests/main trainer rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
