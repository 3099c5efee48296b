#!/usr/bin/env bash
# Prepared for the next session (not run yet): confirm chains 3 and 4 with the chain command and the
# shipped recipe, then go on with chains 1 and 5 from run 143 (sweep50-51a ran k 0-142 of both;
# chains 2, 3 and 4 are marked solved so that only 1 and 5 run), 14 workers, the recipe's abandon rule.
#     bash scripts/gpu/sweep52.sh WAIT [stop]      (a: 420 or so; b: the rest, with stop)
set -u
ROOT=$PWD
source scripts/gpu/setup.sh tools/dlca-train tools/dlca-eval || exit 1
D=/tmp/gc
if [ ! -d $D ]; then
  tools/dlca-train --preset growth --epochs 2 --quiet >/dev/null 2>&1   # the kernel cache
  for sk in 3:126 4:132; do
    S=${sk%:*} k=${sk#*:}
    tools/dlca-train --preset growth --seed $S --restart-from $k --restarts 1 --save $R/chain$S.json > $R/chain$S.out 2>&1
    grep -E "^(best hard|repair|evolve|abandoned)|right on every|restart" $R/chain$S.out
    tools/dlca-eval --backend ref --preset growth --model $R/chain$S.json | grep -E "^(target|result)"
    cmp $R/chain$S.json $ROOT/doc/data/growth-chains-h100/growth-chain$S-run$k.json && echo "chain $S: the same circuit"
  done
  GC_EXTRA="--abandon 750:40,1500:15" OMP_NUM_THREADS=2 \
    setsid nohup bash $ROOT/scripts/gpu/growth-chains.sh $D 5 14 400 715 2:0,3:0,4:0 > /tmp/gc.log 2>&1 < /dev/null &
  sleep 2
fi
source $ROOT/scripts/gpu/growth-chains-wait.sh "${1:-540}" "${2:-}"
