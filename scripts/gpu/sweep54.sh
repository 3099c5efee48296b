#!/usr/bin/env bash
# Chain 1 of growth goes on from where sweep53's daemon stopped (its runs 401 to about 664 were not
# exact), on the same warm host, 14 workers, the recipe's abandon rule.
#     bash scripts/gpu/sweep54.sh WAIT
set -u
ROOT=$PWD
source scripts/gpu/setup.sh tools/dlca-train tools/dlca-eval || exit 1
D=/tmp/gc54
START=$(cat /tmp/gc53/next 2>/dev/null || echo 2005)
echo "start: run index $START (k = $((START / 5)))"
if [ ! -d $D ]; then
  GC_EXTRA="--abandon 750:40,1500:15" OMP_NUM_THREADS=2 \
    setsid nohup bash $ROOT/scripts/gpu/growth-chains.sh $D 5 14 2000 $START 2:0,3:0,4:0,5:189 > /tmp/gc.log 2>&1 < /dev/null &
  sleep 2
fi
source $ROOT/scripts/gpu/growth-chains-wait.sh "${1:-480}" stop
