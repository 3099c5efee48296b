#!/usr/bin/env bash
# GPU call 79 (2026-11-26): v17, EARLY: slot 1's wires and reverse entries (sweep76: their L2
# round trips about 6 ms at b512) loaded at the start of each layer's phase instead of where they
# are used; alone, and with fewer slot-0 entries held a layer ahead (RPF, CPF) to pay for the
# registers (3 groups an SM need <= 168). Two rounds; parity where it wins.
#     bash scripts/gpu/sweep79.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
B() { n=$1 opts=$2
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch 128,512 --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n [$opts]: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' '); b512 $(grep -oE ' backward [0-9.]+ ms' $R/$n.out | tail -1); $(tr '\\' '\n' < $R/$n.err | grep -A3 -E "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers' | sort -u | paste -sd' ')"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  B base-$round ""
  B e1-$round "-DEARLY=1"
  B e1r1-$round "-DEARLY=1 -DRPF=1 -DCPF=0"
  B e1r2-$round "-DEARLY=1 -DRPF=2"
done
for o in "-DEARLY=1" "-DEARLY=1 -DRPF=1 -DCPF=0"; do
  echo "parity [$o] b128: $(DLCA_CL_BUILD_OPTIONS="$o" timeout 120 tools/dlca-parity --preset checkerboard --batch 128 --random 1 2>&1 | tail -1)"
  for p in checkerboard growth colour; do echo "parity [$o] $p: $(DLCA_CL_BUILD_OPTIONS="$o" timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
done
cd $OUT && tar czf r.tgz r && rm -rf r
