#!/usr/bin/env bash
# Tree: c80454a with doc/data/v13-h200/ufetch.patch applied (v13, reverted after these calls).
# GPU call 68 (2026-11-26): v13, a unit's global inputs (patches, the neighbours' patch gradients)
# loaded during the unit before (UFETCH), against sweep67 (v12) of the same day: every target
# workload, ptxas' registers of the backward kernels at batch 512 (3 groups an SM need <= 168),
# parity on every preset (with the split forced too), the trainer suite.
#     bash scripts/gpu/sweep68.sh
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
grep -A3 '^checkerboard  *512' $R/cb.out | tail -1
DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS=-cl-nv-verbose bench/dlca-bench --preset checkerboard --batch 512 --warmup 1 --repeats 3 > $R/regs.out 2> $R/regs.err
tr '\\' '\n' < $R/regs.err | grep -A3 -E "entry function 'dlca_backward(_perc)?'" | grep -E "entry|Used" | sed 's/ptxas info *: //' | paste -sd' '
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
timeout 200 tests/main trainer > $R/tests-main.log 2>&1; echo "tests/main trainer rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
