#!/usr/bin/env bash
# GPU call 34 (2026-11-25): the final tree after the review (the tile forward step without its
# scratch argument; dlca-tune's trainer_tile workload): parity where the tile forward runs, the
# trainer suites, dlca-bench at batches 32 and 512, and dlca-tune --quick on trainer_tile.cl.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
for b in 2 8 32; do echo "checkerboard b$b $(timeout 60 tools/dlca-parity --preset checkerboard --batch $b --random 2 2>&1 | tail -1)"; done
echo "checkerboard-async b16 $(timeout 60 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
DLCA_TESTDATA=$PWD/../shared/testdata/reference timeout 300 tests/main trainer relax vectors tuning device iwp > $R/tests-main-gpu.log 2>&1
echo "tests/main rc=$?"; tail -1 $R/tests-main-gpu.log
bench/dlca-bench --preset checkerboard --batch 2,32,512 --repeats 5 --json $R/cb.json --markdown $R/bench.md >/dev/null 2>&1
grep "^| 2026" $R/bench.md | cut -d'|' -f4,8 | paste -sd' ' | sed 's/  */ /g'
DLCA_CL_CACHE_DIR=/tmp/tc timeout 200 bench/dlca-tune --quick --kernel trainer_tile.cl --max-configs 3 --output $R/tune.json 2>&1 | tail -6
cd $OUT && tar czf r.tgz r && rm -rf r
