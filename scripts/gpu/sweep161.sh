#!/usr/bin/env bash
# GPU call 161 (2026-11-26, ninth session): sweep160.sh's run on a fresh user's machine as it comes:
# both caches empty and the driver's on (its default), then both warm.
#     bash scripts/gpu/sweep161.sh
set -u
source scripts/gpu/setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
source scripts/gpu/train_run.sh
for round in 1 2; do
  export DLCA_CL_CACHE_DIR=$(mktemp -d)
  export CUDA_CACHE_PATH=$(mktemp -d)
  unset CUDA_CACHE_DISABLE
  train_run first-$round --log $R/first-$round.csv
  train_run warm-$round --log $R/warm-$round.csv
done
cd $OUT && tar czf r.tgz r && rm -rf r
