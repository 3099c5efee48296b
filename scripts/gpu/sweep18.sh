#!/usr/bin/env bash
# GPU call 18 (2026-11-25): BWD_PERSIST as rounds per step (shipped: 16 on NVIDIA), the status word
# with the loss and the flags cleared by dlca_adamw. PTX: the fences and volatile loads of the
# persistent build; parity on every preset (shipped table); tests/main trainer tuning on the GPU;
# dlca-bench with the shipped table (16), with BWD_PERSIST 0 and with 1024 (always), interleaved.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
export DLCA_CL_DEVICE=gpu DLCA_CL_CACHE_DIR=/tmp/dcache
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cp tuning/default.json $R/p16.json
sed 's/"BWD_PERSIST": 16/"BWD_PERSIST": 0/' $R/p16.json > $R/p0.json
sed 's/"BWD_PERSIST": 16/"BWD_PERSIST": 1024/' $R/p16.json > $R/p1024.json
for p in checkerboard checkerboard-async growth gol colour; do
  echo "$p $(timeout 60 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"
done
for f in $(find /tmp/dcache -type f); do
  echo "$(basename $f): membar.gl $(grep -a -c 'membar.gl' $f) fence.sc/acq_rel $(grep -a -c 'fence\.[a-z]' $f) ld.volatile.global $(grep -a -c 'ld.volatile.global' $f) atom.global.exch $(grep -a -c 'atom.global.exch' $f) PERSIST=1 $(grep -a -c 'PERSIST=1' $f)"
done | head -12
f=$(grep -a -l 'atom.global.exch' $(find /tmp/dcache -type f) | head -1); [ -n "$f" ] && grep -a -n -B3 -A3 'atom.global.exch' $f | head -30
DLCA_TESTDATA=$PWD/../shared/testdata/reference timeout 200 tests/main trainer tuning > $R/tests-main-gpu.log 2>&1; echo "tests/main trainer tuning rc=$?"; grep -E "BWD_PERSIST|Checks" $R/tests-main-gpu.log
for rep in 1 2; do
  for mode in p0 p16 p1024; do
    cp $R/$mode.json tuning/default.json
    bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512 --repeats 7 --json $R/$mode-$rep-cb.json --markdown $R/$mode.md >/dev/null 2>&1
    bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 7 --json $R/$mode-$rep-oth.json --markdown $R/$mode.md >/dev/null 2>&1
    bench/dlca-bench --preset gol --repeats 7 --json $R/$mode-$rep-gol.json --markdown $R/$mode.md >/dev/null 2>&1
  done
done
for mode in p0 p16 p1024; do echo "== $mode"; grep "^| 2026" $R/$mode.md | cut -d'|' -f3,4,8,9 | paste -sd' ' | sed 's/  */ /g'; done
cd $OUT && tar czf r.tgz r && rm -rf r
