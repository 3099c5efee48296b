#!/usr/bin/env bash
# GPU call 3 (2026-11-23): main + iwp trial merge. Perf of PACC; IWP training sweeps.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
echo "== parity"
for p in checkerboard checkerboard-async growth gol colour; do echo "$p $(tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
for p in checkerboard growth; do echo "$p iwp $(tools/dlca-parity --preset $p --param iwp --random 2 2>&1 | tail -1)"; done
echo "== bench"
bench/dlca-bench --preset growth,colour,checkerboard-async --batch 1 --repeats 5 --json $R/pacc-oth.json --markdown $R/bench.md >/dev/null 2>&1
bench/dlca-bench --preset checkerboard --batch 2,512 --repeats 5 --json $R/pacc-cb.json --markdown $R/bench.md >/dev/null 2>&1
grep "^| 2026" $R/bench.md | cut -d'|' -f3,4,8,12
echo "== training"
S=scripts/recipe-sweep.sh; B=tools/dlca-train
CB="--epochs 1000 --eval-fresh 100 --eval-every 10 --lr-schedule cooldown --early-stop 3 --keep-best"
( $S --bin $B --out $R/cb --save-models checkerboard iwp-z3 -- $CB --param iwp --batch 2
  $S --bin $B --out $R/cb --save-models checkerboard iwp-z3-b8 -- $CB --param iwp --batch 8 ) > $R/cb1.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard iwp-z2 -- $CB --param iwp --iwp-init 2 --batch 2
  $S --bin $B --out $R/cb --save-models checkerboard iwp-z3-t2-b8 -- $CB --param iwp --batch 8 --temperature 2 ) > $R/cb2.log 2>&1 &
( $S --bin $B --out $R/gr --save-models growth iwp-z3 -- --epochs 3500 --eval-every 50 --keep-best --param iwp
  $S --bin $B --out $R/gr --save-models growth iwp-z2 -- --epochs 3500 --eval-every 50 --keep-best --param iwp --iwp-init 2 ) > $R/gr.log 2>&1 &
( $S --bin $B --out $R/co --save-models colour iwp-z3 -- --epochs 3000 --eval-every 50 --keep-best --param iwp
  $S --bin $B --out $R/co --save-models colour iwp-z3-g05 -- --epochs 3000 --eval-every 50 --keep-best --param iwp --gumbel 0.5 ) > $R/co.log 2>&1 &
( $S --bin $B --out $R/gol --save-models gol iwp-z3 -- --epochs 3000 --eval-every 20 --early-stop 3 --keep-best --param iwp
  $S --bin $B --out $R/as --save-models checkerboard-async iwp-z3 -- --epochs 800 --eval-fresh 100 --eval-every 10 --lr-schedule cooldown --early-stop 3 --keep-best --param iwp ) > $R/gol-as.log 2>&1 &
wait
cat $R/*.log
cd $OUT && tar czf r.tgz r && rm -rf r
