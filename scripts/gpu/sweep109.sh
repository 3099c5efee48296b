#!/usr/bin/env bash
# GPU call 109 (2026-11-26): the gate keys (gkey: dlca_coef and dlca_adamw key the Gumbel and
# gradient noise by each gate's model index, so that BWD_BANKS serves the relaxations): parity on
# every preset (shipped table; split forced), the trainer and relax suites (test_cl_banks 0-1),
# and b2, b512 timings against sweep108.sh.
#     bash scripts/gpu/sweep109.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench/dlca-bench --preset checkerboard --batch 2,512 --repeats 7 --json $R/cb.json > $R/cb.out 2>&1
grep -hE '^checkerboard ' $R/cb.out | awk '{print $1, "b" $2, $5 " ms"}' | paste -sd';'
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard growth; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
timeout 400 tests/main trainer relax > $R/tests-main.log 2>&1; echo "tests/main trainer relax rc=$?: $(tail -1 $R/tests-main.log)"
grep "BWD_BANKS" $R/tests-main.log
cd $OUT && tar czf r.tgz r && rm -rf r
