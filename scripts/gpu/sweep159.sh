#!/usr/bin/env bash
# GPU call 159 (2026-11-26, ninth session): the spec's last figure to beat, "checkerboard, 500
# epochs: 24.9 s wall (10 s of it compilation)" (JAX, H200), against a whole dlca-train train_run of
# the final tree: the paper's protocol (--reference-protocol, 500 epochs, seed 23 as the spec's
# convergence row), wall time of the process, cold (an empty kernel cache and the driver's own
# cache off: every program JIT-compiled) then warm (the same cache dir again); each with the
# default hard evaluation every 10 epochs and with one at the end only (--eval-every 500).
#     bash scripts/gpu/sweep159.sh
set -u
source scripts/gpu/setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TRAIN_RUN_GREP='epoch +500|final|hard'
source scripts/gpu/train_run.sh
export DLCA_CL_CACHE_DIR=$(mktemp -d)
CUDA_CACHE_DISABLE=1 train_run cold-eval10 --log $R/cold-eval10.csv
train_run warm-eval10 --log $R/warm-eval10.csv
train_run warm-eval500 --eval-every 500 --log $R/warm-eval500.csv
export DLCA_CL_CACHE_DIR=$(mktemp -d)
CUDA_CACHE_DISABLE=1 train_run cold-eval500 --eval-every 500 --log $R/cold-eval500.csv
ls -la $DLCA_CL_CACHE_DIR | head
cd $OUT && tar czf r.tgz r && rm -rf r
