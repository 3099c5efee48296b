#!/bin/sh
# The command line every tool shares (tools/cli.h): -h/--help and
# -V/--version exit 0, --version prints one line "PROG (libdlca_cl) X.Y.Z",
# --help names both options and the exit status, and a bad option or a
# missing value exits 2. Then a device spec that matches nothing exits 2 and
# is named in the message, whether --device or DLCA_CL_DEVICE gave it.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-info cli

version=$("$top/tools/dlca-info" --version | sed 's/.* //')
for t in tools/dlca-train tools/dlca-eval tools/dlca-parity tools/dlca-export tools/dlca-info tools/dlca-net \
         bench/dlca-tune bench/dlca-bench bench/dlca-recipes bench/dlca-hardbench bench/dlca-opsbench; do
  p="$top/$t"
  name=${t#*/}
  if [ ! -x "$p" ]; then
    fail "$t was not built"
    continue
  fi
  for o in -h --help; do
    expect 0 "$name $o" -- "$p" $o
    grep -q -- "--help" out.txt || fail "$name $o: --help is not in the text"
    grep -q -- "--version" out.txt || fail "$name $o: --version is not in the text"
    grep -q "^EXIT STATUS" out.txt || fail "$name $o: no EXIT STATUS section"
    [ -s err.txt ] && fail "$name $o wrote to stderr: $(cat err.txt)"
  done
  for o in -V --version; do
    expect 0 "$name $o" -- "$p" $o
    [ "$(cat out.txt)" = "$name (libdlca_cl) $version" ] ||
      fail "$name $o: '$(cat out.txt)', expected '$name (libdlca_cl) $version'"
  done
  expect 2 "$name --no-such-option" -- "$p" --no-such-option
  grep -q -- "--no-such-option" err.txt || fail "$name: the bad option is not named: $(cat err.txt)"
  expect 2 "$name -Z" -- "$p" -Z
  expect 2 "$name --device (no value)" -- "$p" --device
done
case "$version" in
  [0-9]*.[0-9]*.[0-9]*) ;;
  *) fail "dlca-info --version: '$version' is not X.Y.Z" ;;
esac

# A device spec that matches nothing: bad input (2), named in the message.
"$top/tools/dlca-info" >out.txt 2>err.txt
if grep -q "no OpenCL platform" err.txt; then
  echo "SKIP (the rest): no OpenCL platform"
  [ "$failures" -eq 0 ]
  exit $?
fi
expect 2 "dlca-info --device 99" -- "$top/tools/dlca-info" --device 99
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q -- "^dlca-info: --device: no OpenCL device matches \"99\"" err.txt ||
  fail "--device 99: not one line naming it: $(cat err.txt)"
for v in 99 nosuch-device; do
  expect 2 "DLCA_CL_DEVICE=$v dlca-info" -- env DLCA_CL_DEVICE=$v "$top/tools/dlca-info"
  grep -q "^dlca-info: DLCA_CL_DEVICE=$v: no OpenCL device matches" err.txt ||
    fail "DLCA_CL_DEVICE=$v is not named: $(cat err.txt)"
  expect 2 "DLCA_CL_DEVICE=$v dlca-bench" -- env DLCA_CL_DEVICE=$v "$top/bench/dlca-bench" --repeats 1
  grep -q "DLCA_CL_DEVICE=$v" err.txt || fail "dlca-bench: DLCA_CL_DEVICE=$v is not named: $(cat err.txt)"
  expect 2 "DLCA_CL_DEVICE=$v dlca-parity" -- env DLCA_CL_DEVICE=$v "$top/tools/dlca-parity" --preset gol \
    --random 1
  grep -q "DLCA_CL_DEVICE=$v" err.txt || fail "dlca-parity: DLCA_CL_DEVICE=$v is not named: $(cat err.txt)"
done
expect 2 "dlca-info --build nosuch.cl" -- "$top/tools/dlca-info" --build nosuch.cl
# The shipped tuning table is found beside DLCA_CL_KERNEL_PATH's kernels
# (<srcdir>/tuning beside <srcdir>/kernels-cl), not by a compiled-in path.
expect 0 "dlca-info --build selftest.cl" -- "$top/tools/dlca-info" --build selftest.cl
grep -q "no shipped tuning table" err.txt && fail "the shipped table beside DLCA_CL_KERNEL_PATH was not read: $(cat err.txt)"
mkdir k && cp "${DLCA_CL_KERNEL_PATH%%:*}/selftest.cl" "${DLCA_CL_KERNEL_PATH%%:*}/rng.cl" k/
expect 0 "dlca-info --build selftest.cl, kernels without a table" -- env DLCA_CL_KERNEL_PATH="$PWD/k" \
  "$top/tools/dlca-info" --build selftest.cl
grep -q "no shipped tuning table (searched ../tuning/default.json from each DLCA_CL_KERNEL_PATH directory" err.txt ||
  fail "no table beside DLCA_CL_KERNEL_PATH: not said: $(cat err.txt)"
[ "$failures" -eq 0 ]
