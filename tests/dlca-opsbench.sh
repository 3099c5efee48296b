#!/bin/sh
# Smoke test of bench/dlca-opsbench on the default OpenCL device (PoCL in
# CI): tiny GEMMs and the dense suite, CSV and JSON rows in the columns
# bench/peer/torch_ops.py writes, an unknown suite named (exit 2). Exit 77
# where the tool was not built or there is no OpenCL platform at all.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init bench/dlca-opsbench dlca-opsbench

expect 2 "unknown suite" -- "$prog" --suite frob
grep -q "'frob' is not a suite (gemm, dense" err.txt || fail "unknown suite not named: $(cat err.txt)"
"$prog" --suite gemm,dense --sizes 16,33 --warmup 1 --repeats 3 --csv r.csv --json r.json >out.txt 2>err.txt
got=$?
if [ "$got" -ne 0 ] && grep -q "no OpenCL platform" err.txt; then
  echo "SKIP: no OpenCL platform: $(cat err.txt)"
  exit 77
fi
[ "$got" -eq 0 ] || { fail "run: exit $got"; sed 's/^/  | /' out.txt err.txt; }
[ "$(head -1 r.csv)" = "suite,case,impl,device,median_ms,min_ms,tflops,gbs,flops,bytes,date" ] ||
  fail "CSV header: $(head -1 r.csv)"
[ "$(wc -l <r.csv)" -eq 5 ] || fail "CSV: $(wc -l <r.csv) lines, expected a header and 4 rows"
for c in sgemm_16 sgemm_33 dense_64x128_relu_b32_fwd dense_64x128_relu_b32_fwd_bwd; do
  grep -q "\"case\": \"$c\"" r.json || fail "JSON lacks $c"
done
grep -q '"flops": 8192,' r.json || fail "sgemm_16 is not 2 n^3 = 8192 flops: $(grep sgemm_16 r.json)"
[ "$failures" -eq 0 ] || exit 1
echo "dlca-opsbench smoke test passed"
