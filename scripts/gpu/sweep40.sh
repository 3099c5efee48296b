#!/usr/bin/env bash
# GPU call 40 (2026-11-25): growth seeds 1-4 with --restarts and the packed-bits --repair 2 (4 threads
# each), seeds 1-3 without --evolve, seed 4 with --evolve 800, four chains sharing the GPU for at most
# 8 minutes: does any run reproduce the lizard exactly?
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
tools/dlca-train --preset growth --epochs 10 --quiet >/dev/null 2>&1
for s in 1 2 3 4; do
  ev=""; [ $s = 4 ] && ev="--evolve 800"
  OMP_NUM_THREADS=4 timeout 480 tools/dlca-train --preset growth --seed $s --keep-best --eval-every 10 \
    --repair 2 $ev --restarts 59 --save $R/growth-s$s.json > $R/growth-s$s.out 2> $R/growth-s$s.err &
done
wait
for s in 1 2 3 4; do
  echo "s$s: $(grep -o "[0-9]* -> [0-9]* of 400" $R/growth-s$s.out | tr "\n" ",") $(grep -E "right on every|restarts" $R/growth-s$s.err | tail -1)"
  grep -q "right on every fresh grid at run" $R/growth-s$s.err || rm -f $R/growth-s$s.json
done
grep -h "^repair:\|^evolve:\|^wall" $R/growth-s4.out | head -6
cd $OUT && tar czf r.tgz r && rm -rf r
