#!/usr/bin/env bash
# GPU call 62 (2026-11-26): v10's perception kernel with as many cells side by side as its local
# memory holds (CPWP, 7 for the checkerboard on 48 KiB) against the 3 of sweep61 (-DCPWP=3), the
# shipped table (PERC_SPLIT_CELLS 32768, PERC_SPLIT_GROUPS_PER_CU 3) at batches 128-1024 and the
# other targets; parity with the split forced, the trainer suite.
# (Found after the session: the kernel never read CPWP, only the host sized its buffers by it, so
# both variants ran 3 cells side by side; CPWP is gone from the tree.)
#     bash scripts/gpu/sweep62.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
make -j16 -s tests/main >/dev/null 2>&1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1; shift
  DLCA_CL_BUILD_OPTIONS="${XOPT:-}" bench/dlca-bench --preset checkerboard --batch ${BATCH:-128,512,1024} --warmup 2 \
    --repeats 7 --json $R/$n.json "$@" > $R/$n.out 2> $R/$n.err
  echo "$n: $(grep -E '^checkerboard' $R/$n.out | awk '{print "b" $2 " " $5}' | paste -sd' ') | $(grep -o 'backward[_a-z]* [0-9.]* ms x[0-9]*' $R/$n.out | tail -2 | paste -sd' ')"; }
tab; B v10
tab; XOPT=-DCPWP=3 BATCH=512 B v10-cpwp3
tab; B v10-again
bench/dlca-bench --preset checkerboard --batch 1,2,8,32 --repeats 7 --json $R/small.json > $R/small.out 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour,gol --batch 1 --repeats 7 --json $R/other.json > $R/other.out 2>&1
grep -hE '^(checkerboard|checkerboard-async|growth|colour|gol) ' $R/small.out $R/other.out | awk '{print $1, "b" $2, $5 " ms"}' | paste -sd';'
tab PERC_SPLIT_CELLS=1 BWD_PERSIST=0
for p in checkerboard checkerboard-async growth gol colour; do echo "split parity $p $(timeout 90 tools/dlca-parity --preset $p --random 2 2>&1 | tail -1)"; done
tab
timeout 200 tests/main trainer > $R/tests-main-trainer.log 2>&1; echo "tests/main trainer rc=$?: $(tail -1 $R/tests-main-trainer.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
