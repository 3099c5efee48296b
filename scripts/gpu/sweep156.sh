#!/usr/bin/env bash
# GPU call 156 (2026-11-26, eighth session): the final v31 tree (TV 2 and TFWD_WPAIR 1 in the NVIDIA
# entries): sweep152.sh's rows again (ptxas' counts, every target workload, parity, tests/main
# trainer), with the table that ships.
#     bash scripts/gpu/sweep156.sh
exec bash "$(dirname "$0")/sweep152.sh"
