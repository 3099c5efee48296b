#!/usr/bin/env bash
# GPU call 32 (2026-11-25): colour recipes around the recommended Gumbel 0.5 (issue 6), seeds
# 101-112, 16 trainings sharing the GPU: the control, Gumbel 0.5 with a cosine lr, Gumbel 1.0, and
# Gumbel 0.5 with a cosine lr over 6000 epochs. Entry: values wrong of the kept best circuit.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
tools/dlca-train --preset colour --epochs 10 --quiet >/dev/null 2>&1   # the kernel cache, once
declare -A REC=([g05]="--gumbel 0.5" [g05cos]="--gumbel 0.5 --lr-schedule cosine" [g10]="--gumbel 1.0" \
                [g05cos6k]="--gumbel 0.5 --lr-schedule cosine --epochs 6000")
run() { for s in "$@"; do for r in g05 g05cos g10 g05cos6k; do
  timeout 400 tools/dlca-train --preset colour --seed $s ${REC[$r]} --keep-best --eval-every 10 \
    --save $R/$r-s$s.json > $R/$r-s$s.out 2> $R/$r-s$s.err; done; done; }
for i in $(seq 0 11); do run $((101 + i)) & done
wait
for r in g05 g05cos g10 g05cos6k; do
  echo "$r: $(for s in $(seq 101 112); do grep -o '([0-9]* of 768 values wrong' $R/$r-s$s.out | tail -1 | grep -o '^([0-9]*' | tr -d '('; done | tr '\n' ' ')"
done
cd $OUT && tar czf r.tgz r && rm -rf r
