#!/usr/bin/env bash
# GPU call 127 (2026-11-26): v28's shipped caps on the other presets at batches that take the split
# (and so the capped dlca_backward), against v27's table in the same call: checkerboard-async b64,
# growth b64, colour b64, gol b1024, checkerboard b2048.
#     bash scripts/gpu/sweep127.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
V27="BWD_MAXNREG=0 PERC_SPLIT_GROUPS_PER_CU=3 PERC_GROUPS_PER_CU=0 TFWD_MAXNREG=0"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for w in "checkerboard-async 64" "growth 64" "colour 64" "gol 1024" "checkerboard 2048"; do
  set -- $w
  tab; bench/dlca-bench --preset $1 --batch $2 --repeats 5 --json $R/$1-$2.json > $R/$1-$2.out 2>&1
  tab $V27; bench/dlca-bench --preset $1 --batch $2 --repeats 5 --json $R/$1-$2-v27.json > $R/$1-$2-v27.out 2>&1
  echo "$1 b$2: v28 $(grep -E "^$1 " $R/$1-$2.out | awk '{print $5}') ms, v27 table $(grep -E "^$1 " $R/$1-$2-v27.out | awk '{print $5}') ms; v28 $(grep -E '^ +coef' $R/$1-$2.out | sed 's/.*forward/forward/; s/, adamw.*//')"
done
tab
cd $OUT && tar czf r.tgz r && rm -rf r
