#!/bin/sh
# dlca-train --population M --measure on PoCL (issue 34): M single runs side
# by side, each to its end, none replaced and no stop at the first right
# one; the summary's success rate and median epoch, and --runs' rows agree
# with each seed trained alone, also with each model's own hyperparameters
# (--lr-jitter ...). gol, seeds 103 and 104 to epoch 2000 (one ends wrong,
# one right; about 20 s on 2 cores). Exit 77 (automake's
# "skipped") when the tool was not built or no OpenCL platform is there.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-train dlca-train-measure

# (a) options that do not go with --measure or --pbt
expect 2 "--measure without --population" -- "$prog" --backend ref --preset gol --measure
expect 2 "--measure with --save" -- "$prog" --backend ref --preset gol --population 2 --measure --save m.json
expect 2 "--measure with --max-models" -- "$prog" --backend ref --preset gol --population 2 --measure --max-models 4
expect 2 "--pbt with --measure" -- "$prog" --backend ref --preset gol --population 2 --measure --pbt 100:0.25
expect 2 "--pbt FRACTION above 0.5" -- "$prog" --backend ref --preset gol --population 2 --pbt 100:0.7
expect 2 "--pbt without FRACTION" -- "$prog" --backend ref --preset gol --population 2 --pbt 100
expect 2 "--pbt without --population" -- "$prog" --backend ref --preset gol --pbt 100:0.25
expect 2 "--eval-scale on gol" -- "$prog" --backend ref --preset gol --population 2 --measure --eval-scale 4
# (b) gol on the OpenCL device, both models to their ends
"$prog" --preset gol --population 2 --measure --seed 103 --epochs 2000 --runs runs.csv >out.txt 2>err.txt
got=$?
skip_without_platform "$got"
[ "$got" -eq 0 ] || fail "gol --measure: exit $got: $(cat err.txt)"
grep -q '^population: *2 at once, 2 models started (2 finished, 0 abandoned)' out.txt ||
  fail "--measure replaced or abandoned a model: $(cat out.txt)"
grep -q '^measured: *1 of 2 right (50.0%) on all 512 boards, seeds 103..104' out.txt ||
  fail "--measure's rate: $(cat out.txt)"
grep -q '^right ones: *median epoch 1900 ' out.txt || fail "--measure's median epoch: $(cat out.txt)"
head -n 1 runs.csv | grep -q '^seed,right,how,epoch,hard_loss,' || fail "--runs header: $(head -n 1 runs.csv)"
grep -q '^103,0,wrong,2000,' runs.csv || fail "--runs: seed 103 did not end wrong at epoch 2000: $(cat runs.csv)"
grep -q '^104,1,right,1900,' runs.csv || fail "--runs: seed 104 was not right at epoch 1900: $(cat runs.csv)"
echo "ok: gol --measure: $(grep '^measured' out.txt)"

# (c) seed 103 alone: the same end and the same errors on the 512 boards
expect 0 "seed 103 alone" -- "$prog" --preset gol --seed 103 --epochs 2000 --eval-fresh 100
errs=$(sed -n 's/^103,0,wrong,2000,[^,]*,[^,]*,\([0-9]*\),.*/\1/p' runs.csv)
grep -q "^fresh accuracy: .*(${errs:-x} of 4608 values wrong" out.txt ||
  fail "seed 103 alone: not ${errs:-?} of 4608 wrong: $(grep '^fresh' out.txt)"

# (d) each model its own lr, temperature and Gumbel scale (the jitters):
# seed 103 alone with the ones --runs names ends the same
expect 0 "--measure with jitters" -- "$prog" --preset gol --population 2 --measure --seed 103 --epochs 300 \
  --lr-jitter 0.5 --temperature-jitter 0.3 --gumbel-jitter 0.5 --runs j.csv
row=$(grep '^103,' j.csv)
lr=$(echo "$row" | cut -d, -f11) t=$(echo "$row" | cut -d, -f12) g=$(echo "$row" | cut -d, -f13)
errs=$(echo "$row" | cut -d, -f7)
[ "$lr" != "0.0500000007" ] || fail "--lr-jitter left seed 103's lr as it was: $row"
expect 0 "seed 103 alone, its own hyperparameters" -- "$prog" --preset gol --seed 103 --epochs 300 --eval-fresh 100 \
  --lr "$lr" --temperature "$t" --gumbel "$g"
grep -q "^fresh accuracy: .*(${errs:-x} of 4608 values wrong" out.txt ||
  fail "seed 103 alone with --lr $lr --temperature $t --gumbel $g: not ${errs:-?} wrong: $(grep '^fresh' out.txt)"

# (e) --pbt: the worst of 4 take copies of the best every 100 epochs
expect 0 "--pbt 100:0.25" -- "$prog" --preset gol --population 4 --max-models 4 --seed 5 --epochs 300 --pbt 100:0.25
grep -q '^pbt: *[1-9][0-9]* copies' out.txt || fail "--pbt made no copy: $(cat out.txt)"
expect 2 "--lr-jitter without --population" -- "$prog" --backend ref --preset gol --lr-jitter 0.5
[ "$failures" -eq 0 ]
