#!/usr/bin/env bash
# GPU call 66 (2026-11-26): what the reverse walk of dlca_backward costs at batch 512 (split on,
# the shipped table). Timing-only ablations (scripts/gpu/ablate.py): ABL 64 makes rev_coef's random
# float4 gathers of dcoef one 128-byte line a warp; ABL 128 makes the walk's two local gathers per
# entry (d of the gate, the partner's activation) contiguous; ABL 1 drops the update backward.
#     bash scripts/gpu/sweep66.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
python3 $ROOT/scripts/gpu/ablate.py kernels-cl/trainer.cl || exit 1
B() { n=$1 b=$2 opts=$3
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -oE '(dlca_[a-z_]+) +[0-9.]+ ms' $R/$n.out | paste -sd, ); regs $(grep -A4 "entry function 'dlca_backward'" $R/$n.err | grep -o 'Used [0-9]* registers' | head -1)"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B base 512 "-DABL=0"
B a64 512 "-DABL=64"
B a128 512 "-DABL=128"
B a192 512 "-DABL=192"
B a1 512 "-DABL=1"
B base2 2 "-DABL=0"
B a64-2 2 "-DABL=64"
sed -n '1,60p' $R/base.out
cd $OUT && tar czf r.tgz r && rm -rf r
