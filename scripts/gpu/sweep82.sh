#!/usr/bin/env bash
# GPU call 82 (2026-11-26): v18, PATCH_FIRST: dlca_backward issues a unit's patch loads before its
# dL/dstate loads and stores them after, one round trip a unit start instead of two for the warp
# that does both; against -DPATCH_FIRST=0 (the v17 order), two rounds, b128 and b512 and the
# small workloads, with ptxas' registers; parity on every preset and at b128.
#     bash scripts/gpu/sweep82.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
B() { n=$1 opts=$2
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 2,128,512 --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="$opts" bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 9 --json $R/$n-small.json > $R/$n-small.out 2>&1
  echo "$n [$opts]: $(grep -hE '^(checkerboard|checkerboard-async|growth|colour) ' $R/$n.out $R/$n-small.out | awk '{print $1 " b" $2 " " $5}' | paste -sd';'); b512 $(grep -oE ' backward [0-9.]+ ms' $R/$n.out | tail -1); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers' | sort -u | paste -sd' ')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  B old-$round "-DPATCH_FIRST=0"
  B new-$round ""
done
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
