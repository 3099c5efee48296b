#!/usr/bin/env bash
# GPU call 117 (2026-11-26): the staged tile forward's registers: does a compiler-only memory
# barrier after each chunk of gates (-DTFWD_CBAR=1; 2 also after each perception stack) keep the
# next chunk's staged table loads below this chunk's stores, and so the registers down? b512.
#     bash scripts/gpu/sweep117.sh
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
B base 512 ""
B cb1 512 "-DTFWD_CBAR=1"
B cb2 512 "-DTFWD_CBAR=2"
B cb1c1 512 "-DTFWD_CBAR=1" TFWD_CHUNK=1
B cb2c1 512 "-DTFWD_CBAR=2" TFWD_CHUNK=1
B cb2w512 512 "-DTFWD_CBAR=2" TWG=512
B cb2w512c1 512 "-DTFWD_CBAR=2" TWG=512 TFWD_CHUNK=1
B cb2w128 512 "-DTFWD_CBAR=2" TWG=128 TILE_FWD_GROUPS_PER_CU=8
B base2 512 ""
cd $OUT && tar czf r.tgz r && rm -rf r
