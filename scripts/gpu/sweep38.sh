#!/usr/bin/env bash
# GPU call 38 (2026-11-25): colour seeds 1-5 with the packed-bits repair and --evolve (lineages of
# Cartesian genetic programming on the CPU cores, 3 threads per process) after each run of the
# recommended recipe, --restarts 29, five processes sharing the GPU for at most 8 minutes.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
nproc; grep -m1 "model name" /proc/cpuinfo
tools/dlca-train --preset colour --epochs 10 --quiet >/dev/null 2>&1
for s in 1 2 3 4 5; do
  OMP_NUM_THREADS=3 timeout 480 tools/dlca-train --preset colour --seed $s --gumbel 0.5 --keep-best --eval-every 10 \
    --repair 1 --evolve 1500 --restarts 29 --save $R/colour-s$s.json > $R/colour-s$s.out 2> $R/colour-s$s.err &
done
wait
for s in 1 2 3 4 5; do
  echo "s$s: $(grep -o "[0-9]* -> [0-9]* of 768" $R/colour-s$s.out | tr "\n" ",") $(grep -E "right on every|restarts" $R/colour-s$s.err | tail -1)"
  grep -q "right on every fresh grid at run" $R/colour-s$s.err || rm -f $R/colour-s$s.json
done
grep -h "^repair:\|^evolve:" $R/colour-s1.out | head -4
cd $OUT && tar czf r.tgz r && rm -rf r
