#!/usr/bin/env bash
# GPU call 122 (2026-11-26): the review of v26-v27 (push_gate serves the group and the tail push; one TAIL_SYNC form): registers, b512, parity.
#     bash scripts/gpu/sweep122.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS=-cl-nv-verbose bench/dlca-bench --preset checkerboard --batch 512 --repeats 5 --json $R/cb.json > $R/cb.out 2> $R/cb.err
echo "b512 $(grep -E '^checkerboard' $R/cb.out | awk '{print $5}') ms; $(tr '\\' '\n' < $R/cb.err | grep -A3 "entry function 'dlca_backward'" | grep -o 'Used [0-9]* registers' | tail -1)"
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity growth $(timeout 90 tools/dlca-parity --preset growth --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
