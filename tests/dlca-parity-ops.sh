#!/bin/sh
# dlca-parity --vector on the dlca-ops-vector files of $DLCA_OPS_TESTDATA
# (../shared/testdata/ops, which `make check` sets): every file whose op
# this build implements passes on the CPU twin (--backend ref) and on the
# default OpenCL device (PoCL in CI); an unimplemented op, a corrupt file
# and a rank over 4 are exit 2, a wrong result exit 1. Exit 77 (skipped)
# where the directory or the tool is absent. About 5 s with a warm cache.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-parity dlca-parity-ops
dir="${DLCA_OPS_TESTDATA:-}"
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  echo "SKIP: ops vectors '${dir}' not found (shared/ absent?)"
  exit 77
fi

# run_all BACKEND: every file; counts passes and unimplemented ops.
run_all() {
  pass=0 unimpl=0
  for f in "$dir"/*.json; do
    "$prog" --vector "$f" --backend "$1" --json >out.txt 2>err.txt
    got=$?
    if [ "$got" -eq 0 ] && grep -q '"pass": true' out.txt; then
      pass=$((pass + 1))
    elif [ "$got" -eq 2 ] && grep -q "not implemented" err.txt; then
      unimpl=$((unimpl + 1))
    else
      fail "--backend $1 $(basename "$f"): exit $got"
      sed 's/^/  | /' out.txt err.txt
    fi
  done
  echo "ok: --backend $1: $pass files pass, $unimpl files of ops not implemented yet"
  [ "$pass" -gt 30 ] || fail "--backend $1: only $pass files pass"
}

run_all ref
"$prog" --vector "$dir/unary_exp.json" --backend cl >out.txt 2>err.txt
cl=cl
if grep -q "no OpenCL platform" err.txt; then
  echo "SKIP: --backend cl: no OpenCL platform: $(cat err.txt)"
  cl=
else
  run_all cl
fi

# A wrong result is exit 1, with the failing entry named.
cat >wrong.json <<'JSON'
{"format": "dlca-ops-vector", "version": 1, "case": "wrong", "op": "unary", "attrs": {"fn": "neg"},
 "inputs": {"x": {"shape": [2], "data": [1, 2]}}, "outputs": {"y": {"shape": [2], "data": [-1, -3]}},
 "tolerance": {"abs": 1e-4, "rel": 1e-4}}
JSON
expect 1 "a wrong output" -- "$prog" --vector wrong.json --backend ref
grep -q "outputs.y .*FAIL" out.txt || fail "the failing output is not named: $(cat out.txt)"

# Bad input: exit 2 with a message naming what is wrong.
sed 's/"unary"/"frobnicate"/' wrong.json >unimpl.json
expect 2 "an op not implemented" -- "$prog" --vector unimpl.json --backend ref
grep -q "op frobnicate not implemented" err.txt || fail "no 'op frobnicate not implemented': $(cat err.txt)"
head -c 120 "$dir/binary_add_0.json" >corrupt.json
expect 2 "a corrupt file" -- "$prog" --vector corrupt.json --backend ref
grep -q "corrupt.json" err.txt || fail "the corrupt file is not named: $(cat err.txt)"
sed 's/"shape": \[2\]/"shape": [1, 1, 1, 1, 2]/' wrong.json >rank5.json
expect 2 "a rank over 4" -- "$prog" --vector rank5.json --backend ref
grep -q "rank 5" err.txt || fail "rank 5 is not named: $(cat err.txt)"
expect 2 "a missing file" -- "$prog" --vector nosuch.json --backend ref
sed 's/"y": {"shape": \[2\], "data": \[-1, -3\]}/"y": {"shape": [3], "data": [-1, -3, 0]}/' wrong.json >shape.json
for b in ref $cl; do
  expect 2 "--backend $b: an output of the wrong shape" -- "$prog" --vector shape.json --backend $b
  grep -q "outputs.y.shape: \[3\], op unary gives \[2\]" err.txt || fail "the shape is not named: $(cat err.txt)"
done
exit $((failures > 0))
