#!/usr/bin/env bash
# GPU call 6 (2026-11-23): the final tree: tests/main device suites on the H100.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 && make -j16 -s tests/main >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
timeout 300 tests/main trainer relax vectors tuning device iwp > $OUT/tests-main-h100-final.log 2>&1; echo "tests/main rc=$?"; grep -E "Checks|:F:|:E:" $OUT/tests-main-h100-final.log
bench/dlca-bench --preset checkerboard --batch 2 --repeats 10 2>&1 | grep -iE "ms/epoch|median" | head -3
