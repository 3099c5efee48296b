#!/bin/sh
# dlca-train --population on PoCL (issue 34): gol, 8 models side by side
# on a budget of 16 models, finds a circuit right on all 512 boards (about
# 30 s on 2 cores with a cold kernel cache); the winner's seed trained
# alone gives the same model file and losses; abandoned models are
# replaced by fresh seeds within --max-models; bad combinations exit 2.
# Exit 77 (automake's "skipped") when the tool was not built or no OpenCL
# platform is there.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-train dlca-train-population

# (a) the mechanism on the CPU reference: every model is abandoned at epoch
# 20 (no hard loss is 0 by then), so 3 models are started, 2 at once
expect 0 "population, all abandoned" -- "$prog" --backend ref --preset gol --population 2 --max-models 3 --seed 5 \
  --epochs 40 --abandon 20:0
grep -q '^population: *2 at once, 3 models started (0 finished, 3 abandoned), 60 epochs in all' out.txt ||
  fail "abandoned population: $(cat out.txt)"
grep -q '^winner: *none' out.txt || fail "abandoned population has a winner: $(cat out.txt)"
grep -q '^closest: *seed [5-7], [0-9]* values wrong (abandoned at epoch 20)$' out.txt ||
  fail "no nearest miss in the summary: $(cat out.txt)"
grep -q '^single run: *--seed [5-7] --population 0 trains it alone, and on past' out.txt ||
  fail "no single run for the nearest miss: $(cat out.txt)"
grep -q 'seed 7: abandoned at epoch 20' err.txt || fail "the fresh seed 7 was not trained: $(cat err.txt)"

# (a') --runs is rewritten while models end: a population killed outright
# keeps the rows of the models it had done, each whole
"$prog" --backend ref --preset gol --population 2 --max-models 100000 --seed 5 --epochs 40 --abandon 20:0 \
  --runs killed.csv >/dev/null 2>&1 &
pid=$!
tries=0
while ! [ -s killed.csv ] && [ $tries -lt 300 ]; do
  sleep 0.1
  tries=$((tries + 1))
done
kill -KILL $pid
wait $pid 2>/dev/null
head -n 1 killed.csv | grep -q '^seed,right,how,epoch,' || fail "--runs after a kill: no header: $(head -n 2 killed.csv)"
rows=$(tail -n +2 killed.csv | grep -c '^[0-9]*,0,abandoned,20,')
[ "$rows" -ge 1 ] && [ "$rows" -eq "$(($(wc -l <killed.csv) - 1))" ] ||
  fail "--runs after a kill: $rows whole rows: $(cat killed.csv)"
ls killed.csv.tmp* >/dev/null 2>&1 && fail "--runs after a kill: a temporary file is left"

# (b) options that do not go with a population
expect 2 "--population with --restarts" -- "$prog" --backend ref --preset gol --population 2 --restarts 3
expect 2 "--max-models without --population" -- "$prog" --backend ref --preset gol --max-models 3

# (c) gol on the OpenCL device: 8 at once, at most 16 models
"$prog" --preset gol --population 8 --max-models 16 --seed 101 --save w.json --log w.csv >out.txt 2>err.txt
got=$?
skip_without_platform "$got"
[ "$got" -eq 0 ] || fail "gol population: exit $got: $(cat err.txt)"
seed=$(sed -n 's/^winner: *seed \([0-9]*\), epoch \([0-9]*\),.*/\1/p' out.txt)
[ -n "$seed" ] || fail "gol population found no winner: $(cat out.txt)"
head -n 1 w.csv | grep -qx 'epoch,soft_loss,hard_loss,hard_accuracy,epochs_per_s,pop_best_hard,pop_median_hard' ||
  fail "--log header: $(head -n 1 w.csv)"
echo "ok: gol population: seed $seed; $(grep '^wall time' out.txt)"

# (d) the winner's seed alone (a single run: --population 0, what the
# summary says): the same circuit and the same losses
grep -q "^single run: *--seed $seed --population 0 trains the same circuit alone" out.txt ||
  fail "no single-run line: $(grep -A1 '^winner' out.txt)"
expect 0 "the winner's seed alone" -- "$prog" --preset gol --seed "$seed" --population 0 --eval-fresh 100 --save s.json \
  --log s.csv
cmp -s s.json w.json || fail "seed $seed alone saves another model than the population's winner"
cut -d, -f1-4 s.csv >s.loss
cut -d, -f1-4 w.csv | cmp -s - s.loss || fail "seed $seed alone has other losses than in the population"

# (e) the default on a device: the recipe's population (gol: 8 models),
# unless an option asks for one run of a given length
expect 0 "gol, the default" -- "$prog" --preset gol --seed 5 --abandon 20:0 --max-models 8
grep -q '^population: *8 at once, 8 models started (0 finished, 8 abandoned), 160 epochs in all' out.txt ||
  fail "the default is not gol's population of 8: $(grep -E '^(population|epochs)' out.txt)"
expect 0 "gol, --epochs: one run" -- "$prog" --preset gol --seed 5 --epochs 3
grep -q '^population:' out.txt && fail "--epochs 3 trained a population: $(grep '^population' out.txt)"
[ "$failures" -eq 0 ]
