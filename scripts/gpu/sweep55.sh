#!/usr/bin/env bash
# Prepared for the next session (not run yet): chain 1 of growth goes on from run 955 (sweep50-54
# ran its runs 0-954, none exact; chains 2-5 were exact at runs 51, 126, 132 and 189), 14 workers,
# the recipe's abandon rule (from this session: 750:25,1500:10,2000:5; predicted 1.38x the runs a minute). A first call starts the daemon and waits; later calls on the same warm
# machine (idle release 30 s: call again at once) wait more, the last one with stop.
#     bash scripts/gpu/sweep55.sh WAIT [stop]
set -u
ROOT=$PWD
source scripts/gpu/setup.sh tools/dlca-train tools/dlca-eval || exit 1
D=/tmp/gc55
if [ ! -d $D ]; then
  GC_EXTRA="--abandon 750:25,1500:10,2000:5" OMP_NUM_THREADS=2 \
    setsid nohup bash $ROOT/scripts/gpu/growth-chains.sh $D 5 14 3000 4775 2:0,3:0,4:0,5:189 > /tmp/gc.log 2>&1 < /dev/null &
  sleep 2
fi
source $ROOT/scripts/gpu/growth-chains-wait.sh "${1:-480}" "${2:-}"
