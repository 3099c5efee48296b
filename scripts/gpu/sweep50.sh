#!/usr/bin/env bash
# GPU calls 50a-50c (2026-11-25, fifth session): growth chains 1-5 with the shipped default
# (`dlca-train --preset growth --seed S --restarts K`: run k trains seed S + 1000 k), in the order
# of k, 12 workers sharing the GPU (scripts/gpu/growth-chains.sh, started as a daemon that outlives
# each call while the machine stays warm). Each call waits WAIT seconds, then returns what is there.
#     bash scripts/gpu/sweep50.sh WAIT [stop]
set -u
ROOT=$PWD
source scripts/gpu/setup.sh tools/dlca-train tools/dlca-eval || exit 1
D=/tmp/gc
if [ ! -d $D ]; then
  tools/dlca-train --preset growth --epochs 2 --quiet >/dev/null 2>&1   # the kernel cache
  OMP_NUM_THREADS=2 setsid nohup bash $ROOT/scripts/gpu/growth-chains.sh $D 5 12 400 > /tmp/gc.log 2>&1 < /dev/null &
  sleep 2
fi
end=$(( $(date +%s) + ${1:-540} ))
while [ $(date +%s) -lt $end ] && [ ! -e $D/finished ]; do sleep 10; done
[ "${2:-}" = stop ] && { touch $D/stop; while [ ! -e $D/finished ] && [ $(date +%s) -lt $((end + 50)) ]; do sleep 2; done; }
echo "runs: $(wc -l < $D/runs.csv)  in flight: $(ls $D/g*.out 2>/dev/null | wc -l)"
sort -t, -k4,4n $D/runs.csv | head -12 | cut -d, -f1-7
for f in $D/exact-*.out; do [ -f $f ] && { echo "$f:"; grep -E "^(best hard|evolve|target|result|PASS|FAIL)" $f; }; done
ls $D/solved-* 2>/dev/null && head $D/solved-*
tail -3 /tmp/gc.log
cd /tmp && tar czf $OUT/gc.tgz gc/runs.csv gc/exact-* gc/keep gc/solved-* 2>/dev/null; true
