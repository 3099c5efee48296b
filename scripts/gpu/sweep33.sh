#!/usr/bin/env bash
# GPU call 33 (2026-11-25): growth recipes (issue 6: the lizard exactly), seeds 1-8, 16 trainings
# sharing the GPU: the paper's protocol, cosine lr, lr 0.03, lr 0.1 + cosine, 7000 epochs + cosine,
# temperature 0.5. All --keep-best --eval-every 50. Entry: cells wrong of the kept best circuit.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R /tmp/models
tools/dlca-train --preset growth --epochs 10 --quiet >/dev/null 2>&1   # the kernel cache, once
declare -A REC=([paper]="" [cos]="--lr-schedule cosine" [lr03]="--lr 0.03" [lr10cos]="--lr 0.1 --lr-schedule cosine" \
                [cos7k]="--lr-schedule cosine --epochs 7000" [t05]="--temperature 0.5")
NAMES="paper cos lr03 lr10cos cos7k t05"
run() { for r in $NAMES; do
  timeout 500 tools/dlca-train --preset growth --seed $1 ${REC[$r]} --keep-best --eval-every 50 \
    --save /tmp/models/$r-s$1.json > $R/$r-s$1.out 2> $R/$r-s$1.err; done; }
for s in 1 2 3 4 5 6 7 8; do run $s & done
wait
for r in $NAMES; do
  echo "$r: $(for s in 1 2 3 4 5 6 7 8; do grep -o '([0-9]* of 400 values wrong' $R/$r-s$s.out | tail -1 | grep -o '^([0-9]*' | tr -d '('; done | tr '\n' ' ') | best hard: $(for s in 1 2 3 4 5 6 7 8; do grep -o 'best hard loss: *[0-9.]*' $R/$r-s$s.out | grep -o '[0-9.]*$'; done | tr '\n' ' ') | soft: $(for s in 1 2 3 4 5 6 7 8; do grep -o 'soft loss: *[0-9.]*' $R/$r-s$s.out | grep -o '[0-9.]*$'; done | tr '\n' ' ')"
done
cd $OUT && tar czf r.tgz r && rm -rf r
