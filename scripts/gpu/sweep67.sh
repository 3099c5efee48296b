#!/usr/bin/env bash
# GPU call 67 (2026-11-26): v12, the reverse walk's coefficients in the reverse table's order
# (rcoef, written by dlca_coef), against sweep66's baseline of the same day: every target
# workload, parity on every preset (with the split forced too), and timing-only ablations of the
# rest of dlca_backward at batch 512 (ABL 4: no recompute; ABL 1: no update backward).
#     bash scripts/gpu/sweep67.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7 --json $R/cb.json --markdown $R/perf.md > $R/cb.out 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour,gol --batch 1 --repeats 7 --json $R/other.json --markdown $R/perf.md > $R/other.out 2>&1
grep -hE '^(checkerboard|checkerboard-async|growth|colour|gol) ' $R/cb.out $R/other.out | awk '{print $1, "b" $2, $5 " ms"}' | paste -sd';'
grep -A3 '^checkerboard  *512' $R/cb.out | tail -2
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
python3 $ROOT/scripts/gpu/ablate.py kernels-cl/trainer.cl || exit 1
B() { n=$1 b=$2 opts=$3
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="$opts" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out)"; }
B a0 512 "-DABL=0"
B a4 512 "-DABL=4"
B a1 512 "-DABL=1"
B a5 512 "-DABL=5"
cd $OUT && tar czf r.tgz r && rm -rf r
