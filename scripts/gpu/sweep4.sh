#!/usr/bin/env bash
# GPU call 4 (2026-11-23): register cap x groups per CU (growth, colour, b2), more checkerboard recipes.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
mk() { # name BWD NARROW
  cat > /tmp/t-$1.json <<J
{"format":"dlca-tuning","version":1,"entries":[{"vendor":"NVIDIA Corporation","params":{"trainer":{"WG":256,"FWD_GROUPS_PER_CU":8,"BWD_GROUPS_PER_CU":$2,"CELLS_PER_GROUP":4,"CELLS_PER_GROUP_MIN":2,"WG_NARROW":$3}}}]}
J
}
mk b1 1 128; mk b2 2 128; mk b2n0 2 0; mk b4n0 4 0
for v in "b1|" "b1|-cl-nv-maxrregcount=128" "b2|-cl-nv-maxrregcount=128" "b2|" "b2|-cl-nv-maxrregcount=168" "b2n0|-cl-nv-maxrregcount=128" "b4n0|-cl-nv-maxrregcount=128"; do
  t=${v%%|*}; o=${v#*|}
  echo "== $t $o"
  DLCA_CL_TUNING=/tmp/t-$t.json DLCA_CL_BUILD_OPTIONS="$o" bench/dlca-bench --preset growth,colour,checkerboard-async --batch 1 --repeats 5 --json $R/rc-$t-${o##*=}-oth.json 2>&1 | grep -E "^\| 2026" | cut -d'|' -f3,4,8,12
  DLCA_CL_TUNING=/tmp/t-$t.json DLCA_CL_BUILD_OPTIONS="$o" bench/dlca-bench --preset checkerboard --batch 2,512 --repeats 5 --json $R/rc-$t-${o##*=}-cb.json 2>&1 | grep -E "^\| 2026" | cut -d'|' -f3,4,8,12
done
echo "== training"
S=scripts/recipe-sweep.sh; B=tools/dlca-train
CB="--epochs 1000 --eval-fresh 100 --eval-every 10 --lr-schedule cooldown --early-stop 3 --keep-best"
( $S --bin $B --out $R/cb --save-models checkerboard iwp-z2-b8 -- $CB --param iwp --iwp-init 2 --batch 8 ) > $R/c1.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard iwp-z2-l05 -- $CB --param iwp --iwp-init 2 --batch 2 --gumbel 0.5 ) > $R/c2.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard iwp-z1 -- $CB --param iwp --iwp-init 1 --batch 2 ) > $R/c3.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard b8-t2-g025 -- $CB --batch 8 --temperature 2 --gumbel 0.25 ) > $R/c4.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard b4-t2 -- $CB --batch 4 --temperature 2 ) > $R/c5.log 2>&1 &
wait
cat $R/c*.log
cd $OUT && tar czf r.tgz r && rm -rf r
