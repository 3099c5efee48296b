#!/usr/bin/env bash
# GPU call 147 (2026-11-26): the split's knobs were tuned on the checkerboard (a narrow model, 128-thread
# groups); do the wide models (growth, colour: 256-thread groups, 2 cells a unit) want others? growth
# and colour b8 and b32, and checkerboard b512 for the harm, against the shipped table:
# PERC_SPLIT_GROUPS_PER_CU 1 / 3 (shipped 2), PERC_GROUPS_PER_CU 2 / 4 / 6 (3), PERC_SPLIT_UNIT_CELLS
# 3 / 12 (7).
#     bash scripts/gpu/sweep147.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1; shift; tab "$@"; line="$n [$*]:"
  for w in "growth 8" "growth 32" "colour 8" "colour 32" "checkerboard 512"; do set -- $w
    bench/dlca-bench --preset $1 --batch $2 --warmup 2 --repeats 5 > $R/$n-$1-$2.out 2>&1
    line="$line $1 b$2 $(grep -E "^$1 " $R/$n-$1-$2.out | awk '{print $5}');"; done; echo "$line"; }
B ship
B sg1 PERC_SPLIT_GROUPS_PER_CU=1
B sg3 PERC_SPLIT_GROUPS_PER_CU=3
B pg2 PERC_GROUPS_PER_CU=2
B pg4 PERC_GROUPS_PER_CU=4
B pg6 PERC_GROUPS_PER_CU=6
B pu3 PERC_SPLIT_UNIT_CELLS=3
B pu12 PERC_SPLIT_UNIT_CELLS=12
B ship2
cd $OUT && tar czf r.tgz r && rm -rf r
