#!/usr/bin/env bash
# GPU call 46 (2026-11-25): growth, from sweep45's best circuits (1-8 cells wrong, still improving at
# epoch 3500): (A) go on training from each saved model (--model, a fresh AdamW) for 4000 epochs at
# lr 0.06 and at lr 0.02, keep-best with a hard evaluation every epoch, then --repair 2; (B) meanwhile
# fresh seeds with --epochs 7000 (sweep45's worker loop). Models sent in .dev/g/.
set -u
source scripts/gpu/setup.sh tools/dlca-train || exit 1
export OMP_NUM_THREADS=2
tools/dlca-train --preset growth --epochs 2 --quiet >/dev/null 2>&1
G=$OLDPWD/.dev/g
for m in $G/m*.json; do
  s=$(basename $m .json); s=${s#m}
  for lr in 0.06 0.02; do
    timeout 420 tools/dlca-train --preset growth --model $m --seed $s --lr $lr --epochs 4000 --keep-best --eval-every 1 \
      --repair 2 --save $R/c$s-$lr.json > $R/c$s-$lr.out 2>&1 &
  done
done
end=$(( $(date +%s) + 420 ))
worker() {
  local w=$1 s=$((200000 + $1))
  while [ $(( $(date +%s) + 20 )) -lt $end ]; do
    OMP_NUM_THREADS=1 tools/dlca-train --preset growth --seed $s --epochs 7000 --keep-best --eval-every 2 --save $R/m$s.json > $R/s$s.out 2>&1
    b=$(sed -n 's/^best hard loss: *\([0-9]*\) at epoch \([0-9]*\).*/\1,\2/p' $R/s$s.out)
    soft=$(sed -n 's/^soft loss: *//p' $R/s$s.out)
    echo "$s,${b:-NA,NA},${soft:-NA}" >> $R/w$w.csv
    [ -n "$b" ] && [ "${b%%,*}" -le 6 ] || rm -f $R/m$s.json
    rm -f $R/s$s.out
    s=$((s + 4))
  done
}
for w in 0 1 2 3; do worker $w & done
wait
{ echo "seed,best_wrong,best_epoch,soft_loss"; cat $R/w*.csv | sort -t, -k2,2n; } > $R/growth-7000.csv; rm -f $R/w*.csv
for f in $R/c*.out; do echo "$(basename $f .out): $(grep -E '^(best hard loss|repair|soft loss)' $f | tr -s ' ' | tr '\n' ' ')"; done
head -6 $R/growth-7000.csv; echo "7000-epoch runs: $(($(wc -l < $R/growth-7000.csv) - 1))"
cd $OUT && tar czf r.tgz r && rm -rf r
