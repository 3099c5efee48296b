#!/usr/bin/env bash
# GPU call 90 (2026-11-26): the review's refactor (neighbour_value shared by load_patch,
# unit_patch_value and tile_patch_value; BWD_EARLY without its macros; PERC_BATCH's old loop
# gone; rcoef cleared by clEnqueueFillBuffer): registers and times unchanged? Parity.
#     bash scripts/gpu/sweep90.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS=-cl-nv-verbose bench/dlca-bench --preset checkerboard --batch 2,128,512 --repeats 7 --json $R/cb.json > $R/cb.out 2> $R/cb.err
bench/dlca-bench --preset checkerboard-async,growth,colour,gol --batch 1 --repeats 7 --json $R/other.json > $R/other.out 2>&1
grep -hE '^(checkerboard|checkerboard-async|growth|colour|gol) ' $R/cb.out $R/other.out | awk '{print $1, "b" $2, $5 " ms"}' | paste -sd';'
tr '\\' '\n' < $R/cb.err | grep -A3 -E "entry function 'dlca_(backward|backward_perc|forward_tile)'" | grep -E "entry|Used" | sed 's/ptxas info *: //' | paste -sd' '
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
