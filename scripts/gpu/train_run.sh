# Sourced by the whole-run sweeps (sweep159.sh to sweep161.sh) after setup.sh
# (factored out of them after their calls ran, with the same commands):
#     train_run LABEL [dlca-train options...]
# runs one dlca-train checkerboard process (the paper's protocol, seed 23),
# its stdout and stderr in $R/LABEL.out and .err, and prints its exit status,
# its wall time from start to exit and the summary's lines that match
# TRAIN_RUN_GREP (default: the wall time and the hard loss).
train_run() {
  local label=$1; shift
  local t0=$(date +%s.%N)
  tools/dlca-train --preset checkerboard --reference-protocol --seed 23 "$@" > $R/$label.out 2> $R/$label.err
  local rc=$? t1=$(date +%s.%N)
  echo "$label rc=$rc wall $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s; $(grep -E "${TRAIN_RUN_GREP:-wall time|hard loss}" $R/$label.out | tr '\n' ' ')"
}
