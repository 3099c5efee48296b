#!/usr/bin/env bash
# Ran on 2026-11-26 on the H200 right after sweep55.sh found chain 1 exact at run 2153: the chain
# command alone from that run (its circuit compared with the daemon's), then the benchmark of the
# v9 tree on the H200 (doc/performance.md).
#     bash scripts/gpu/sweep57.sh
source scripts/gpu/setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(time tools/dlca-train --preset growth --seed 1 --restart-from 2153 --restarts 1 --save $OUT/growth-s1.json) > $OUT/chain1-alone.out 2>&1
tail -12 $OUT/chain1-alone.out
tools/dlca-eval --backend ref --preset growth --model $OUT/growth-s1.json | tail -3
cmp $OUT/growth-s1.json /tmp/gc55/exact-1-2153.json && echo SAME-CIRCUIT-FILE
cp /tmp/gc55/exact-1-2153.json $OUT/
bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 7 --json $OUT/bench-cb.json --markdown $OUT/perf.md > $OUT/bench-cb.out 2>&1
bench/dlca-bench --preset checkerboard-async,growth,colour,gol --batch 1 --repeats 7 --json $OUT/bench-other.json --markdown $OUT/perf.md > $OUT/bench-other.out 2>&1
grep -E '^\|' $OUT/perf.md | cut -d'|' -f3,4,7,8,9,11,12
