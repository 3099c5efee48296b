#!/usr/bin/env bash
# GPU call 41 (2026-11-25): dlca-hardbench on the H100 machine (NVIDIA's OpenCL for the device column,
# the 16-core host for the reference and the packed bits), and colour seed 5 alone with the repair
# on all 16 threads: the wall time of one exact circuit.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
for th in 1 16; do
  OMP_NUM_THREADS=$th bench/dlca-hardbench --preset colour,growth,checkerboard,gol --repeats 5 --variants 8192 \
    --json $R/hardbench-t$th.json --markdown $R/hardbench.md
done
tools/dlca-train --preset colour --epochs 10 --quiet >/dev/null 2>&1
OMP_NUM_THREADS=16 tools/dlca-train --preset colour --seed 5 --gumbel 0.5 --keep-best --eval-every 10 --repair 1 \
  --save $R/colour-s5.json > $R/colour-s5.out 2> $R/colour-s5.err
grep "^repair\|^wall\|^hard acc" $R/colour-s5.out
cd $OUT && tar czf r.tgz r && rm -rf r
