#!/usr/bin/env bash
# GPU call 31 (2026-11-25): the final v9 tree with the shipped table (TILE_CELLS 2048 on NVIDIA).
# Parity on every preset (and the checkerboard at batches 8 and 32, where the tile forward runs),
# the device suites of tests/main, dlca-bench on every target workload, and an A/B of the
# tile forward's groups per compute unit and of the threshold at batch 4.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
cp $OLDPWD/scripts/gpu/settab.py .
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for p in checkerboard checkerboard-async growth gol colour; do echo "$p $(timeout 60 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
for b in 8 32; do echo "checkerboard b$b $(timeout 60 tools/dlca-parity --preset checkerboard --batch $b --random 2 2>&1 | tail -1)"; done
DLCA_TESTDATA=$PWD/../shared/testdata/reference timeout 300 tests/main trainer relax vectors tuning device iwp > $R/tests-main-gpu.log 2>&1
echo "tests/main rc=$?"; tail -1 $R/tests-main-gpu.log
bench/dlca-bench --preset checkerboard --batch 1,2,4,8,32,128,512,1024 --repeats 7 --json $R/cb.json --markdown $R/bench.md > $R/cb.out 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 7 --json $R/oth.json --markdown $R/bench.md >/dev/null 2>&1
bench/dlca-bench --preset gol --repeats 7 --json $R/gol.json --markdown $R/bench.md >/dev/null 2>&1
grep "^| 2026" $R/bench.md | cut -d'|' -f3,4,5,8 | paste -sd' ' | sed 's/  */ /g'
grep -A3 "^checkerboard *512" $R/cb.out | tail -2
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; python3 settab.py "$@"; }
for v in "TILE_CELLS=1024" "TILE_FWD_GROUPS_PER_CU=2" "TILE_FWD_GROUPS_PER_CU=8" "TL=16"; do
  tab $v; bench/dlca-bench --preset checkerboard --batch 4,32,512 --repeats 5 --json $R/ab-${v//=/}.json --markdown $R/ab-${v//=/}.md >/dev/null 2>&1
  echo "$v: $(grep '^| 2026' $R/ab-${v//=/}.md | cut -d'|' -f4,8 | paste -sd' ' | sed 's/  */ /g')"
done
cd $OUT && tar czf r.tgz r && rm -rf r
