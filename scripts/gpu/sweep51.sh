#!/usr/bin/env bash
# GPU calls 51a-51b (2026-11-25, fifth session): the growth chains of sweep50 go on, with growth's
# recipe for chains (`--abandon 750:40,1500:15`), from run index 364 (k = 72), chain 2 exact at run
# 51. .dev/gc-done.csv lists the runs sweep50 finished. Call a first checks that the chain command
# reproduces chain 2's exact run on its own:
#     dlca-train --preset growth --seed 2 --restart-from 51 --restarts 1
#     bash scripts/gpu/sweep51.sh WAIT [stop]
set -u
ROOT=$PWD
source scripts/gpu/setup.sh tools/dlca-train tools/dlca-eval || exit 1
D=/tmp/gc
if [ ! -d $D ]; then
  tools/dlca-train --preset growth --epochs 2 --quiet >/dev/null 2>&1   # the kernel cache
  mkdir -p $R
  ( time tools/dlca-train --preset growth --seed 2 --restart-from 51 --restarts 1 --save $R/chain2.json ) \
    > $R/chain2.out 2>&1
  grep -E "^(best hard|evolve|abandoned|fresh|wall)|right on every|restart" $R/chain2.out
  tools/dlca-eval --backend ref --preset growth --model $R/chain2.json | grep -E "^(target|result)"
  GC_DONE=$ROOT/.dev/gc-done.csv GC_EXTRA="--abandon 750:40,1500:15" OMP_NUM_THREADS=2 \
    setsid nohup bash $ROOT/scripts/gpu/growth-chains.sh $D 5 14 400 364 2:51 > /tmp/gc.log 2>&1 < /dev/null &
  sleep 2
fi
source $ROOT/scripts/gpu/growth-chains-wait.sh "${1:-540}" "${2:-}"
