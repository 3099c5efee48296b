#!/usr/bin/env bash
# GPU call 48 (2026-11-25): growth with reheats (--rescale-logits 0.5 then 2000 more epochs).
# (A) A reheat, F = 0.5 and 0.4, of each near miss sent in .dev/g/: sweep47's reheated ones (h*: a
# second round) and its fresh near misses (m3*: a first). (B) Fresh seeds 400000+ through the whole
# pipeline: the paper's protocol with keep-best; where at most 8 cells are wrong, up to two reheats
# of 2000 epochs while cells stay wrong; --evolve 1500 wherever at most 1 cell is wrong. One CSV row
# per fresh run: seed, cells wrong after training, after reheat 1, after reheat 2, seconds.
set -u
source scripts/gpu/setup.sh tools/dlca-train || exit 1
export OMP_NUM_THREADS=2
tools/dlca-train --preset growth --epochs 2 --quiet >/dev/null 2>&1
G=$OLDPWD/.dev/g
EV="--evolve 1500 --evolve-max-wrong 1"
wrong() { sed -n 's/^best hard loss: *\([0-9]*\) at .*/\1/p' $1; }
final() { local e; e=$(sed -n 's/^evolve: *[0-9]* -> \([0-9]*\) .*/\1/p' $1); [ -n "$e" ] && echo $e || wrong $1; }
for m in $G/*.json; do
  s=$(basename $m .json); n=${s#[hm]}
  for f in 0.5 0.4; do
    timeout 450 tools/dlca-train --preset growth --model $m --rescale-logits $f --seed $n --epochs 2000 --keep-best \
      --eval-every 2 $EV --save $R/a$s-$f.json > $R/a$s-$f.out 2>&1 &
  done
done
end=$(( $(date +%s) + 440 ))
worker() {
  local w=$1 s=$((400000 + $1))
  while [ $(( $(date +%s) + 25 )) -lt $end ]; do
    t0=$(date +%s.%N)
    tools/dlca-train --preset growth --seed $s --keep-best --eval-every 2 $EV --save $R/p$s-0.json > $R/p$s-0.out 2>&1
    row="$s,$(final $R/p$s-0.out)"; k=0
    while [ $k -lt 2 ] && [ "$(final $R/p$s-$k.out)" -gt 0 ] 2>/dev/null && [ "$(final $R/p$s-$k.out)" -le 8 ]; do
      tools/dlca-train --preset growth --model $R/p$s-$k.json --rescale-logits 0.5 --seed $s --epochs 2000 --keep-best \
        --eval-every 2 $EV --save $R/p$s-$((k+1)).json > $R/p$s-$((k+1)).out 2>&1
      k=$((k+1)); row="$row,$(final $R/p$s-$k.out)"
    done
    echo "$row,$(awk "BEGIN{print $(date +%s.%N) - $t0}")" >> $R/w$w.csv
    if [ "$(final $R/p$s-$k.out)" = 0 ]; then cp $R/p$s-$k.json $R/exact-p$s.json; cat $R/p$s-*.out > $R/exact-p$s.out; fi
    rm -f $R/p$s-*
    s=$((s + 6))
  done
}
for w in 0 1 2 3 4 5; do worker $w & done
wait
cat $R/w*.csv > $R/growth-pipeline.csv; rm -f $R/w*.csv
for f in $R/a*.out; do echo "$(basename $f .out): $(wrong $f) -> $(final $f) soft $(sed -n 's/^soft loss: *//p' $f)"; done
for f in $R/a*.json; do o=${f%.json}.out; [ "$(final $o)" = 0 ] || rm -f $f; done
echo "pipeline runs: $(wc -l < $R/growth-pipeline.csv)"; grep -c ",0," $R/growth-pipeline.csv; awk -F, '$NF+0>0{print}' $R/growth-pipeline.csv | sort -t, -k2,2n | head -12; ls $R/exact* 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
