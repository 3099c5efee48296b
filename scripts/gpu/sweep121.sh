#!/usr/bin/env bash
# GPU call 121 (2026-11-26): v27 BWD_TAIL (the last update layers, 32 gates, in warp 0 with
# bar.warp.sync): registers, b512 two rounds against 0, b128; parity; tests/main trainer.
#     bash scripts/gpu/sweep121.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 b=$2 opts=$3; shift 3; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$opts $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*, backward /backward /; s/, adamw.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_backward'" | grep -o 'Used [0-9]* registers.*' | head -1)"; }
B t0a 512 "" BWD_TAIL=0
B t1a 512 "" BWD_TAIL=1
B t0b 512 "" BWD_TAIL=0
B t1b 512 "" BWD_TAIL=1
B t0-128 128 "" BWD_TAIL=0
B t1-128 128 "" BWD_TAIL=1
tab BWD_TAIL=1
echo "parity checkerboard b128 (tail) $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "split parity growth (tail) $(tab BWD_TAIL=1 PERC_SPLIT_CELLS=1 BWD_PERSIST=0; timeout 90 tools/dlca-parity --preset growth --random 1 2>&1 | tail -1)"
tab BWD_TAIL=1
timeout 200 tests/main trainer > $R/tests-main.log 2>&1; echo "tests/main trainer (tail) rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
