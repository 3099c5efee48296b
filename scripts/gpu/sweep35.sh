#!/usr/bin/env bash
# GPU call 35 (2026-11-25): dlca-train --repair 2 (greedy repair of the hard circuit) after the
# recommended colour recipe (Gumbel 0.5, keep-best; seeds 201-206) and the paper's growth protocol
# (keep-best; seeds 1-4), ten trainings sharing the GPU.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R /tmp/models
tools/dlca-train --preset colour --epochs 10 --quiet >/dev/null 2>&1
tools/dlca-train --preset growth --epochs 10 --quiet >/dev/null 2>&1
for s in 201 202 203 204 205 206; do
  timeout 540 tools/dlca-train --preset colour --seed $s --gumbel 0.5 --keep-best --eval-every 10 --repair 2 \
    --save /tmp/models/colour-s$s.json > $R/colour-s$s.out 2> $R/colour-s$s.err &
done
for s in 1 2 3 4; do
  timeout 540 tools/dlca-train --preset growth --seed $s --keep-best --eval-every 50 --repair 2 \
    --save /tmp/models/growth-s$s.json > $R/growth-s$s.out 2> $R/growth-s$s.err &
done
wait
for f in $R/*.out; do echo "$(basename $f): $(grep -E '^(best hard|repair)' $f | tr '\n' ' ') $(grep -c 'repair: pass' ${f%.out}.err) passes logged; $(grep 'repair: pass' ${f%.out}.err | tail -1)"; done
for s in 201 202 203 204 205 206; do grep -q "repair: .* -> 0 of" $R/colour-s$s.out && cp /tmp/models/colour-s$s.json $R/; done
for s in 1 2 3 4; do grep -q "repair: .* -> 0 of" $R/growth-s$s.out && cp /tmp/models/growth-s$s.json $R/; done
cd $OUT && tar czf r.tgz r && rm -rf r
