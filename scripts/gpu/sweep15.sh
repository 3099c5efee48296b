#!/usr/bin/env bash
# GPU call 15 (2026-11-25): the final tree (v7 flush, STAGE_PERC_ROWS macro): parity, tests, a short benchmark.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
for p in checkerboard checkerboard-async growth gol colour; do echo "$p $(tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
DLCA_TESTDATA=$PWD/../shared/testdata/reference timeout 200 tests/main trainer relax tuning > $R/tests-main-gpu.log 2>&1; echo "tests/main rc=$?"; tail -1 $R/tests-main-gpu.log
bench/dlca-bench --preset checkerboard --batch 2,512 --repeats 7 --json $R/cb.json --markdown $R/bench.md >/dev/null 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 7 --json $R/oth.json --markdown $R/bench.md >/dev/null 2>&1
grep "^| 2026" $R/bench.md | cut -d'|' -f3,4,8,9
cd $OUT && tar czf r.tgz r && rm -rf r
