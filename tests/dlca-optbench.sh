#!/bin/sh
# Smoke test of bench/dlca-optbench (issue 32) on the OpenCL device (PoCL in
# CI), a second on 2 cores: every optimizer at one small size gives a row of
# numbers in each layout, and bad arguments exit 2. Exit 77 (automake's
# "skipped") when not built or there is no OpenCL platform at all.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init bench/dlca-optbench dlca-optbench

expect 0 "--help" -- "$prog" --help
grep -q -- "--reps" out.txt || fail "--help does not describe --reps"
"$prog" --reps 2 20000 >out.txt 2>err.txt
got=$?
if [ "$got" -ne 0 ] && grep -q "no OpenCL platform" err.txt; then
  echo "SKIP: no OpenCL platform: $(cat err.txt)"
  exit 77
fi
[ "$got" -eq 0 ] || fail "20000 parameters: exit $got: $(cat out.txt err.txt)"
[ "$(head -n 1 out.txt)" = "suite,case,params,tensors,impl,ms,gbps,device" ] || fail "no CSV header: $(head -n 1 out.txt)"
grep -q '^optim,copy,20000,1,dlca_cl,[0-9.]*,[0-9.]*,' out.txt || fail "no copy row: $(cat out.txt)"
for o in sgd sgd_momentum adam adamw rmsprop adagrad; do
  for l in '1,dlca_cl' '100,dlca_cl' '100,dlca_cl_chunks'; do
    grep -q "^optim,$o,20000,$l,[0-9.]*,[0-9.]*," out.txt || fail "no row for $o $l: $(cat out.txt)"
  done
done
expect 2 "a bad size" -- "$prog" lots
expect 2 "zero repeats" -- "$prog" --reps 0

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
exit 0
