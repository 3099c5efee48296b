#!/usr/bin/env bash
# GPU call 25 (2026-11-25): v9.1, the tile backward step stages each layer's input in local memory.
# Parity of the tile steps (TILE_CELLS 1), then dlca-bench: TL / groups variants at batch 32 and 512.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
cp $OLDPWD/scripts/gpu/settab.py .
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; python3 settab.py "$@"; }
B() { n=$1; shift; bench/dlca-bench "$@" --json $R/$n.json --markdown $R/$n.md > $R/$n.out 2>&1
  echo "$n: $(grep '^| 2026' $R/$n.md | cut -d'|' -f3,4,5,8 | paste -sd' ' | sed 's/  */ /g')"; }
tab TILE_CELLS=1
for p in checkerboard checkerboard-async; do echo "tile parity $p $(timeout 120 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
for v in "TL=8 TILE_GROUPS_PER_CU=2" "TL=8 TILE_GROUPS_PER_CU=1" "TL=4 TILE_GROUPS_PER_CU=2" "TL=4 TWG=128 TILE_GROUPS_PER_CU=4"; do
  tab TILE_CELLS=1 $v; B "tile-${v// /_}" --batch 32,512 --repeats 5
  grep -A3 "^checkerboard *512" $R/tile-${v// /_}.out | tail -2
done
cd $OUT && tar czf r.tgz r && rm -rf r
