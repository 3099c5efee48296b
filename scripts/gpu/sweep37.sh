#!/usr/bin/env bash
# GPU call 37 (2026-11-25): colour seeds 1-5 with --restarts 29 and --repair 1 after the recommended
# recipe (Gumbel 0.5, keep-best), five processes sharing the GPU for at most 9 minutes: which seeds
# reach an exact circuit in that time, after how many runs.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
tools/dlca-train --preset colour --epochs 10 --quiet >/dev/null 2>&1
for s in 1 2 3 4 5; do
  timeout 540 tools/dlca-train --preset colour --seed $s --gumbel 0.5 --keep-best --eval-every 10 --repair 1 \
    --restarts 29 --save $R/colour-s$s.json > $R/colour-s$s.out 2> $R/colour-s$s.err &
done
wait
for s in 1 2 3 4 5; do
  echo "s$s: $(grep -o "[0-9]* -> [0-9]* of 768" $R/colour-s$s.out | tr "\n" ",") $(grep -E "right on every|restarts" $R/colour-s$s.err | tail -1)"
  grep -q "right on every fresh grid at run" $R/colour-s$s.err || rm -f $R/colour-s$s.json
done
cd $OUT && tar czf r.tgz r && rm -rf r
