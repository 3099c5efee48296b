#!/usr/bin/env bash
# GPU call 144 (2026-11-26): PERC_SPLIT_CELLS 1024 against the shipped 4096. sweep143.sh found the
# split faster wherever the one-launch backward (BWD_PERSIST 4) is not taken (growth b4 and b8,
# colour b8) and slower where it is (checkerboard b2 and b8, checkerboard-async b4 and b16, growth
# and colour b1-b2): with BWD_PERSIST 4 kept, a low threshold splits only where the one-launch pass
# does not run. The workloads near the boundaries, then parity with the new table.
#     bash scripts/gpu/sweep144.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 p=$2 b=$3; shift 3; tab "$@"
  bench/dlca-bench --preset $p --batch $b --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n $p b$b [$*]: $(grep -E "^$p " $R/$n.out | awk '{print $5 " ms"}')"; }
for w in "growth 3" "growth 4" "growth 8" "colour 3" "colour 4" "colour 8" "checkerboard 8" "checkerboard 12" \
         "checkerboard 14" "checkerboard-async 16" "checkerboard-async 18" "gol 1" "gol 64" "checkerboard 2" "growth 1"; do
  set -- $w; B $1-b$2-ship $1 $2; B $1-b$2-s1024 $1 $2 PERC_SPLIT_CELLS=1024
done
tab PERC_SPLIT_CELLS=1024
for p in growth colour; do echo "parity $p b8 $(timeout 120 tools/dlca-parity --preset $p --batch 8 --random 1 2>&1 | tail -1)"; done
echo "parity growth b4 $(timeout 120 tools/dlca-parity --preset growth --batch 4 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
