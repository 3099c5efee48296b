#!/usr/bin/env bash
# GPU call 20 (2026-11-25): BWD_PERSIST with fences only where needed (the waiting threads, and
# thread 0 before a flag): PTX, parity, tests/main trainer, dlca-bench shipped (16) against 0;
# then dlca-train --restarts, seeds 1-5, ten trainings sharing the GPU: checkerboard (recommended
# recipe, <= 10 runs, each saved circuit then on 64x64 for 80 steps), colour (Gumbel 0.5,
# keep-best, <= 6 runs) and growth (keep-best, <= 5 runs).
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
export DLCA_CL_DEVICE=gpu DLCA_CL_CACHE_DIR=/tmp/dcache
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ok=1
for p in checkerboard checkerboard-async growth gol colour; do
  line=$(timeout 60 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1); echo "$p $line"
  case "$line" in *PASS*) ;; *) ok=0;; esac
done
for f in $(find /tmp/dcache -type f); do
  echo "$(basename $f): membar.gl $(grep -a -c 'membar.gl' $f) ld.volatile.global $(grep -a -c 'ld.volatile.global' $f) atom.global.exch $(grep -a -c 'atom.global.exch' $f)"
done | head -6
DLCA_TESTDATA=$PWD/../shared/testdata/reference timeout 120 tests/main trainer > $R/tests-main-gpu.log 2>&1; echo "tests/main trainer rc=$?"; grep -E "Checks" $R/tests-main-gpu.log
cp tuning/default.json $R/p16.json; sed 's/"BWD_PERSIST": 16/"BWD_PERSIST": 0/' $R/p16.json > $R/p0.json
for mode in p0 p16 p0 p16; do
  cp $R/$mode.json tuning/default.json
  bench/dlca-bench --preset checkerboard --batch 1,2,8,32,512 --repeats 7 --json $R/$mode-cb.json --markdown $R/$mode.md >/dev/null 2>&1
  bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 7 --json $R/$mode-oth.json --markdown $R/$mode.md >/dev/null 2>&1
done
for mode in p0 p16; do echo "== $mode"; grep "^| 2026" $R/$mode.md | cut -d'|' -f3,4,8 | paste -sd' ' | sed 's/  */ /g'; done
[ $ok = 1 ] && cp $R/p16.json tuning/default.json || { echo "parity failed: training with BWD_PERSIST 0"; cp $R/p0.json tuning/default.json; }
train() { # name seed timeout options...
  local n=$1 s=$2 to=$3; shift 3
  ( /usr/bin/time -f "wall %e s" timeout $to tools/dlca-train --seed $s --save $R/$n-s$s.json --log $R/$n-s$s.csv \
      "$@" > $R/$n-s$s.out 2> $R/$n-s$s.err ) &
}
for s in 1 2 3 4 5; do
  train cb $s 250 --preset checkerboard --restarts 9 --eval-fresh 100
  train colour $s 250 --preset colour --gumbel 0.5 --keep-best --eval-every 10 --restarts 5
  train growth $s 250 --preset growth --keep-best --eval-every 10 --restarts 4
done
wait
for n in cb colour growth; do for s in 1 2 3 4 5; do
  echo "== $n seed $s: $(grep -cE '^epochs' $R/$n-s$s.out) runs; $(grep -E 'right on every|none of' $R/$n-s$s.err | tr '\n' ' ') $(tail -1 $R/$n-s$s.err)"
  grep -E "^(fresh accuracy|best hard|active)" $R/$n-s$s.out | tail -3 | tr '\n' ';' | cut -c1-400; echo
done; done
for s in 1 2 3 4 5; do
  [ -f $R/cb-s$s.json ] && echo "cb s$s 64x64 x80: $(tools/dlca-eval --preset checkerboard --model $R/cb-s$s.json --fresh 0 --scale 4 2>&1 | tail -3 | tr '\n' ' ')"
done
cd $OUT && tar czf r.tgz r && rm -rf r
