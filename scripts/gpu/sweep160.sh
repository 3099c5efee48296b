#!/usr/bin/env bash
# GPU call 160 (2026-11-26, ninth session): sweep159.sh's whole 500-epoch run (--reference-protocol,
# seed 23, the default hard evaluation every 10 epochs) in an order that separates the two caches:
# sweep159's first "warm" run had this library's cache (OpenCL C -> PTX) warm but the driver's own
# (PTX -> SASS, ~/.nv/ComputeCache) cold. Here: both cold; ours warm with the driver's off; both
# warm (twice).
#     bash scripts/gpu/sweep160.sh
set -u
source scripts/gpu/setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
source scripts/gpu/train_run.sh
export DLCA_CL_CACHE_DIR=$(mktemp -d)
export CUDA_CACHE_PATH=$(mktemp -d)
CUDA_CACHE_DISABLE=1 train_run both-cold --log $R/both-cold.csv
CUDA_CACHE_DISABLE=1 train_run ours-warm-driver-off --log $R/ours-warm.csv
train_run ours-warm-driver-cold --log $R/driver-cold.csv
train_run both-warm-1 --log $R/both-warm-1.csv
train_run both-warm-2 --log $R/both-warm-2.csv
du -sh $DLCA_CL_CACHE_DIR $CUDA_CACHE_PATH
cd $OUT && tar czf r.tgz r && rm -rf r
