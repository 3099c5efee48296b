#!/bin/sh
# Smoke test of bench/dlca-hardbench on the CPU engines (about a second on 2
# cores): help and version, one small run with JSON and markdown output,
# and exit 2 on bad input. Exit 77 (automake's "skipped") when not built.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init bench/dlca-hardbench dlca-hardbench

expect 0 "--help" -- "$prog" --help
grep -q -- "--variants" out.txt || fail "--help does not describe --variants"
expect 0 "--version" -- "$prog" --version
grep -q '[0-9]\.[0-9]' out.txt || fail "--version prints no version: $(cat out.txt)"

expect 0 "colour, CPU engines" -- "$prog" --no-cl --preset colour --repeats 1 --variants 64 --json h.json \
  --markdown h.md
grep -q '^colour  *4600 ' out.txt || fail "no result row on stdout: $(cat out.txt)"
grep -q '"bits_variants_per_s": [0-9]' h.json || fail "h.json has no bits_variants_per_s: $(cat h.json)"
grep -q '^| date | preset |' h.md || fail "h.md has no table header"
grep -q '^| [0-9-]* | colour | none |' h.md || fail "h.md has no row: $(cat h.md)"

expect 2 "unknown preset" -- "$prog" --no-cl --preset nosuch
expect 2 "model with two presets" -- "$prog" --no-cl --preset colour,growth --model x.json
expect 2 "unknown option" -- "$prog" --frobnicate

[ "$failures" -eq 0 ] || {
  echo "$failures check(s) failed"
  exit 1
}
echo "all dlca-hardbench checks passed"
