#!/usr/bin/env bash
# GPU call 88 (2026-11-26): v21, RECOMP_EARLY: cell_forward (the recompute of dlca_backward, and
# dlca_forward) loads the first update layer's wires and coefficients before the perception
# stacks instead of after them, so that their round trip overlaps the stacks; against
# -DRECOMP_EARLY=0, two rounds, with ptxas' registers of dlca_backward (168 at b512); parity.
#     bash scripts/gpu/sweep88.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
B() { n=$1 opts=$2
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 2,128,512 --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="$opts" bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 9 --json $R/$n-small.json > $R/$n-small.out 2>&1
  echo "$n [$opts]: $(grep -hE '^(checkerboard|checkerboard-async|growth|colour) ' $R/$n.out $R/$n-small.out | awk '{print $1 " b" $2 " " $5}' | paste -sd';'); b512 $(grep -oE ' backward [0-9.]+ ms' $R/$n.out | tail -1); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers' | sort -u | paste -sd' ')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  B old-$round "-DRECOMP_EARLY=0"
  B new-$round ""
done
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
