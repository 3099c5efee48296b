#!/usr/bin/env bash
# GPU call 118 (2026-11-26): the staged tile forward's tables in the rows' own local allocation
# (scripts/gpu/onebuf.py) against their own argument (v26): registers and b512 at TWG 256 and
# 512, chunks of 2 and all; parity of the probe at b128.
#     bash scripts/gpu/sweep118.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 b=$2 opts=$3; shift 3; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$opts $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, backward.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_forward_tile'" | grep -o 'Used [0-9]* registers' | head -1)"; }
B v26 512 ""
B v26w512 512 "" TWG=512
python3 $ROOT/scripts/gpu/onebuf.py && make -j16 -s >/dev/null 2>&1 || { echo "probe build failed"; exit 1; }
B ob 512 ""
B obw512 512 "" TWG=512
B obw512c0 512 "" TWG=512 TFWD_CHUNK=0
B obc0 512 "" TFWD_CHUNK=0
B obw1024 512 "" TWG=1024 TILE_FWD_GROUPS_PER_CU=2
tab
echo "probe parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
