#!/usr/bin/env bash
# GPU call 49 (2026-11-25): growth with the shipped default, `dlca-train --preset growth --seed S`
# (the recipe: keep-best, --evolve 1500 on 1-cell misses), seeds 500000+, 10 workers sharing the GPU;
# a run that ends 2 cells wrong gets one reheat (--rescale-logits 0.5, 2000 epochs, the same recipe).
# One CSV row per run: seed, cells wrong (after the evolve where it ran), after the reheat, seconds.
set -u
source scripts/gpu/setup.sh tools/dlca-train tools/dlca-eval || exit 1
export OMP_NUM_THREADS=2
tools/dlca-train --preset growth --epochs 2 --quiet >/dev/null 2>&1
final() { local e; e=$(sed -n 's/^evolve: *[0-9]* -> \([0-9]*\) .*/\1/p' $1); [ -n "$e" ] && echo $e ||
  sed -n 's/^best hard loss: *\([0-9]*\) at .*/\1/p' $1; }
end=$(( $(date +%s) + ${1:-420} ))
worker() {
  local w=$1 s=$((500000 + $1))
  while [ $(( $(date +%s) + 15 )) -lt $end ]; do
    t0=$(date +%s.%N)
    tools/dlca-train --preset growth --seed $s --save $R/g$s.json > $R/g$s.out 2>&1
    row="$s,$(final $R/g$s.out)"; last=$R/g$s
    if [ "$(final $R/g$s.out)" = 2 ]; then
      tools/dlca-train --preset growth --model $R/g$s.json --rescale-logits 0.5 --seed $s --epochs 2000 \
        --save $R/g$s-h.json > $R/g$s-h.out 2>&1
      row="$row,$(final $R/g$s-h.out)"; last=$R/g$s-h
    fi
    echo "$row,$(awk "BEGIN{print $(date +%s.%N) - $t0}")" >> $R/w$w.csv
    if [ "$(final $last.out)" = 0 ]; then
      cp $last.json $R/exact-$s.json; cat $R/g$s*.out > $R/exact-$s.out
      tools/dlca-eval --backend ref --preset growth --model $R/exact-$s.json >> $R/exact-$s.out 2>&1
    fi
    rm -f $R/g$s*
    s=$((s + 10))
  done
}
for w in $(seq 0 9); do worker $w & done
wait
cat $R/w*.csv > $R/growth-default.csv; rm -f $R/w*.csv
echo "runs: $(wc -l < $R/growth-default.csv)"; sort -t, -k2,2n $R/growth-default.csv | head -10
for f in $R/exact-*.out; do [ -f $f ] && { echo "$f:"; grep -E "^(best hard|evolve|target|result)" $f; }; done
cd $OUT && tar czf r.tgz r && rm -rf r
