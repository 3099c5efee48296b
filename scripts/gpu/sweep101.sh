#!/usr/bin/env bash
# GPU call 101 (2026-11-26): (1) the full trainer and relax suites on the GPU with the final tree
# (sweep100.sh's build had test_cl_random narrowed to case 12); (2) what a bank-aware order of each
# layer's gates is worth to the push backward: the checkerboard's initial model against the same
# model relabelled by scripts/relabel-banks.py (as sweep58.sh did for the pull), b128 and b512
# through dlca-bench --model, two rounds, alternating.
#     bash scripts/gpu/sweep101.sh      (.dev/cb-init.json and .dev/cb-init-banks.json sent along)
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 tests/main trainer relax > $R/tests-main.log 2>&1; echo "tests/main trainer relax rc=$?: $(tail -1 $R/tests-main.log)"
grep -E "BWD_PUSH" $R/tests-main.log | cut -c1-160
for rep in 1 2; do
  for m in cb-init cb-init-banks; do
    bench/dlca-bench --preset checkerboard --batch 128,512 --repeats 7 --model $ROOT/.dev/$m.json \
      --json $R/$m-$rep.json > $R/$m-$rep.out 2>&1
    echo "$m ($rep): $(grep -E '^checkerboard' $R/$m-$rep.out | awk '{print "b" $2 " " $5 " ms"}' | paste -sd' '); $(grep -E '^ +coef' $R/$m-$rep.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, adamw.*//')"
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
