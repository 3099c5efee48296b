#!/usr/bin/env bash
# GPU call 126 (2026-11-26, fifth session): the v28 tree (register caps in the PTX; BWD_MAXNREG 128,
# PERC_SPLIT_GROUPS_PER_CU 2, PERC_GROUPS_PER_CU 3, TFWD_MAXNREG 64 in the NVIDIA entries): every target
# workload; growth and colour at b32 (under the split, so capped) against v27's table; parity on every
# preset with the shipped table and with the split forced, at b128 and on checkerboard-async b16; the
# trainer and relax suites.
#     bash scripts/gpu/sweep126.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
V27="BWD_MAXNREG=0 PERC_SPLIT_GROUPS_PER_CU=3 PERC_GROUPS_PER_CU=0 TFWD_MAXNREG=0"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7 --json $R/cb.json --markdown $R/perf.md > $R/cb.out 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour,gol --batch 1 --repeats 7 --json $R/other.json --markdown $R/perf.md > $R/other.out 2>&1
grep -hE '^(checkerboard|checkerboard-async|growth|colour|gol) ' $R/cb.out $R/other.out | awk '{print $1, "b" $2, $5 " ms"}' | paste -sd';'
grep -A3 -E '^checkerboard +512' $R/cb.out | tail -2
for p in growth colour; do
  bench/dlca-bench --preset $p --batch 32 --repeats 5 > $R/$p-32.out 2>&1
  tab $V27; bench/dlca-bench --preset $p --batch 32 --repeats 5 > $R/$p-32-v27.out 2>&1; tab
  echo "$p b32: v28 $(grep -E "^$p " $R/$p-32.out | awk '{print $5}') ms, v27 table $(grep -E "^$p " $R/$p-32-v27.out | awk '{print $5}') ms"
done
tab $V27; bench/dlca-bench --preset checkerboard --batch 512 --repeats 5 > $R/cb512-v27.out 2>&1; tab
echo "checkerboard b512 with v27's table: $(grep -E '^checkerboard ' $R/cb512-v27.out | awk '{print $5}') ms"
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth gol colour; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
timeout 300 tests/main trainer relax > $R/tests-main.log 2>&1; echo "tests/main trainer relax rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
