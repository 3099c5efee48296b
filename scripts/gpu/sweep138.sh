#!/usr/bin/env bash
# GPU call 138 (2026-11-26, sixth session): the v29 tree's tests on the GPU: tests/main banks (the
# aimed order, its cache), cache and trainer (test_cl_banks: both orders bit for bit).
#     bash scripts/gpu/sweep138.sh
set -u
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 tests/main banks > $R/tests-banks.log 2>&1; echo "tests/main banks rc=$?: $(tail -1 $R/tests-banks.log)"
timeout 120 tests/main cache > $R/tests-cache.log 2>&1; echo "tests/main cache rc=$?: $(tail -1 $R/tests-cache.log)"
timeout 280 tests/main trainer > $R/tests-main.log 2>&1; echo "tests/main trainer rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
