#!/bin/sh
# Smoke test of bench/dlca-recipes on the CPU reference, a few seconds on 2
# cores: help, version and the recipe list, one short reduced-checkerboard
# run that reaches 100% (seed 2 of the cooldown recipe, epoch 340), JSON and
# markdown output, and exit 2 on bad input.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init bench/dlca-recipes dlca-recipes

expect 0 "--help" -- "$prog" --help
grep -q -- "--recipes" out.txt || fail "--help does not describe --recipes"
expect 0 "--version" -- "$prog" --version
grep -q '[0-9]\.[0-9]' out.txt || fail "--version prints no version: $(cat out.txt)"
expect 0 "--list" -- "$prog" --list
grep -q '^st-gumbel-1 ' out.txt || fail "--list does not name st-gumbel-1"

expect 0 "reduced checkerboard, cooldown, seed 2" -- "$prog" --recipes cooldown --seeds 2 --epochs 400 \
  --json r.json --markdown r.md
grep -q '^cooldown,2,340,340,1.000000,' out.txt || fail "seed 2 did not reach 100% at epoch 340: $(cat out.txt)"
grep -q '"success_epoch": 340' r.json || fail "r.json has no success_epoch 340"
grep -q '"successes": 1' r.json || fail "r.json has no summary"
grep -q '^| date | task | recipe |' r.md || fail "r.md has no header"
grep -q '| reduced | cooldown | 1/1 | 340 | 100.00% | 400 | CPU reference |' r.md || fail "r.md row: $(cat r.md)"

expect 2 "unknown recipe" -- "$prog" --recipes nosuch
expect 2 "bad seed list" -- "$prog" --seeds 1,x
expect 2 "unknown task" -- "$prog" --task growth
expect 2 "unknown option" -- "$prog" --frobnicate

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
exit 0
