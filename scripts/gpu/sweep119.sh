#!/usr/bin/env bash
# GPU call 119 (2026-11-26): the v26 tree after its review (the gate loop's staged and global reads
# in one if/else, TFWD_STAGE_PERC gone): registers, b8/b512, TFWD_UNROLL 2, parity on the tile
# path, tests/main trainer.
#     bash scripts/gpu/sweep119.sh
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
  echo "$n b$b [$opts $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, backward.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_forward_tile'" | grep -o 'Used [0-9]* registers' | head -1)"; }
B v26 512 ""
B u2 512 "" TFWD_UNROLL=2
B v26-8 8 ""
tab
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
echo "parity checkerboard-async b16 $(timeout 120 tools/dlca-parity --preset checkerboard-async --batch 16 --random 1 2>&1 | tail -1)"
timeout 300 tests/main trainer > $R/tests-main.log 2>&1; echo "tests/main trainer rc=$?: $(tail -1 $R/tests-main.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
