#!/usr/bin/env bash
# GPU call 60 (2026-11-26): PSPLIT, the perception stacks' backward in a launch of its own
# (dlca_backward_perc, PERC_SPLIT_CELLS), so that dlca_backward holds fewer registers and more of
# its groups fit an SM (sweep59: 3 groups instead of 2 gave 1.22x). Registers (ptxas), then
# dlca-bench at batches 128 and 512 against BWD_GROUPS_PER_CU, the shipped table first (the
# refactor must not cost the unsplit kernels); parity with the split forced on every preset, and
# the trainer suite of tests/main.
#     bash scripts/gpu/sweep60.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1; shift
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose" bench/dlca-bench --preset checkerboard --batch ${BATCH:-128,512} \
    --warmup 2 --repeats 5 --json $R/$n.json "$@" > $R/$n.out 2> $R/$n.err
  echo "$n: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' ') | $(grep -o 'backward[_a-z]* [0-9.]* ms x[0-9]*' $R/$n.out | tail -2 | paste -sd' ') | regs $(grep -A4 -E "entry function 'dlca_backward(_perc)?'" $R/$n.err | grep -o 'Used [0-9]*' | sort -u | paste -sd' ')"; }
tab;                                               B shipped
tab PERC_SPLIT_CELLS=32768;                        B split-g1
tab PERC_SPLIT_CELLS=32768 BWD_GROUPS_PER_CU=2;    B split-g2
tab PERC_SPLIT_CELLS=32768 BWD_GROUPS_PER_CU=3;    B split-g3
tab PERC_SPLIT_CELLS=32768 BWD_GROUPS_PER_CU=4;    B split-g4
tab;                                               BATCH=2 B shipped-b2
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth gol colour; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
echo "split parity checkerboard b32 $(timeout 90 tools/dlca-parity --preset checkerboard --batch 32 --random 1 2>&1 | tail -1)"
tab
timeout 200 tests/main trainer > $R/tests-main-trainer.log 2>&1; echo "tests/main trainer rc=$?: $(tail -1 $R/tests-main-trainer.log)"
bench/dlca-bench --preset checkerboard-async,growth --batch 1 --repeats 7 > $R/other.out 2>&1; grep -E '^(checkerboard-async|growth) ' $R/other.out
cd $OUT && tar czf r.tgz r && rm -rf r
