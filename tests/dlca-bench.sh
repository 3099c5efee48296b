#!/bin/sh
# Smoke test of bench/dlca-bench on the CPU reference, a few seconds on 2
# cores: help and version, one tiny workload with JSON and markdown output,
# and exit 2 on bad input. Exit 77 (automake's "skipped") when not built.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init bench/dlca-bench dlca-bench

expect 0 "--help" -- "$prog" --help
grep -q -- "--batch" out.txt || fail "--help does not describe --batch"
expect 0 "--version" -- "$prog" --version
grep -q '[0-9]\.[0-9]' out.txt || fail "--version prints no version: $(cat out.txt)"

expect 0 "checkerboard, batch 1, 2 steps, ref" -- "$prog" --quiet --preset checkerboard --batch 1 --steps 2 \
  --warmup 1 --repeats 1 --backend ref --json x.json --markdown x.md
grep -q '^checkerboard  *1  *2 ref' out.txt || fail "no result row on stdout: $(cat out.txt)"
grep -q '"ms_per_epoch_median": [0-9]' x.json || fail "x.json has no ms_per_epoch_median"
grep -q '"floors_ms": {"arith": ' x.json || fail "x.json has no floors"
grep -q '"local": null, "bound"' x.json || fail "x.json: a CPU device counts a local-memory floor"
expect 2 "negative local bandwidth" -- "$prog" --peak-local-gbs -1
# a local-memory bandwidth given is counted: the floor line, JSON and markdown say so
expect 0 "local floor counted" -- "$prog" --quiet --preset checkerboard --batch 1 --steps 2 --warmup 1 --repeats 1 \
  --backend ref --peak-local-gbs 0.001 --json l.json --markdown l.md
grep -q 'floors per epoch: .*, local [0-9.e+]* ms' out.txt || fail "no local floor on stdout: $(cat out.txt)"
grep -q '"local": [0-9]' l.json || fail "l.json: no local floor"
grep -q '"bound": "local"' l.json || fail "l.json: 0.001 GB/s of local memory does not bind"
grep -q '; local [0-9.e+]* |' l.md || fail "l.md: no local floor in the row"
[ "$(head -c 1 x.json)" = "[" ] || fail "x.json is not an array"
grep -q '^| date | preset |' x.md || fail "x.md has no table header"
grep -q '^| [0-9-]* | checkerboard | 1 | 2 | ref |' x.md || fail "x.md has no row: $(cat x.md)"
# a second run appends a row under the same header
"$prog" --quiet --preset checkerboard --batch 1 --steps 2 --warmup 0 --repeats 1 --backend ref --markdown x.md \
  >/dev/null 2>&1 || fail "second markdown run"
[ "$(grep -c '^| date |' x.md)" -eq 1 ] || fail "x.md has more than one header"
[ "$(grep -c '| checkerboard |' x.md)" -eq 2 ] || fail "x.md does not have 2 rows"
# a file of prose keeps it, and the table starts after a blank line; a file that cannot be written is named
printf '# Notes\nno final newline' > n.md
"$prog" --quiet --preset checkerboard --batch 1 --steps 2 --warmup 0 --repeats 1 --backend ref --markdown n.md \
  >/dev/null 2>&1 || fail "markdown after prose"
[ "$(sed -n 2,4p n.md | cut -c1-8)" = "$(printf 'no final\n\n| date |')" ] || fail "n.md: $(cat n.md)"
expect 1 "--json into a missing directory" -- "$prog" --quiet --preset checkerboard --batch 1 --steps 2 --warmup 0 \
  --repeats 1 --backend ref --json no/such/x.json
grep -q -- '--json no/such/x.json: ' err.txt || fail "the unwritable --json is not named: $(cat err.txt)"

# --model: a saved model trains instead of the preset's; a bad file is a failed row that names it
train="$top/tools/dlca-train"
if [ -x "$train" ]; then
  expect 0 "a saved model" -- "$train" --backend ref --quiet --preset checkerboard --epochs 0 --seed 9 --save m.json
  expect 0 "--model" -- "$prog" --quiet --preset checkerboard --batch 1 --steps 2 --warmup 0 --repeats 1 \
    --backend ref --model m.json --json m-out.json
  grep -q '"status": "ok"' m-out.json || fail "--model: the row is not ok: $(cat m-out.json)"
  grep -q -- '--model m.json' m-out.json || fail "--model: the command is not recorded"
fi
echo '{"format": "dlca-model", "version": 1' > bad.json
expect 2 "--model of a corrupt file" -- "$prog" --quiet --preset checkerboard --batch 1 --steps 2 --warmup 0 \
  --repeats 1 --backend ref --model bad.json
grep -q 'bad.json' out.txt err.txt || fail "--model: the error does not name the file"
expect 2 "unknown preset" -- "$prog" --preset nosuch --backend ref
expect 2 "bad batch list" -- "$prog" --batch 1,x --backend ref
expect 2 "unknown option" -- "$prog" --frobnicate

# a population row beside the single model's: M models at --population-batch, model-samples/s
expect 0 "population of 3 at batch 1" -- "$prog" --quiet --preset checkerboard --batch 1 --steps 2 --warmup 1 \
  --repeats 1 --backend ref --population 3 --population-batch 1 --json p.json
grep -q '^checkerboard x3  *1  *2 ref' out.txt || fail "no population row on stdout: $(cat out.txt)"
grep -q '"preset": "checkerboard x3", "models": 3, "batch": 1' p.json || fail "p.json: no population row"
expect 2 "--population 0" -- "$prog" --population 0
if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
exit 0
