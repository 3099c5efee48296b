#!/usr/bin/env bash
# GPU call 116 (2026-11-26, fourth session): the v26 tree (the tile forward staged, TWG 256, TFWD_CHUNK 2 in the NVIDIA entries):
# every target workload, parity on every preset with the shipped table and with the split forced, at b128 and on
# the tile path of checkerboard-async (b16), the trainer and relax suites.
#     bash scripts/gpu/sweep116.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7 --json $R/cb.json --markdown $R/perf.md > $R/cb.out 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour,gol --batch 1 --repeats 7 --json $R/other.json --markdown $R/perf.md > $R/other.out 2>&1
grep -hE '^(checkerboard|checkerboard-async|growth|colour|gol) ' $R/cb.out $R/other.out | awk '{print $1, "b" $2, $5 " ms"}' | paste -sd';'
grep -A3 -E '^checkerboard +512' $R/cb.out | tail -2
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth gol colour; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
timeout 400 tests/main trainer relax > $R/tests-main.log 2>&1; echo "tests/main trainer relax rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
