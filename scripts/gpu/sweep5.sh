#!/usr/bin/env bash
# GPU call 5 (2026-11-23): the merged main (v6 + PACC, IWP, CPU-shaped steps for PoCL): parity and benchmark.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
echo "== parity"
for p in checkerboard checkerboard-async growth gol colour; do echo "$p $(tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
for p in checkerboard growth; do echo "$p iwp $(tools/dlca-parity --preset $p --param iwp --random 2 2>&1 | tail -1)"; done
timeout 240 tests/main trainer relax vectors tuning device iwp > $R/tests-main-gpu.log 2>&1; echo "tests/main rc=$?"; tail -3 $R/tests-main-gpu.log
echo "== bench"
bench/dlca-bench --preset checkerboard --batch 1,2,8,512 --repeats 5 --json $R/cb.json --markdown $R/bench.md >/dev/null 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 5 --json $R/oth.json --markdown $R/bench.md >/dev/null 2>&1
bench/dlca-bench --preset gol --repeats 5 --json $R/gol.json --markdown $R/bench.md >/dev/null 2>&1
grep "^| 2026" $R/bench.md | cut -d'|' -f3,4,8,9,11,12
cd $OUT && tar czf r.tgz r && rm -rf r
