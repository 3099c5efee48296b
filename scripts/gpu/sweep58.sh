#!/usr/bin/env bash
# GPU call 58 (2026-11-26): does trainer.cl's backward pay for bank conflicts? The checkerboard's
# initial model (dlca-train --epochs 0 --save) against the same model relabelled by
# scripts/relabel-banks.py (the same function, gates reordered so that a warp's gathers of a and b
# cost 1.85 instead of 3.31 local-memory cycles on average), both at batch 512 through
# dlca-bench --model, twice each, alternating. Then parity and the device suites on this GPU.
#     bash scripts/gpu/sweep58.sh      (.dev/cb-init.json and .dev/cb-init-banks.json sent along)
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for rep in 1 2; do
  for m in cb-init cb-init-banks; do
    bench/dlca-bench --preset checkerboard --batch 128,512 --repeats 7 --model $ROOT/.dev/$m.json \
      --json $R/$m-$rep.json --markdown $R/banks.md > $R/$m-$rep.out 2>&1
    echo "$m ($rep): $(grep -E '^checkerboard' $R/$m-$rep.out | awk '{print "b" $2 " " $5 " ms"}' | paste -sd' ')"
    grep -A2 '^checkerboard *512' $R/$m-$rep.out | grep 'device time'
  done
done
for m in cb-init cb-init-banks; do
  tools/dlca-train --preset checkerboard --batch 64 --model $ROOT/.dev/$m.json --reference-protocol --epochs 6 \
    --eval-every 1 --seed 5 --log $R/$m-train.csv --quiet
done
cmp $R/cb-init-train.csv $R/cb-init-banks-train.csv >/dev/null 2>&1 && echo "losses: the same log, byte for byte" \
  || { echo "losses differ:"; paste -d' ' $R/cb-init-train.csv $R/cb-init-banks-train.csv | cut -c1-160; }
for p in checkerboard checkerboard-async growth gol colour; do echo "$p $(timeout 60 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
for b in 8 32; do echo "checkerboard b$b $(timeout 60 tools/dlca-parity --preset checkerboard --batch $b --random 2 2>&1 | tail -1)"; done
DLCA_TESTDATA=$ROOT/../shared/testdata/reference timeout 240 tests/main trainer relax vectors tuning device iwp > $R/tests-main-gpu.log 2>&1
echo "tests/main rc=$?"; tail -1 $R/tests-main-gpu.log
cd $OUT && tar czf r.tgz r && rm -rf r
