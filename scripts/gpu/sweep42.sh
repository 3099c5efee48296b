#!/usr/bin/env bash
# GPU call 42 (2026-11-25): the final tree on the H100 machine: the packed-bits suite and the repair
# tests on its Intel host (the engine was written and tuned on an AMD VM), the device suites on the
# H100, and dlca-hardbench's gol row (missing from sweep41).
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 && make -j16 -s tests/main >/dev/null 2>&1 ||
  { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu DLCA_CL_KERNEL_PATH=$PWD/kernels-cl
R=$OUT/r; mkdir -p $R
timeout 200 tests/main bits schedule device trainer 2>&1 | tail -4 | tee $R/tests-main.log
OMP_NUM_THREADS=16 bench/dlca-hardbench --preset gol,colour --repeats 5 --variants 8192 --json $R/hardbench-gol.json
cd $OUT && tar czf r.tgz r && rm -rf r
