#!/usr/bin/env bash
# GPU call 24 (2026-11-25): v9, the tile steps (trainer_tile.cl). Parity of the tile steps on the
# H100 (TILE_CELLS 1: every workload), the device suites with KERNELS 2 forced, then dlca-bench A/B
# in one call: the shipped table (trainer.cl's steps) against the tile steps and their variants.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
cp $OLDPWD/scripts/gpu/settab.py . 2>/dev/null || true
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; python3 settab.py "$@"; }
B() { n=$1; shift; bench/dlca-bench "$@" --json $R/$n.json --markdown $R/$n.md > $R/$n.out 2>&1
  echo "$n: $(grep '^| 2026' $R/$n.md | cut -d'|' -f3,4,5,8 | paste -sd' ' | sed 's/  */ /g')"; }
tab TILE_CELLS=1
for p in checkerboard checkerboard-async gol; do echo "tile parity $p $(timeout 120 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "tile parity cb b8 $(timeout 120 tools/dlca-parity --preset checkerboard --batch 8 --random 2 2>&1 | tail -1)"
tab TILE_CELLS=1 TL=4
for p in growth colour; do echo "tile TL4 parity $p $(timeout 120 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
B base --batch 32,512 --repeats 5
grep -A3 "^checkerboard *512" $R/base.out | head -4
for v in "TILE_GROUPS_PER_CU=1" "TILE_GROUPS_PER_CU=2" "TL=8 TILE_GROUPS_PER_CU=2" "TWG=512" "TL=8 TWG=128 TILE_GROUPS_PER_CU=4"; do
  tab TILE_CELLS=1 $v; B "tile-${v// /_}" --batch 32,512 --repeats 5
  grep -A3 "^checkerboard *512" $R/tile-${v// /_}.out | head -4
done
tab TILE_CELLS=1
B tile-all --preset checkerboard --batch 1,2,8,128,1024 --repeats 5
cd $OUT && tar czf r.tgz r && rm -rf r
