#!/usr/bin/env bash
# Tree: b292dd3 with doc/data/v16-h200/bwd-prefetch.patch applied (v16, reverted after these calls).
# GPU call 78 (2026-11-26): BWD_PREFETCH 2 took dlca_backward to 176 registers (2 groups an SM,
# sweep77). Fewer entries loaded into registers a layer ahead (RPF; CPF 0: their coefficients
# prefetched instead) to pay for it: registers and b512 time.
#     bash scripts/gpu/sweep78.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
B() { n=$1 opts=$2; shift 2; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 512 --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$opts $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -oE ' backward [0-9.]+ ms' $R/$n.out | tail -1); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers' | sort -u | paste -sd' ')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B base "" BWD_PREFETCH=0
B r2 "-DRPF=2" BWD_PREFETCH=0
B r2p2 "-DRPF=2" BWD_PREFETCH=2
B r3c0p2 "-DCPF=0" BWD_PREFETCH=2
B r2c0p2 "-DRPF=2 -DCPF=0" BWD_PREFETCH=2
B r1c0p2 "-DRPF=1 -DCPF=0" BWD_PREFETCH=2
B r1c0p0 "-DRPF=1 -DCPF=0" BWD_PREFETCH=0
cd $OUT && tar czf r.tgz r && rm -rf r
