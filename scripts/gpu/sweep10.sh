#!/usr/bin/env bash
# GPU call 10 (2026-11-25): where the backward step's time goes. Timing-only ablations of
# trainer.cl (scripts/gpu/ablate.py adds -DABL bits that skip parts: 1 the update layers' backward,
# 2 the perception backward, 4 the recompute, 16 the flush of the gate sums, 32 the forward's
# circuit), with the store off (the v6 path).
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
python3 $OLDPWD/scripts/gpu/ablate.py kernels-cl/trainer.cl || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
echo '{"format":"dlca-tuning","version":1,"entries":[{"device":"default","params":{"trainer":{"STORE_ACTS_MIB":0}}}]}' > /tmp/nostore.json
export DLCA_CL_TUNING=/tmp/nostore.json
R=$OUT/r; mkdir -p $R
for a in 0 1 2 4 16 32 3 7 23; do
  DLCA_CL_BUILD_OPTIONS="-DABL=$a" bench/dlca-bench --preset checkerboard --batch 2,512 --repeats 5 --json $R/cb-$a.json >/dev/null 2>&1
  DLCA_CL_BUILD_OPTIONS="-DABL=$a" bench/dlca-bench --preset checkerboard-async,growth --batch 1 --repeats 5 --json $R/oth-$a.json >/dev/null 2>&1
  python3 -c "
import json
r=json.load(open('$R/cb-$a.json'))+json.load(open('$R/oth-$a.json'))
print('ABL $a'.ljust(8), '  '.join('%s/%d %.3f (f %.3f b %.3f)' % (x['preset'][:6], x['batch'], x['ms_per_epoch_median'], x['kernels_ms']['forward'], x['kernels_ms']['backward']) for x in r))"
done
cd $OUT && tar czf r.tgz r && rm -rf r
