#!/usr/bin/env bash
# GPU call 45 (2026-11-25): growth by numbers. P workers share the GPU, each training single runs
# of the paper's protocol with --keep-best --eval-every 2 on seeds S0, S0+1, ... until the deadline.
# One CSV row per run (seed, best hard loss, its epoch, last soft loss); models with at most KEEP
# cells wrong are kept for the repair. Usage: sweep45.sh [P] [S0] [seconds] [KEEP] [extra options]
set -u
P=${1:-12}; S0=${2:-100000}; SECS=${3:-480}; KEEP=${4:-8}; shift 4 2>/dev/null; EXTRA="$*"
source scripts/gpu/setup.sh tools/dlca-train || exit 1
export OMP_NUM_THREADS=1
tools/dlca-train --preset growth --epochs 2 --quiet >/dev/null 2>&1   # fill the kernel cache once
end=$(( $(date +%s) + SECS ))
worker() {
  local w=$1 s=$((S0 + $1))
  while [ $(( $(date +%s) + 12 )) -lt $end ]; do
    tools/dlca-train --preset growth --seed $s --keep-best --eval-every 2 $EXTRA --save $R/m$s.json > $R/s$s.out 2>&1
    b=$(sed -n 's/^best hard loss: *\([0-9]*\) at epoch \([0-9]*\).*/\1,\2/p' $R/s$s.out)
    soft=$(sed -n 's/^soft loss: *//p' $R/s$s.out)
    wall=$(sed -n 's/^wall time:.*(\([0-9.]*\) s).*/\1/p' $R/s$s.out)
    echo "$s,${b:-NA,NA},${soft:-NA},${wall:-NA}" >> $R/w$w.csv
    [ -n "$b" ] && [ "${b%%,*}" -le $KEEP ] || rm -f $R/m$s.json
    rm -f $R/s$s.out
    s=$((s + P))
  done
}
for w in $(seq 0 $((P - 1))); do worker $w & done
wait
{ echo "seed,best_wrong,best_epoch,soft_loss,wall_s"; cat $R/w*.csv | sort -t, -k2 -n; } > $R/growth-runs.csv
rm -f $R/w*.csv
echo "runs: $(($(wc -l < $R/growth-runs.csv) - 1)) with P=$P; best:"; head -8 $R/growth-runs.csv
cut -d, -f2 $R/growth-runs.csv | tail -n +2 | sort -n | uniq -c | head -20 | tr '\n' ';'; echo
