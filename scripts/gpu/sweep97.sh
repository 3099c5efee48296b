#!/usr/bin/env bash
# GPU call 97 (2026-11-26): v23, the forward gates' loads before their stores: cell_forward
# (the recompute of dlca_backward, RECOMP_LOADS_FIRST) and tile_forward (dlca_forward_tile,
# TFWD_LOADS_FIRST), each against its old gate-by-gate loop (-D...=0), at b128 and b512 with the
# shipped table (BWD_PUSH 1), two rounds, registers; parity.
#     bash scripts/gpu/sweep97.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 opts=$2
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 128,512 \
    --warmup 2 --repeats 7 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' '); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_(backward|forward_tile)'" | grep -oE "(dlca_[a-z_]*|Used [0-9]* registers)" | paste -sd' ' | head -c 300)"; }
for round in 1 2; do
  B old-$round "-DRECOMP_LOADS_FIRST=0 -DTFWD_LOADS_FIRST=0"
  B rec-$round "-DTFWD_LOADS_FIRST=0"
  B both-$round ""
done
for p in checkerboard checkerboard-async growth gol colour; do echo "parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "parity checkerboard b128 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
cd $OUT && tar czf r.tgz r && rm -rf r
