#!/usr/bin/env bash
# The growth chains of sweep50.sh, run as a daemon in the build tree on the GPU host:
#     growth-chains.sh DIR CHAINS WORKERS KMAX [START [SOLVED]]
# Chain S (S in 1..CHAINS) is `dlca-train --preset growth --seed S --restarts KMAX`: run k trains
# seed S + 1000 k with the shipped recipe. The runs are taken in the order of k, then S, by WORKERS
# processes sharing the GPU; a chain's later runs are skipped once one of its runs is exact.
# Per run, one row in DIR/runs.csv:
#   S,k,seed,wrong (after the recipe's evolve),best_epoch,soft_loss,seconds,
#   then the best cells wrong so far at epochs 250,500,...,3500, then the soft loss at those epochs,
#   then A if --abandon stopped the run, else F (from sweep51 on).
# An exact circuit is kept as DIR/exact-S-k.json with its summary, checked by dlca-eval --backend ref.
# START (default 0) goes on from run index START (k = START / CHAINS) of an earlier call; SOLVED
# ("S:k,...") names the chains already exact at run k. GC_EXTRA: more dlca-train options; GC_DONE: a
# file of "S,k" lines, runs done in an earlier call, skipped.
# Touch DIR/stop to end it after the runs in flight.
set -u
D=$1 NCH=$2 NW=$3 KMAX=$4
mkdir -p $D/keep; echo ${5:-0} > $D/next
for sk in $(echo ${6:-} | tr , ' '); do echo ${sk#*:} > $D/solved-${sk%%:*}; done
claim() { # prints "S k" of the next run to train, or nothing when the chains are done
  local i S k sk
  exec 9>$D/lock; flock 9
  while :; do
    i=$(cat $D/next); echo $((i + 1)) > $D/next
    k=$((i / NCH)); S=$((i % NCH + 1))
    [ $k -gt $KMAX ] && break
    sk=$(cat $D/solved-$S 2>/dev/null || echo 999999)
    [ -n "${GC_DONE:-}" ] && grep -qx "$S,$k" "$GC_DONE" && continue   # done in an earlier call
    [ $k -lt $sk ] && { echo "$S $k"; break; }
  done
  flock -u 9
}
worker() {
  local S k s t0 w
  while [ ! -e $D/stop ]; do
    read S k < <(claim); [ -z "${S:-}" ] && break
    s=$((S + 1000 * k)); t0=$(date +%s.%N)
    tools/dlca-train --preset growth --seed $s ${GC_EXTRA:-} --log $D/l$s.csv --save $D/g$s.json > $D/g$s.out 2>&1
    w=$(sed -n 's/^evolve: *[0-9]* -> \([0-9]*\) .*/\1/p' $D/g$s.out)
    [ -z "$w" ] && w=$(sed -n 's/^best hard loss: *\([0-9]*\) at .*/\1/p' $D/g$s.out)
    be=$(sed -n 's/^best hard loss: *[0-9]* at epoch \([0-9]*\).*/\1/p' $D/g$s.out)
    sl=$(awk -F, 'NR>1{x=$2} END{print x}' $D/l$s.csv)
    cp=$(awk -F, 'NR>1{ if (m=="" || $3<m) m=$3; if ($1%250==0) {b[$1]=m; q[$1]=$2} }
      END{ for (e=250;e<=3500;e+=250) printf ",%s", b[e]; for (e=250;e<=3500;e+=250) printf ",%s", q[e] }' $D/l$s.csv)
    echo "$S,$k,$s,${w:-NA},${be:-NA},${sl:-NA},$(awk "BEGIN{print $(date +%s.%N) - $t0}")$cp,$(grep -q '^abandoned:' $D/g$s.out && echo A || echo F)" >> $D/runs.csv
    if [ "${w:-x}" = 0 ]; then
      cp $D/g$s.json $D/exact-$S-$k.json; cp $D/g$s.out $D/exact-$S-$k.out
      tools/dlca-eval --backend ref --preset growth --model $D/exact-$S-$k.json >> $D/exact-$S-$k.out 2>&1
      ( exec 9>$D/lock; flock 9; o=$(cat $D/solved-$S 2>/dev/null || echo 999999)
        [ $k -lt $o ] && echo $k > $D/solved-$S )
    fi
    if [ "${w:-99}" -le 5 ] 2>/dev/null; then gzip -c $D/l$s.csv > $D/keep/l$s.csv.gz; cp $D/g$s.json $D/g$s.out $D/keep/; fi
    rm -f $D/g$s.json $D/g$s.out $D/l$s.csv
  done
}
for w in $(seq 1 $NW); do worker & done
wait
echo done > $D/finished
