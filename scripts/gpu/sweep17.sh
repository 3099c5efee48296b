#!/usr/bin/env bash
# GPU call 17 (2026-11-25): the one-launch backward pass (trainer.cl BWD_PERSIST).
# The cached NVIDIA binary (PTX) is searched for the global fences; parity on
# every preset with BWD_PERSIST 1; tests/main trainer (the persist cases run on
# the GPU); then dlca-bench A/B: the shipped table (BWD_PERSIST 0) against the
# same table with BWD_PERSIST 1 on the NVIDIA entries, twice each, interleaved.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
export DLCA_CL_DEVICE=gpu DLCA_CL_CACHE_DIR=/tmp/dcache
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# the A/B swaps the shipped table of this uninstalled build (DLCA_SRCDIR/tuning/default.json)
cp tuning/default.json $R/base.json
sed 's/"WG_NARROW": 128/"WG_NARROW": 128, "BWD_PERSIST": 1/' tuning/default.json > $R/persist.json
grep -c BWD_PERSIST $R/persist.json
cp $R/persist.json tuning/default.json
for p in checkerboard checkerboard-async growth gol colour; do
  echo "persist $p $(timeout 60 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"
done
for f in /tmp/dcache/*; do
  n1=$(grep -a -c 'membar.gl' "$f"); n2=$(grep -a -c 'fence\.' "$f"); n3=$(grep -a -c 'ld.volatile.global' "$f"); n4=$(grep -a -c 'PERSIST\|atom.global.exch' "$f")
  echo "cache $(basename $f): membar.gl $n1, fence. $n2, ld.volatile.global $n3, atom.exch $n4"
done 2>/dev/null | head -20
cp $R/base.json tuning/default.json
DLCA_TESTDATA=$PWD/../shared/testdata/reference timeout 150 tests/main trainer > $R/tests-main-gpu.log 2>&1; echo "tests/main trainer rc=$?"; grep -E "BWD_PERSIST|Checks" $R/tests-main-gpu.log
for rep in 1 2; do
  for mode in base persist; do
    cp $R/$mode.json tuning/default.json
    bench/dlca-bench --preset checkerboard --batch 1,2,8,512 --repeats 7 --json $R/$mode-$rep-cb.json --markdown $R/$mode.md >/dev/null 2>&1
    bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 7 --json $R/$mode-$rep-oth.json --markdown $R/$mode.md >/dev/null 2>&1
    bench/dlca-bench --preset gol --repeats 7 --json $R/$mode-$rep-gol.json --markdown $R/$mode.md >/dev/null 2>&1
  done
done
for mode in base persist; do echo "== $mode"; grep "^| 2026" $R/$mode.md | cut -d'|' -f3,4,8,9; done
cd $OUT && tar czf r.tgz r && rm -rf r
