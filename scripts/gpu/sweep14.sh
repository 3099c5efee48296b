#!/usr/bin/env bash
# GPU call 14 (2026-11-25): dlca-train's recommended checkerboard recipe with --restarts 9 on seeds
# 1-5 (five processes at once), each saved circuit then on a 64x64 grid for 80 steps.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
for s in 1 2 3 4 5; do
  ( /usr/bin/time -f "wall %e s" tools/dlca-train --preset checkerboard --seed $s --restarts 9 --eval-fresh 100 \
      --save $R/cb-s$s.json --log $R/cb-s$s.csv > $R/cb-s$s.out 2> $R/cb-s$s.err ) &
done
wait
for s in 1 2 3 4 5; do
  echo "== seed $s: $(grep -E 'restart|right on every|none of' $R/cb-s$s.err | tr '\n' ' ') $(tail -1 $R/cb-s$s.err)"
  grep -E "^(epochs|fresh|hard loss|active|wall)" $R/cb-s$s.out
  tools/dlca-eval --preset checkerboard --model $R/cb-s$s.json --fresh 4 --scale 4 --json $R/eval-s$s.json > /dev/null 2>&1
  python3 -c "import json; d=json.load(open('$R/eval-s$s.json')); print('64x64:', d.get('pass'), 'active', d.get('active_gates'))"
done
cd $OUT && tar czf r.tgz r && rm -rf r
