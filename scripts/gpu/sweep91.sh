#!/usr/bin/env bash
# GPU call 91 (2026-11-26): the review's refactor against f8bbe1d (its dist
# tarball in .dev/old/) on the small workloads, one machine, alternating, two rounds (sweep90 read
# b2 0.601 ms against 0.574-0.588 before; load_patch now computes b, r, q once a cell again).
#     bash scripts/gpu/sweep91.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
NEW=$PWD
rm -rf /tmp/old && mkdir -p /tmp/old && tar xzf $ROOT/.dev/old/dlca_cl-*.tar.gz -C /tmp/old && cd /tmp/old/dlca_cl-* && ./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo "old tree: build failed"; exit 1; }
OLD=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  for tree in old new; do
    cd $([ $tree = old ] && echo $OLD || echo $NEW)
    bench/dlca-bench --preset checkerboard,checkerboard-async,growth,colour,gol --batch 1 --repeats 9 --json $R/$tree-$round.json > $R/$tree-$round.out 2>&1
    bench/dlca-bench --preset checkerboard --batch 2 --repeats 9 --json $R/$tree-b2-$round.json > $R/$tree-b2-$round.out 2>&1
    echo "$tree round $round: $(grep -hE '^(checkerboard|checkerboard-async|growth|colour|gol) ' $R/$tree-$round.out $R/$tree-b2-$round.out | awk '{print $1 " b" $2 " " $5}' | paste -sd';')"
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
