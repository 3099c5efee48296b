#!/usr/bin/env bash
# GPU call 59 (2026-11-26): is trainer.cl's backward at batch 512 bound by the cells resident per
# SM? Timing-only ablation (scripts/gpu/ablate.py; ABL 2 skips the perception backward, whose 56
# gate sums per thread are registers) against groups per compute unit and a register cap, with
# ptxas' register count of dlca_backward (dlca-bench prints the build log under
# DLCA_CL_BUILD_OPTIONS; the kernel cache is off so that every variant compiles).
#     bash scripts/gpu/sweep59.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
python3 $ROOT/scripts/gpu/ablate.py kernels-cl/trainer.cl || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
B() { n=$1 opts=$2; shift 2
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 512 \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'), $(grep -o 'backward (loss included) [0-9.]* ms' $R/$n.out | sed 's/(loss included) //'), dlca_backward: $(grep -A4 "entry function 'dlca_backward'" $R/$n.err | grep -o 'Used [0-9]* registers[^\\]*' | head -1) $(grep -A4 "entry function 'dlca_backward'" $R/$n.err | grep -o '[0-9]* bytes spill stores' | head -1)"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tab;                        B base "-DABL=0"
tab BWD_GROUPS_PER_CU=2;    B base-g2 "-DABL=0"
tab BWD_GROUPS_PER_CU=2;    B base-g2-r128 "-DABL=0 -cl-nv-maxrregcount=128"
tab;                        B abl2 "-DABL=2"
tab BWD_GROUPS_PER_CU=2;    B abl2-g2 "-DABL=2"
tab BWD_GROUPS_PER_CU=2;    B abl2-g2-r128 "-DABL=2 -cl-nv-maxrregcount=128"
tab BWD_GROUPS_PER_CU=3;    B abl2-g3-r80 "-DABL=2 -cl-nv-maxrregcount=80"
head -c 3000 $R/base.err
cd $OUT && tar czf r.tgz r && rm -rf r
