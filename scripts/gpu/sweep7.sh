#!/usr/bin/env bash
# GPU call 7 (2026-11-23): more checkerboard recipes around batch 4 + temperature 2 (seed 3).
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
S=scripts/recipe-sweep.sh; B=tools/dlca-train
CB="--epochs 1000 --eval-fresh 100 --eval-every 10 --lr-schedule cooldown --early-stop 3 --keep-best"
( $S --bin $B --out $R/cb --save-models checkerboard b4-t2-g025 -- $CB --batch 4 --temperature 2 --gumbel 0.25 ) > $R/c1.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard b4-t2-g05 -- $CB --batch 4 --temperature 2 --gumbel 0.5 ) > $R/c2.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard b4-t15 -- $CB --batch 4 --temperature 1.5 ) > $R/c3.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard b8-t25 -- $CB --batch 8 --temperature 2.5 ) > $R/c4.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard b4-t2-lr03 -- $CB --batch 4 --temperature 2 --lr 0.03 ) > $R/c5.log 2>&1 &
( $S --bin $B --out $R/cb --save-models checkerboard b6-t2 -- $CB --batch 6 --temperature 2 ) > $R/c6.log 2>&1 &
wait
cat $R/c*.log
cd $OUT && tar czf r.tgz r && rm -rf r
