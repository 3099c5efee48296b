#!/usr/bin/env bash
# GPU call 36 (2026-11-25): dlca-train --repair 3 after the recommended colour recipe (Gumbel 0.5,
# keep-best), seeds 207-214, eight trainings sharing the GPU: how often a single run ends exact.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R /tmp/models
tools/dlca-train --preset colour --epochs 10 --quiet >/dev/null 2>&1
for s in $(seq 207 214); do
  timeout 560 tools/dlca-train --preset colour --seed $s --gumbel 0.5 --keep-best --eval-every 10 --repair 3 \
    --save /tmp/models/colour-s$s.json > $R/colour-s$s.out 2> $R/colour-s$s.err &
done
wait
for s in $(seq 207 214); do f=$R/colour-s$s.out
  echo "s$s: $(grep -E '^repair' $f) | $(grep 'repair: pass' $R/colour-s$s.err | sed 's/dlca-train: --repair: //' | tr '\n' ';')"
  grep -q "repair: .* -> 0 of" $f && cp /tmp/models/colour-s$s.json $R/
done
cd $OUT && tar czf r.tgz r && rm -rf r
