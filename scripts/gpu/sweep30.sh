#!/usr/bin/env bash
# GPU call 30 (2026-11-25): the tile backward step (KERNELS 2) against its register budget.
# The ptxas report (-cl-nv-verbose), then dlca-bench at batch 512: TL 8 with 256 and 128 threads,
# groups per compute unit, and ACCU_GLOBAL 1 (update-gate sums in the L2, not in registers).
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
  echo "$n: $(grep '^| 2026' $R/$n.md | cut -d'|' -f3,4,5,8 | paste -sd' ' | sed 's/  */ /g') $(grep -o 'backward_tile [0-9.]* ms' $R/$n.out | head -1)"; }
for acc in 0 1; do
  tab KERNELS=2
  DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose -DACCU_GLOBAL=$acc" timeout 120 tools/dlca-parity --preset checkerboard --random 1 > $R/ptxas-$acc.txt 2>&1
  echo "ACCU_GLOBAL $acc: $(tail -1 $R/ptxas-$acc.txt) $(grep -o 'Used [0-9]* registers[^\\]*' $R/ptxas-$acc.txt | sort -u | tr '\n' ';')"
done
for acc in 0 1; do
  for v in "TILE_GROUPS_PER_CU=1" "TILE_GROUPS_PER_CU=2" "TWG=128 TILE_GROUPS_PER_CU=2" "TWG=128 TILE_GROUPS_PER_CU=4"; do
    tab KERNELS=2 $v; DLCA_CL_BUILD_OPTIONS="-DACCU_GLOBAL=$acc" B "acc$acc-${v// /_}" --batch 512 --repeats 3 --warmup 1
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
