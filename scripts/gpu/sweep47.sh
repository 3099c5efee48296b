#!/usr/bin/env bash
# GPU call 47 (2026-11-25): growth near misses. (A) Each saved near miss of sweep45/46 (2-8 cells
# wrong, its soft loss frozen) with its logits times F = 0.5 and 0.25 (--rescale-logits: the same
# hard circuit, its gradients back), 2000 more epochs, keep-best, then --evolve 1500 where at most 1
# cell is wrong. (B) Meanwhile fresh seeds 300000+ with keep-best and the same evolve.
set -u
source scripts/gpu/setup.sh tools/dlca-train || exit 1
export OMP_NUM_THREADS=2
tools/dlca-train --preset growth --epochs 2 --quiet >/dev/null 2>&1
G=$OLDPWD/.dev/g
EV="--evolve 1500 --evolve-max-wrong 1"
for m in $G/m*.json; do
  s=$(basename $m .json); s=${s#m}
  for f in 0.5 0.25; do
    timeout 450 tools/dlca-train --preset growth --model $m --rescale-logits $f --seed $s --epochs 2000 --keep-best \
      --eval-every 2 $EV --save $R/h$s-$f.json > $R/h$s-$f.out 2>&1 &
  done
done
end=$(( $(date +%s) + 450 ))
worker() {
  local w=$1 s=$((300000 + $1))
  while [ $(( $(date +%s) + 15 )) -lt $end ]; do
    tools/dlca-train --preset growth --seed $s --keep-best --eval-every 2 $EV --save $R/m$s.json > $R/s$s.out 2>&1
    b=$(sed -n 's/^best hard loss: *\([0-9]*\) at epoch \([0-9]*\).*/\1,\2/p' $R/s$s.out)
    e=$(sed -n 's/^evolve: *\([0-9]*\) -> \([0-9]*\) .*/\2/p' $R/s$s.out)
    echo "$s,${b:-NA,NA},$(sed -n 's/^soft loss: *//p' $R/s$s.out),${e:-}" >> $R/w$w.csv
    [ -n "$b" ] && [ "${b%%,*}" -le 6 ] || rm -f $R/m$s.json
    [ "${e:-x}" = 0 ] && cp $R/s$s.out $R/exact-s$s.out
    rm -f $R/s$s.out
    s=$((s + 6))
  done
}
for w in 0 1 2 3 4 5; do worker $w & done
wait
{ echo "seed,best_wrong,best_epoch,soft_loss,after_evolve"; cat $R/w*.csv | sort -t, -k2,2n; } > $R/growth-runs.csv; rm -f $R/w*.csv
for f in $R/h*.out; do echo "$(basename $f .out): $(grep -E '^(best hard loss|evolve|soft loss)' $f | tr -s ' ' | cut -c1-90 | tr '\n' ' ')"; done
head -8 $R/growth-runs.csv; echo "fresh runs: $(($(wc -l < $R/growth-runs.csv) - 1))"; ls $R/exact* 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
