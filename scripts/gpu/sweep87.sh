#!/usr/bin/env bash
# Tree: a7f8f64 with TPATCH_BATCH in trainer_tile.cl and PATCH_FIRST up to 8 (the committed v20 keeps 4).
# GPU call 87 (2026-11-26): v20, the loads-before-stores rule in two more places: the tile forward
# step's patch (TPATCH_BATCH, default all of a thread's up to 16; 1 = a load and its store at a
# time, as before) and dlca_backward's PATCH_FIRST up to 8 values a thread (growth's units; it
# was 4). Against -DTPATCH_BATCH=1 and -DPATCH_FIRST=0, two rounds; parity.
#     bash scripts/gpu/sweep87.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
B() { n=$1 opts=$2
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="$opts" bench/dlca-bench --preset checkerboard --batch 8,128,512 --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2>&1
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="$opts" bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 9 --json $R/$n-small.json > $R/$n-small.out 2>&1
  echo "$n [$opts]: $(grep -hE '^(checkerboard|checkerboard-async|growth|colour) ' $R/$n.out $R/$n-small.out | awk '{print $1 " b" $2 " " $5}' | paste -sd';'); b512 $(grep -oE 'forward_tile [0-9.]+ ms' $R/$n.out | tail -1)"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  B new-$round ""
  B tb1-$round "-DTPATCH_BATCH=1"
  B pf0-$round "-DPATCH_FIRST=0"
done
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
for b in 8 128; do echo "parity checkerboard b$b $(timeout 120 tools/dlca-parity --preset checkerboard --batch $b --random 1 2>&1 | tail -1)"; done
cd $OUT && tar czf r.tgz r && rm -rf r
