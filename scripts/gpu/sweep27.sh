#!/usr/bin/env bash
# GPU call 27 (2026-11-25): v9.2, the tile backward's reverse pass and the forward's gate loop
# unrolled (constant trip counts: every input's entries in flight at once). dlca-bench at batch 32
# and 512, TL 8 with 1 and 2 groups per compute unit, and the checkerboard ablation of the reverse pass.
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
echo "tile parity checkerboard $(timeout 120 tools/dlca-parity --preset checkerboard --random 2 2>&1 | tail -1)"
for v in "TILE_GROUPS_PER_CU=1" "TILE_GROUPS_PER_CU=2"; do
  tab TILE_CELLS=1 $v; B "tile-${v// /_}" --batch 32,512 --repeats 5
  grep -A3 "^checkerboard *512" $R/tile-${v// /_}.out | tail -2
done
cd $OUT && tar czf r.tgz r && rm -rf r
