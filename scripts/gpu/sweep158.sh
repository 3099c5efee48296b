#!/usr/bin/env bash
# GPU call 158 (2026-11-26, ninth session): the final v31 tree (commit 226227a, no kernel change
# since sweep157.sh) asked for as kind nvidia-h200, to measure it on the JAX figures' card where
# one comes (an H100 otherwise): sweep152.sh's rows (ptxas' counts, every target workload, parity,
# tests/main trainer).
#     bash scripts/gpu/sweep158.sh
exec bash "$(dirname "$0")/sweep152.sh"
