#!/usr/bin/env bash
# GPU call 44 (2026-11-25): the final tree's colour default end to end (the recipe: Gumbel 0.5,
# keep-best, --repair 1, now with the liveness marks), seeds 3 and 5 with --restarts: the same runs
# as in sweep39/sweep41 should be exact again (seed 3 at run k = 8, seed 5 at k = 0).
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s tools/dlca-train >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
for s in 3 5; do
  OMP_NUM_THREADS=8 timeout 150 tools/dlca-train --preset colour --seed $s --restarts 29 --save $R/colour-s$s.json \
    > $R/colour-s$s.out 2> $R/colour-s$s.err &
done
wait
for s in 3 5; do tail -1 $R/colour-s$s.err; grep "^repair" $R/colour-s$s.out | tail -2; grep "^wall" $R/colour-s$s.out | tail -1; done
cd $OUT && tar czf r.tgz r && rm -rf r
