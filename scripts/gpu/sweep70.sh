#!/usr/bin/env bash
# Tree: c80454a with doc/data/v13-h200/ufetch.patch applied (v13, reverted after these calls).
# GPU call 70 (2026-11-26): does NVIDIA's OpenCL honour "-cl-nv-maxrregcount N" written with a
# space, as cl_nv_compiler_options spells it (sweep59 wrote "=N", which it ignores)? If so, cap
# v13's prefetch builds at 168 registers (3 groups an SM; sweep69: 246-255 without a cap).
#     bash scripts/gpu/sweep70.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
B() { n=$1 b=$2 opts=$3
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E '^ +coef' $R/$n.out | grep -oE 'backward(_perc)? [0-9.]+ ms' | paste -sd' '); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | paste -sd' ')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B off-r128 512 "-DUFETCH=0 -cl-nv-maxrregcount 128"
B at0-r168 512 "-DFETCH_AT=0 -cl-nv-maxrregcount 168"
B atm1-r168 512 "-DFETCH_AT=-1 -cl-nv-maxrregcount 168"
B at0-r168eq 512 "-DFETCH_AT=0 -cl-nv-maxrregcount=168"
grep -h -A3 "Build log" $R/*.out | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
