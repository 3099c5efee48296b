#!/usr/bin/env bash
# GPU call 61 (2026-11-26): PSPLIT with its own groups per compute unit (PERC_SPLIT_GROUPS_PER_CU),
# against the shipped table at batches 128, 512 and 1024; dlca_backward_perc's cells unrolled
# (-DPUNROLL=1); 2 and 4 groups; the small batches under the candidate table; parity with the
# split forced on every preset.
#     bash scripts/gpu/sweep61.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1; shift
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose ${XOPT:-}" bench/dlca-bench --preset checkerboard \
    --batch ${BATCH:-128,512,1024} --warmup 2 --repeats 5 --json $R/$n.json "$@" > $R/$n.out 2> $R/$n.err
  echo "$n: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' ') | $(grep -o 'backward[_a-z]* [0-9.]* ms x[0-9]*' $R/$n.out | tail -2 | paste -sd' ') | $(grep -A4 "entry function 'dlca_backward_perc'" $R/$n.err | grep -o 'Used [0-9]* registers' | head -1)"; }
S="PERC_SPLIT_CELLS=32768"
tab;                                    B shipped
tab $S PERC_SPLIT_GROUPS_PER_CU=3;      B split3
tab $S PERC_SPLIT_GROUPS_PER_CU=3;      XOPT=-DPUNROLL=1 B split3-unroll
tab $S PERC_SPLIT_GROUPS_PER_CU=2;      BATCH=512 B split2
tab $S PERC_SPLIT_GROUPS_PER_CU=4;      BATCH=512 B split4
tab $S PERC_SPLIT_GROUPS_PER_CU=3;      BATCH=1,2,8,32 B split3-small
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0 PERC_SPLIT_GROUPS_PER_CU=3
for p in checkerboard checkerboard-async growth gol colour; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
cd $OUT && tar czf r.tgz r && rm -rf r
