#!/usr/bin/env bash
# GPU call 74 (2026-11-26): why growth and colour are 3% slower with v12 (sweep73): ptxas'
# registers, spills and stack of dlca_backward for growth and colour, b1, old tree (.dev/old) and new.
#     bash scripts/gpu/sweep74.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
NEW=$PWD
rm -rf /tmp/old && mkdir -p /tmp/old && tar xzf $ROOT/.dev/old/dlca_cl-*.tar.gz -C /tmp/old && cd /tmp/old/dlca_cl-* && ./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo "old tree: build failed"; exit 1; }
OLD=$PWD
for tree in old new; do
  cd $([ $tree = old ] && echo $OLD || echo $NEW)
  for p in growth colour checkerboard-async; do
    DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS=-cl-nv-verbose bench/dlca-bench --preset $p --batch 1 --repeats 5 > $R/$tree-$p.out 2> $R/$tree-$p.err
    echo "$tree $p: $(grep -E "^$p " $R/$tree-$p.out | awk '{print $5 " ms"}') $(tr '\\' '\n' < $R/$tree-$p.err | grep -A3 -E "entry function 'dlca_backward'" | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes stack frame|[0-9]+ bytes spill stores' | paste -sd' ')"
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
