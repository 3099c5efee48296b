#!/bin/sh
# Smoke test of bench/dlca-tune on the default OpenCL device (PoCL in CI),
# about 15 s on 2 cores with cold caches: help and version, exit 2 on bad
# input, a --quick run of selftest.cl that merges into a table holding
# another device's entry, a corrupt table refused, the cache directory's
# table, a --quick run of trainer.cl capped at two
# configurations, and the written table loaded by dlca-info and by one epoch
# of dlca-train. Exit 77 (automake's "skipped") when the tool was not built
# or there is no OpenCL platform at all.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init bench/dlca-tune dlca-tune
# An optimised trainer.cl takes PoCL about 25 s to compile, once per
# configuration; unoptimised, 2 s. This test checks the tool, not the
# timings, and the gate compares configurations built alike.
DLCA_CL_BUILD_OPTIONS=-cl-opt-disable
export DLCA_CL_BUILD_OPTIONS

expect 0 "--help" -- "$prog" --help
grep -q -- "--quick" out.txt || fail "--help does not describe --quick"
grep -q "one parameter at a time" out.txt || fail "--help does not say how it searches"
expect 0 "--version" -- "$prog" --version
grep -q '[0-9]\.[0-9]' out.txt || fail "--version prints no version: $(cat out.txt)"

expect 2 "unknown option" -- "$prog" --frobnicate
expect 2 "--repeats 0" -- "$prog" --repeats 0
expect 2 "unknown preset" -- "$prog" --preset nosuch
expect 2 "bad --only" -- "$prog" --only WG
expect 2 "bad --search" -- "$prog" --search sideways

# The first run that needs a device: skip if there is no OpenCL at all.
cat >t.json <<'EOF'
{"format": "dlca-tuning", "version": 1, "device": "Other GPU", "driver": "1.0",
 "entries": [{"device": "Other GPU", "driver": "1.0", "params": {"trainer": {"WG": 64}}}]}
EOF
"$prog" --quick --kernel selftest.cl --output t.json >out.txt 2>err.txt
got=$?
if [ "$got" -ne 0 ] && grep -q "no OpenCL platform" err.txt; then
  echo "SKIP: no OpenCL platform: $(cat err.txt)"
  exit 77
fi
if [ "$got" -ne 0 ]; then
  fail "--quick --kernel selftest.cl: exit $got"
  sed 's/^/  | /' out.txt err.txt
else
  echo "ok: --quick --kernel selftest.cl (exit 0)"
  grep -q '^selftest.cl .*ok (reference)' out.txt || fail "no reference row: $(cat out.txt)"
  grep -q '^winner selftest.cl' out.txt || fail "no winner line: $(cat out.txt)"
  grep -q '"Other GPU"' t.json || fail "the other device's entry was dropped: $(cat t.json)"
  grep -q '"selftest"' t.json || fail "t.json has no selftest params: $(cat t.json)"
fi

expect 2 "--kernel nosuch.cl" -- "$prog" --kernel nosuch.cl
expect 2 "--kernel rng.cl (no tunables)" -- "$prog" --kernel rng.cl
expect 2 "--only a tunable nobody declares" -- "$prog" --kernel selftest.cl --only NO_SUCH=1

expect 0 "--quick --kernel trainer.cl, 2 configurations" -- "$prog" --quick --kernel trainer.cl --max-configs 2 \
  --output t.json
grep -q '^trainer.cl .*ok (reference)' out.txt || fail "no trainer reference row: $(cat out.txt)"
[ "$(grep -c '^trainer.cl ' out.txt)" -eq 2 ] || fail "not 2 trainer rows: $(cat out.txt)"
grep -q '^winner trainer.cl' out.txt || fail "no trainer winner line"
# this device's entry now holds both files (each with its measurements)
[ "$(grep -c '"reference_ms_per_epoch"' t.json)" -eq 2 ] || fail "t.json lacks a kernel file: $(cat t.json)"
grep -q '"Other GPU"' t.json || fail "the other device's entry was dropped"

# The table loads, is not ignored as another device's, and trains.
expect 0 "dlca-info --build with the table" -- env DLCA_CL_TUNING="$tmp/t.json" "$top/tools/dlca-info" \
  --build selftest.cl
grep -q "tuning table .*ignored" err.txt && fail "the table was ignored: $(cat err.txt)"
expect 0 "dlca-train, 1 epoch with the table" -- env DLCA_CL_TUNING="$tmp/t.json" "$top/tools/dlca-train" \
  --preset checkerboard --backend cl --epochs 1 --batch 1 --steps 4 --quiet

# A table the library cannot read is named, refused and left as it was.
printf '{"format": "dlca-tuning", "version": 1, "entries": [' >bad.json
cp bad.json bad0.json
expect 1 "a corrupt --output table" -- "$prog" --quick --kernel selftest.cl --output bad.json
grep -q 'bad.json: not overwritten, it is not a valid tuning table' err.txt || fail "corrupt table: $(cat err.txt)"
cmp -s bad.json bad0.json || fail "the corrupt table was changed"

# Without --output: the cache directory's tuning.json, made with its
# directory and writable by its owner alone (else the library ignores it).
expect 0 "the cache directory's table" -- env DLCA_CL_CACHE_DIR="$tmp/c2/sub" "$prog" --quick --kernel selftest.cl
grep -q "^wrote $tmp/c2/sub/tuning.json" out.txt || fail "no 'wrote' line: $(cat out.txt)"
[ -z "$(find "$tmp/c2/sub/tuning.json" -perm /022)" ] || fail "the cache table is group or other writable"

# --print-entry: one JSON object on stdout, and no table written.
expect 0 "--print-entry" -- env DLCA_CL_CACHE_DIR="$tmp/cache" "$prog" --quick --kernel selftest.cl --print-entry
grep -q '^{"device": ".*", "driver": ".*", "params": {"selftest": {"WG_SIZE": [0-9]*}}}$' out.txt ||
  fail "--print-entry printed: $(cat out.txt)"
[ -e "$tmp/cache/tuning.json" ] && fail "--print-entry wrote $tmp/cache/tuning.json"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
exit 0
