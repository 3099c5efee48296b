#!/usr/bin/env bash
# The libFuzzer harnesses of tests/fuzz/ (README there): builds them with
# clang into build-fuzz/, writes the seed corpora from files the project
# itself writes, then runs each harness for SECONDS (default 30), one at a
# time, and prints the executions and exec/s of each. Fails if any harness
# finds a crash, a leak, a timeout or an out-of-memory; the input that did
# it is left in build-fuzz/crashes/.
#   scripts/run-fuzz.sh [SECONDS] [HARNESS...]
# HARNESS: model tuning checkpoint checkpoint_sealed cache image annotations net
# Environment: DLCA_BUILD (a configured build tree; default build/, made by
# scripts/build.sh when missing), DLCA_FUZZ_OUT (default build-fuzz/),
# DLCA_FUZZ_ARGS (more libFuzzer options for every harness).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-30}
[ $# -gt 0 ] && shift
harnesses=${*:-model tuning checkpoint checkpoint_sealed cache image annotations net}
build=${DLCA_BUILD:-$top/build}
out=${DLCA_FUZZ_OUT:-$top/build-fuzz}
command -v clang >/dev/null || { echo "run-fuzz: clang not found (scripts/deps.sh installs it)" >&2; exit 1; }
[ -x "$build/tools/dlca-train" ] || "$top/scripts/build.sh"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# the harnesses' scratch files, on tmpfs where there is one; removed at exit
shm=/dev/shm
[ -d $shm ] && [ -w $shm ] || shm=${TMPDIR:-/tmp}
scratch=$(mktemp -d "$shm/dlca-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export DLCA_FUZZ_TMP=$scratch
make -s -f "$top/tests/fuzz/fuzz.mk" -j"$(nproc)" TOP="$top" BUILD="$(cd "$build" && pwd)" OUT="$out"

# Seeds, written afresh by the current code: what each harness writes in
# seed mode (DLCA_FUZZ_SEEDS; a small model in each parametrisation, whose
# wiring the checkpoint harness's trainer shares, checkpoints, cache
# entries, the built-in target images), that small model trained by
# dlca-train (its --save and --checkpoint), a PoCL cache entry, the
# shipped tuning table and kernels.
seeds=$out/seeds
rm -rf "$seeds"
for h in model tuning checkpoint cache image annotations net; do mkdir -p "$seeds/$h"; done
for h in model checkpoint cache image net; do DLCA_FUZZ_SEEDS=$seeds/$h "$out/fuzz_$h"; done
for par in softmax16 iwp; do
  (cd "$scratch" && "$build/tools/dlca-train" --preset gol --model "$seeds/model/small-$par.json" \
    --backend ref --epochs 2 --seed 1 --save "$seeds/model/trained-$par.json" \
    --checkpoint "$seeds/checkpoint/trained-$par.ckpt" >/dev/null 2>&1) ||
    { echo "run-fuzz: dlca-train could not write the $par model and checkpoint seeds" >&2; exit 1; }
done
if DLCA_CL_CACHE_DIR=$scratch/cache DLCA_CL_KERNEL_PATH="$top/kernels-cl" "$build/tools/dlca-info" --build selftest.cl >/dev/null 2>&1; then
  cp "$scratch"/cache/programs/*.clbin "$seeds/cache/"
else
  echo "run-fuzz: no OpenCL device: the cache harness starts from its own entries only" >&2
fi
cp "$top/tuning/default.json" "$seeds/tuning/"
cp "$top"/kernels-cl/*.cl "$top"/kernels-cl/trainer/*.cl "$seeds/annotations/"

# One harness at a time, for secs seconds each.
status=0
summary=""
for h in $harnesses; do
  exe=$out/fuzz_$h
  [ -x "$exe" ] || { echo "run-fuzz: no harness '$h'" >&2; exit 2; }
  seed=${h%_sealed}
  corpus=$out/corpus/$h
  mkdir -p "$corpus" "$out/crashes" "$out/logs"
  opts=(-max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048
        -artifact_prefix="$out/crashes/$h-")
  case $h in model | tuning | net) opts+=(-dict="$top/tests/fuzz/json.dict") ;; esac
  dirs=("$corpus" "$seeds/$seed")
  # committed seeds, and the inputs of past findings (run first, so that a
  # defect that comes back fails at once)
  for d in corpus regressions; do
    [ -d "$top/tests/fuzz/$d/$seed" ] && dirs+=("$top/tests/fuzz/$d/$seed")
  done
  log=$out/logs/$h.log
  # shellcheck disable=SC2086
  if "$exe" "${opts[@]}" ${DLCA_FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1; then r=ok; else r=FAILED status=1; fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # -fork and -jobs print no final stats: the last progress line's count
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  line=$(printf '%-18s %10s executions %7s exec/s  %s' "$h" "${execs:-?}" "${rate:-?}" "$r")
  echo "run-fuzz: $line"
  summary+="$line"$'\n'
  if [ $r = FAILED ]; then
    grep -E '^(==[0-9]+== ?ERROR|SUMMARY|fuzz:|.*runtime error)|Test unit written' "$log" | head -20 >&2
  fi
done
printf '\nrun-fuzz: %s s per harness\n%s' "$secs" "$summary"
[ $status = 0 ] || echo "run-fuzz: a harness failed; logs in $out/logs, inputs in $out/crashes" >&2
exit $status
