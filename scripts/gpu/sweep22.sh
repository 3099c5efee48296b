#!/usr/bin/env bash
# GPU call 22 (2026-11-25): growth and colour, the two presets not yet exact (issue 6).
# Phase 1: fine-tune the last saved circuit of each seed of call 20 (.dev/models: colour seeds
# 5001-5005, growth 4001-4005; 11-43 of 768 and 10-37 of 400 wrong) for 1500 epochs at lr 0.006
# with --keep-best: colour straight-through, colour temperature 0.5, growth straight-through.
# Phase 2: colour, Gumbel 0.5, keep-best, --restarts 7 on seeds 11-15 (more of the distribution).
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
M=$OLDPWD/.dev/models; R=$OUT/r; mkdir -p $R
train() { # name timeout options...
  local n=$1 to=$2; shift 2
  ( /usr/bin/time -f "wall %e s" timeout $to tools/dlca-train --save $R/$n.json "$@" > $R/$n.out 2> $R/$n.err ) &
}
for s in 1 2 3 4 5; do
  train colour-st-s$s 150 --preset colour --model $M/colour-s$s.json --straight-through --lr 0.006 --epochs 1500 --keep-best --eval-every 10
  train colour-t05-s$s 150 --preset colour --model $M/colour-s$s.json --temperature 0.5 --lr 0.006 --epochs 1500 --keep-best --eval-every 10
  train growth-st-s$s 150 --preset growth --model $M/growth-s$s.json --straight-through --lr 0.006 --epochs 1500 --keep-best --eval-every 10
done
wait
for n in colour-st colour-t05 growth-st; do for s in 1 2 3 4 5; do
  echo "$n s$s: $(grep -E '^(best hard|fresh accuracy|hard accuracy)' $R/$n-s$s.out | tr '\n' ';' | cut -c1-300) $(tail -1 $R/$n-s$s.err)"
done; done
for s in 11 12 13 14 15; do
  ( /usr/bin/time -f "wall %e s" timeout 170 tools/dlca-train --preset colour --seed $s --gumbel 0.5 --keep-best --eval-every 10 \
      --restarts 7 --save $R/colour-s$s.json > $R/colour-s$s.out 2> $R/colour-s$s.err ) &
done
wait
for s in 11 12 13 14 15; do
  echo "colour s$s: $(grep -cE '^epochs' $R/colour-s$s.out) runs; wrong per run: $(grep -E '^fresh accuracy' $R/colour-s$s.out | sed 's/.*(\([0-9]*\) of.*/\1/' | tr '\n' ' ') $(grep -E 'right on every|none of' $R/colour-s$s.err)"
done
cd $OUT && tar czf r.tgz r && rm -rf r
