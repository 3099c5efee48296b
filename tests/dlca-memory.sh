#!/bin/sh
# Honest memory (issue 35, defect 9): under an address-space limit of
# 2.6 GB (ulimit -v), a checkerboard of batch 8192 does not fit. dlca-train
# must refuse it up front with DLCA_EDEVMEM's message and exit 1, on the
# CPU reference and on an OpenCL CPU device (PoCL), instead of PoCL's
# assertion (exit 134) or a failure mid-step. A small batch under the same
# limit still trains. Exit 77 (skipped) without the tool or without ulimit -v.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-train dlca-memory

# AddressSanitizer reserves terabytes of address space, which ulimit -v forbids
[ -z "${DLCA_SANITIZER_FLAGS:-}" ] || { echo "SKIP: under the sanitizers (ulimit -v stops ASan itself)"; exit 77; }
(ulimit -v 2600000) 2>/dev/null || { echo "SKIP: this shell cannot set ulimit -v"; exit 77; }
limited() { (ulimit -v 2600000 && exec "$prog" --quiet --preset checkerboard --epochs 1 "$@"); }

# expect_devmem BACKEND: batch 8192 refused cleanly, naming both figures
expect_devmem() {
  expect 1 "$1: batch 8192 under ulimit -v 2600000" -- limited --backend "$1" --batch 8192
  grep -q "out of device memory\|needs .* MiB of host memory" err.txt || fail "$1: no memory message: $(cat err.txt)"
  grep -q "MemAvailable" err.txt || fail "$1: the message does not give MemAvailable: $(cat err.txt)"
  grep -q "RLIMIT_AS" err.txt || fail "$1: the message does not give the address-space limit: $(cat err.txt)"
  grep -q "a batch of [0-9]* would fit" err.txt || fail "$1: the message names no batch that fits: $(cat err.txt)"
}

expect_devmem ref
expect 0 "ref: batch 2 under the same limit" -- limited --backend ref --batch 2 --steps 4

# The OpenCL part where the default device is a CPU (PoCL in CI): there the
# buffers are the process's memory. A GPU's are not, so it is not run there.
if "$top/tools/dlca-info" 2>/dev/null | grep -A1 '^\*' | grep -q 'type cpu'; then
  expect_devmem cl
  expect 0 "cl: batch 2 under the same limit" -- limited --backend cl --batch 2 --steps 4
else
  echo "skip: the default OpenCL device is not a CPU device"
fi

[ "$failures" -eq 0 ] || exit 1
