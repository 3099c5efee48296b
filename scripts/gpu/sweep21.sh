#!/usr/bin/env bash
# GPU call 21 (2026-11-25): the final tree. Parity on every preset, the device suites of tests/main,
# dlca-bench with the shipped table (BWD_PERSIST 16) on every target workload, then
# dlca-train --restarts 9 --eval-scale 4 on the checkerboard (recommended recipe), seeds 1-5,
# five trainings sharing the GPU (wall times are upper bounds).
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for p in checkerboard checkerboard-async growth gol colour; do echo "$p $(timeout 60 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
DLCA_TESTDATA=$PWD/../shared/testdata/reference timeout 200 tests/main trainer relax vectors tuning device iwp > $R/tests-main-gpu.log 2>&1
echo "tests/main rc=$?"; tail -1 $R/tests-main-gpu.log
bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7 --json $R/cb.json --markdown $R/bench.md >/dev/null 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 7 --json $R/oth.json --markdown $R/bench.md >/dev/null 2>&1
bench/dlca-bench --preset gol --repeats 7 --json $R/gol.json --markdown $R/bench.md >/dev/null 2>&1
grep "^| 2026" $R/bench.md | cut -d'|' -f3,4,5,8 | paste -sd' ' | sed 's/  */ /g'
for s in 1 2 3 4 5; do
  ( /usr/bin/time -f "wall %e s" timeout 220 tools/dlca-train --preset checkerboard --seed $s --restarts 9 --eval-fresh 100 \
      --eval-scale 4 --save $R/cb-s$s.json > $R/cb-s$s.out 2> $R/cb-s$s.err ) &
done
wait
for s in 1 2 3 4 5; do
  echo "== cb seed $s: $(grep -cE '^epochs' $R/cb-s$s.out) runs; $(grep -E 'right on every|none of' $R/cb-s$s.err | tr '\n' ' ') $(tail -1 $R/cb-s$s.err)"
  grep -E "^(generalisation|fresh accuracy|best hard|active)" $R/cb-s$s.out | tail -4 | tr '\n' ';' | cut -c1-500; echo
done
cd $OUT && rm -f r/cb-s*.json && tar czf r.tgz r && rm -rf r
