#!/usr/bin/env bash
# GPU call 120 (2026-11-26): BWD_EARLY 2 (under the push, slot 1's tables loaded at the end of the
# phase before instead of at the start of their own): registers and b512, two rounds against 1;
# parity at b128 with 2.
#     bash scripts/gpu/sweep120.sh
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
  echo "$n b$b [$opts $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*, backward /backward /; s/, adamw.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_backward'" | grep -o 'Used [0-9]* registers' | head -1)"; }
B e1a 512 "" BWD_EARLY=1
B e2a 512 "" BWD_EARLY=2
B e1b 512 "" BWD_EARLY=1
B e2b 512 "" BWD_EARLY=2
B e1-128 128 "" BWD_EARLY=1
B e2-128 128 "" BWD_EARLY=2
tab BWD_EARLY=2
echo "parity checkerboard b128 (BWD_EARLY 2) $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
