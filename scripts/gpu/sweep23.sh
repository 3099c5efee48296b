#!/usr/bin/env bash
# GPU call 23 (2026-11-25): parity of the final tree on every preset; then colour (Gumbel 0.5,
# keep-best) with --restarts 19 on seeds 21-30, ten trainings sharing the GPU: how often a run's
# circuit reproduces the image exactly (call 22: best 1 of 768 values wrong in 40 runs).
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
for p in checkerboard checkerboard-async growth gol colour; do echo "$p $(timeout 60 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
for s in 21 22 23 24 25 26 27 28 29 30; do
  ( /usr/bin/time -f "wall %e s" timeout 190 tools/dlca-train --preset colour --seed $s --gumbel 0.5 --keep-best --eval-every 10 \
      --restarts 19 --save $R/colour-s$s.json > $R/colour-s$s.out 2> $R/colour-s$s.err ) &
done
wait
for s in 21 22 23 24 25 26 27 28 29 30; do
  echo "colour s$s: $(grep -cE '^epochs' $R/colour-s$s.out) runs; wrong per run: $(grep -E '^fresh accuracy' $R/colour-s$s.out | sed 's/.*(\([0-9]*\) of.*/\1/' | tr '\n' ' ') $(grep -E 'right on every|none of' $R/colour-s$s.err)"
done
cd $OUT && tar czf r.tgz r && rm -rf r
