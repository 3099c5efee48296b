#!/usr/bin/env bash
# The tests again under AddressSanitizer, UndefinedBehaviorSanitizer and
# LeakSanitizer: the library, the tools and the tests built in build-asan/
# (out of tree, -O1 -g -fsanitize=address,undefined), then `make check`
# there. A sanitizer report fails the test that made it: ASan and LSan exit
# 99 and UBSan 98, codes that no test expects. The OpenCL stack's own
# allocations that live until exit are not reported (tests/lsan.supp).
# Run by run-tests.sh after make check and distcheck; DLCA_SANITIZE=0 skips it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
cd "$top"
[ -x configure ] || autoreconf -fi >/dev/null
mkdir -p build-asan
cd build-asan
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
[ -f Makefile ] || ../configure -q CFLAGS="-g -O1 -fno-omit-frame-pointer $san" LDFLAGS="$san"
make -j"$(nproc)" -s
leaks=1
# LeakSanitizer stops with a fatal error under ptrace and in some sandboxes;
# there the other checks still run
if ! ASAN_OPTIONS=detect_leaks=1 ./tools/dlca-info --version >/dev/null 2>lsan-probe.txt &&
   grep -q 'LeakSanitizer has encountered a fatal error' lsan-probe.txt; then
  echo "run-sanitizers: LeakSanitizer cannot run here; leaks are not checked"
  leaks=0
fi
export ASAN_OPTIONS="detect_leaks=$leaks:exitcode=99"
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98"
# tests/main in one process (the suites are written for it: tests/cl_util.c),
# so that LeakSanitizer scans once at its exit instead of once in each of
# ~290 forked tests: fewer chances for the tracer crash below. The two tests
# that need OpenCL to start after a fork (in test_device.c and test_cache.c)
# say SKIP here; the plain make check runs them.
export CK_FORK=no
# the script tests build their own programs with these flags, and skip ulimit -v
export DLCA_SANITIZER_FLAGS="$san"
# LeakSanitizer's tracer, which stops every thread to scan for leaks at
# exit, can itself crash while PoCL's worker threads come and go ("Tracer
# caught signal 11", then "LeakSanitizer has encountered a fatal error"; seen
# in two of five CI runs with a leak scan in every forked test, in a test
# that had passed). That is no report of a
# leak or a memory error. True when every failed test failed only so.
tracer_crash_only() {
  local any=0 trs log
  for trs in $(grep -l '^:test-result: \(FAIL\|ERROR\)' tests/*.trs 2>/dev/null); do
    log=${trs%.trs}.log
    grep -q 'LeakSanitizer has encountered a fatal error' "$log" || return 1
    grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer: detected)|runtime error:' "$log" && return 1
    any=1
  done
  [ $any = 1 ]
}
fail() {
  cat tests/*.log test-suite.log 2>/dev/null | tail -200
  exit 1
}
if ! make -j"$(nproc)" check; then
  [ $leaks = 1 ] && tracer_crash_only || fail
  echo "run-sanitizers: LeakSanitizer's tracer crashed (no leak or memory error was reported); the failed tests once more"
  make -j"$(nproc)" recheck || fail
fi
echo "run-sanitizers: make check passed under ASan, UBSan$([ $leaks = 1 ] && echo ' and LSan')"
