#!/usr/bin/env bash
# Tree: c80454a with doc/data/v13-h200/ufetch.patch applied (v13, reverted after these calls).
# GPU call 69 (2026-11-26): v13's prefetch (UFETCH) cost dlca_backward its 3 groups an SM in
# sweep68 (255 registers, b512 92.2 ms). Where the next unit's loads are issued (FETCH_AT) against
# the registers ptxas gives and the time at batch 512; UFETCH=0 (appended, so it wins) is the
# baseline of the same call.
#     bash scripts/gpu/sweep69.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
B() { n=$1 b=$2 opts=$3
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | grep -oE 'backward(_perc)? [0-9.]+ ms' | paste -sd' '); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B off 512 "-DUFETCH=0"
B at0 512 "-DFETCH_AT=0"
B atm1 512 "-DFETCH_AT=-1"
B at5 512 "-DFETCH_AT=5"
cd $OUT && tar czf r.tgz r && rm -rf r
