#!/usr/bin/env bash
# GPU call 29 (2026-11-25): v9.4, trainer_tile.cl's forward step with trainer.cl's backward
# (KERNELS 0, TILE_CELLS). Parity on the H100 with TILE_CELLS 1, then dlca-bench A/B in one call:
# the shipped table against TILE_CELLS 1 on every checkerboard batch, async and colour.
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
for p in checkerboard checkerboard-async gol colour; do echo "hybrid parity $p $(timeout 120 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
for round in 1 2; do
  tab; B base$round --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7
  B base-oth$round --preset checkerboard-async,colour --batch 1 --repeats 7
  tab TILE_CELLS=1; B hyb$round --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7
  B hyb-oth$round --preset checkerboard-async,colour --batch 1 --repeats 7
done
grep -A3 "^checkerboard *512" $R/hyb1.out | tail -2
cd $OUT && tar czf r.tgz r && rm -rf r
