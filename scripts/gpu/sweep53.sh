#!/usr/bin/env bash
# Chain 1 of growth goes on from run 401 (sweep52 ran its runs 143-400 and none was exact; chains 2-4
# were exact at runs 51, 126 and 132, chain 5 at run 189), 14 workers, the recipe's abandon rule.
#     bash scripts/gpu/sweep53.sh WAIT
set -u
ROOT=$PWD
source scripts/gpu/setup.sh tools/dlca-train tools/dlca-eval || exit 1
D=/tmp/gc53
if [ ! -d $D ]; then
  GC_EXTRA="--abandon 750:40,1500:15" OMP_NUM_THREADS=2 \
    setsid nohup bash $ROOT/scripts/gpu/growth-chains.sh $D 5 14 1000 2005 2:0,3:0,4:0,5:189 > /tmp/gc.log 2>&1 < /dev/null &
  sleep 2
fi
source $ROOT/scripts/gpu/growth-chains-wait.sh "${1:-480}" stop
