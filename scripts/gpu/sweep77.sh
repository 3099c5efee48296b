#!/usr/bin/env bash
# Tree: b292dd3 with doc/data/v16-h200/bwd-prefetch.patch applied (v16, reverted after these calls).
# GPU call 77 (2026-11-26; run twice: the first call found 1, prefetch(), no faster and 2-3 not
# compiling, PF in a comma expression): v16, BWD_PREFETCH: the next update layer's table entries of a
# thread's other slots (sweep76: their L2 round trips cost about 6 ms at b512) prefetched one
# layer ahead without registers: 1 OpenCL prefetch(), 2 PTX prefetch.global.L1, 3 .L2; against 0,
# two rounds, with ptxas' registers (3 groups an SM need <= 168); parity at b128 and the split.
#     bash scripts/gpu/sweep77.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
B() { n=$1; shift; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS=-cl-nv-verbose bench/dlca-bench --preset checkerboard --batch 128,512 --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' '); b512 $(grep -oE ' backward [0-9.]+ ms' $R/$n.out | tail -1); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers' | sort -u | paste -sd' ')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  for v in 0 2 3; do B p$v-$round BWD_PREFETCH=$v; done
done
for v in 2 3; do tab BWD_PREFETCH=$v
  echo "parity BWD_PREFETCH $v b128: $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
  tab BWD_PREFETCH=$v PERC_SPLIT_CELLS=1 BWD_PERSIST=0
  for p in checkerboard growth; do echo "split parity BWD_PREFETCH $v $p: $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
done
cd $OUT && tar czf r.tgz r && rm -rf r
