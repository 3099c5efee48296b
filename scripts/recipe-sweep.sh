#!/usr/bin/env bash
# Trains one recipe on several seeds with dlca-train and prints one CSV row
# per run: how many epochs to 100% hard accuracy, the fresh-grid accuracy,
# the active gates and the wall time. Used for the tables of doc/training.md.
#
# usage: recipe-sweep.sh [--bin DLCA_TRAIN] [--out DIR] [--seeds "1 2 3 4 5"]
#                        PRESET NAME -- [dlca-train options...]
#   e.g. recipe-sweep.sh --out runs checkerboard st-gumbel -- --epochs 1000 \
#            --straight-through --gumbel 1 --eval-fresh 100
# Writes DIR/PRESET-NAME-sSEED.csv (the dlca-train log), .json (the model
# when --save-models) and appends to DIR/summary.csv; rows also go to stdout:
#   preset,recipe,seed,epochs_run,first_hard0_epoch,final_hard_loss,
#   fresh_accuracy,active_gates,wall_s,options
set -euo pipefail
bin=dlca-train out=sweep seeds="1 2 3 4 5" save=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --save-models) save=1; shift ;;
    --help|-h) sed -n '2,14p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "recipe-sweep: need PRESET NAME (see --help)" >&2; exit 2; }
preset=$1 name=$2; shift 2
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
[ -f "$out/summary.csv" ] || echo "preset,recipe,seed,epochs_run,first_hard0_epoch,final_hard_loss,fresh_accuracy,active_gates,wall_s,options" >"$out/summary.csv"
for s in $seeds; do
  base="$out/$preset-$name-s$s"
  extra=()
  [ "$save" = 1 ] && extra=(--save "$base.json")
  "$bin" --preset "$preset" --seed "$s" --log "$base.csv" "${extra[@]}" "$@" >"$base.txt" 2>"$base.err"
  ep=$(tail -n +2 "$base.csv" | tail -1 | cut -d, -f1)
  h0=$(awk -F, 'NR > 1 && $3 == 0 { print $1; exit }' "$base.csv")
  hl=$(sed -n 's/^hard loss: *//p' "$base.txt")
  fr=$(sed -n 's/^fresh accuracy: *\([0-9.]*%\).*/\1/p' "$base.txt")
  ag=$(sed -n 's/^active gates: *\([0-9]*\) of.*/\1/p' "$base.txt")
  # "wall time: 12.3 s" or "wall time: 1m00s (60.7 s), ..."
  wt=$(sed -n 's/^wall time: *\([0-9.]*\) s.*/\1/p; s/^wall time: *[0-9]*m[0-9]*s (\([0-9.]*\) s).*/\1/p' "$base.txt")
  row="$preset,$name,$s,$ep,${h0:--},$hl,${fr:--},$ag,$wt,\"$*\""
  echo "$row" >>"$out/summary.csv"
  echo "$row"
done
