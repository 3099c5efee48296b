#!/usr/bin/env bash
# GPU call 26 (2026-11-25): where the tile backward step's time goes. Timing-only ablations of
# trainer_tile.cl (scripts/gpu/ablate_tile.py: -DABL bits 1 gate sums, 2 reverse pass, 4 recompute,
# 8 perception backward, 16 dP sum, 32 staging), checkerboard batch 512, TILE_CELLS 1, TL 8.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
python3 $OLDPWD/scripts/gpu/ablate_tile.py kernels-cl/trainer_tile.cl || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
cp $OLDPWD/scripts/gpu/settab.py . && python3 settab.py TILE_CELLS=1 TL=8 TILE_GROUPS_PER_CU=1
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
for a in 0 1 2 3 4 8 16 32 31; do
  DLCA_CL_BUILD_OPTIONS="-DABL=$a" bench/dlca-bench --preset checkerboard --batch 512 --repeats 3 --warmup 1 --json $R/cb-$a.json >/dev/null 2>&1
  python3 -c "
import json
r=json.load(open('$R/cb-$a.json'))
print('ABL $a'.ljust(8), '  '.join('%s/%d %.3f (%s)' % (x['preset'][:6], x['batch'], x['ms_per_epoch_median'], x['kernels_ms']) for x in r))"
done
cd $OUT && tar czf r.tgz r && rm -rf r
