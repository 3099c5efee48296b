#!/usr/bin/env bash
# GPU call 9 (2026-11-25): stored activations (v7, STORE_ACTS_MIB): parity, tests, and the benchmark
# with the shipped table (STORE_ACTS_MIB 1024) against a user table that turns the store off.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
echo '{"format":"dlca-tuning","version":1,"entries":[{"device":"default","params":{"trainer":{"STORE_ACTS_MIB":0}}}]}' > /tmp/nostore.json
echo "== parity"
for p in checkerboard checkerboard-async growth gol colour; do echo "$p $(tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
timeout 200 tests/main trainer relax vectors tuning > $R/tests-main-gpu.log 2>&1; echo "tests/main rc=$?"; tail -3 $R/tests-main-gpu.log
echo "== bench"
for v in store nostore; do
  [ $v = nostore ] && export DLCA_CL_TUNING=/tmp/nostore.json
  bench/dlca-bench --preset checkerboard --batch 1,2,8,16,32,512 --repeats 7 --json $R/cb-$v.json --markdown $R/bench-$v.md >/dev/null 2>&1
  bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 7 --json $R/oth-$v.json --markdown $R/bench-$v.md >/dev/null 2>&1
  bench/dlca-bench --preset gol --repeats 7 --json $R/gol-$v.json --markdown $R/bench-$v.md >/dev/null 2>&1
  echo "-- $v"; grep "^| 2026" $R/bench-$v.md | cut -d'|' -f3,4,8,10,11
done
unset DLCA_CL_TUNING
# second pass of the store build, to see the spread between passes
bench/dlca-bench --preset checkerboard --batch 2 --repeats 7 --json $R/cb-store2.json >/dev/null 2>&1
bench/dlca-bench --preset checkerboard-async,growth --batch 1 --repeats 7 --json $R/oth-store2.json --markdown $R/bench-store2.md >/dev/null 2>&1
grep "^| 2026" $R/bench-store2.md | cut -d'|' -f3,4,8,10,11
cd $OUT && tar czf r.tgz r && rm -rf r
