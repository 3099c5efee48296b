#!/usr/bin/env bash
# The tests: builds, runs `make check` (on PoCL's CPU device and the CPU
# reference, with the JAX vectors from ../shared when present), then
# `make distcheck` to prove the dist tarball is complete (it builds,
# installs and runs the tests that need the shipped kernels, data and
# headers; the full suite has just run on the same sources), then each
# libFuzzer harness for 20 s (scripts/run-fuzz.sh; DLCA_FUZZ=0 skips it),
# then the tests again under the sanitizers (scripts/run-sanitizers.sh;
# DLCA_SANITIZE=0 skips that).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/build.sh"
cd "$top/build"
if ! make -j"$(nproc)" check; then
  cat tests/*.log test-suite.log 2>/dev/null | tail -200
  exit 1
fi
make -j"$(nproc)" distcheck \
  TESTS="tests/cli.sh tests/outside-program.sh tests/dlca-train.sh tests/dlca-net.sh" >/dev/null
echo "run-tests: make check and make distcheck passed"
# every parser under libFuzzer, 20 s each (8 harnesses, about 3 min), in build-fuzz/
if [ "${DLCA_FUZZ:-1}" != 0 ]; then
  "$top/scripts/run-fuzz.sh" 20
fi
# the same tests under ASan, UBSan and LSan, in build-asan/
if [ "${DLCA_SANITIZE:-1}" != 0 ]; then
  "$top/scripts/run-sanitizers.sh"
fi
