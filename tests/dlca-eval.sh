#!/bin/sh
# End-to-end checks of tools/dlca-eval on the CPU reference, small enough
# for CI (a few seconds on 2 cores): a circuit that paints its target
# exactly passes (exit 0); an untrained Game of Life circuit and a barely
# trained checkerboard fail (exit 1), with every figure in the JSON; bad
# input exits 2 with one line.
# Exit 77 (automake's "skipped") when a tool was not built.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-eval dlca-eval
train="$top/tools/dlca-train"
[ -x "$train" ] || { echo "SKIP: $train not built"; exit 77; }
ev() { "$prog" --backend ref "$@"; }

# json_has FILE KEY: the JSON object has "KEY": somewhere (the tool writes one key per field).
json_has() { grep -q "\"$2\":" "$1" || fail "$1 has no \"$2\": $(cat "$1")"; }
# json_num FILE KEY: the first number after "KEY":
json_num() { grep -o "\"$2\": [-0-9.e+]*" "$1" | head -n 1 | sed 's/.*: //'; }

# (a) help and version
expect 0 "--help" -- "$prog" --help
grep -q -- "--gol-board" out.txt || fail "--help does not describe --gol-board"
expect 0 "--version" -- "$prog" --version
grep -q '^dlca-eval .*[0-9]\.[0-9]' out.txt || fail "--version prints no version: $(cat out.txt)"

# (b) exit 0: a colour model at epoch 0 (every gate pass-through) keeps the
# all-zero start at zero, so it paints an all-black target exactly.
expect 0 "untrained colour model" -- "$train" --backend ref --quiet --preset colour --epochs 0 --save colour0.json
{
  printf 'P1\n16 16\n'
  i=0
  while [ $i -lt 16 ]; do
    echo 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
    i=$((i + 1))
  done
} >black.pbm
expect 0 "colour: a black target is exact" -- ev --preset colour --model colour0.json --target black.pbm \
  --png colour.png --json colour.json
grep -q '^target: *100.0000% (0 of 768 values wrong; 16x16, 15 steps' out.txt || fail "target line: $(cat out.txt)"
grep -q '^result: *PASS (1 check)' out.txt || fail "result line: $(cat out.txt)"
grep -q '^active gates: *0 of 4600' out.txt || fail "active gates: $(cat out.txt)"
grep -q '^gate histogram: A 4600$' out.txt || fail "gate histogram: $(cat out.txt)"
for k in pass target errors_per_step gate_histogram active_gates picture; do json_has colour.json $k; done
grep -q '"wrong": \[\], "wrong_listed": 0' colour.json || fail "colour: an exact target lists wrong values"
grep -q '"errors_per_step": \[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0\]' colour.json ||
  fail "colour: the per-step errors are not 16 zeros on one line"
[ "$(head -c 4 colour.png | tail -c 3)" = PNG ] || fail "--png wrote no PNG"
# growth: an untrained circuit stays empty, so the lizard's cells are the
# ones wrong, drawn red in the last frame
expect 0 "untrained growth model" -- "$train" --backend ref --quiet --preset growth --epochs 0 --save growth0.json
expect 1 "growth: an empty grid is not the lizard" -- ev --preset growth --model growth0.json --png growth.png
grep -q '^picture: .*then the target; red: unlike the target at the last step' out.txt ||
  fail "growth picture line: $(cat out.txt)"
[ "$(head -c 4 growth.png | tail -c 3)" = PNG ] || fail "growth: --png wrote no PNG"
# --json lists the values unlike the target as [row, column, channel]
expect 1 "growth: the wrong cells in --json" -- ev --preset growth --model growth0.json --json growth.json
grep -q '"wrong": \[\[[0-9]*, [0-9]*, 0\]' growth.json || fail "growth: no wrong-cell list: $(cat growth.json)"
n=$(sed -n 's/.*"errors": \([0-9]*\), "total": 400.*/\1/p' growth.json)
grep -q "\"wrong_listed\": $n" growth.json || fail "growth: wrong_listed is not the $n errors"
# The built-in mushroom is not black: exit 1, the same figures through --json -.
expect 1 "colour: the mushroom is not painted" -- ev --preset colour --model colour0.json --json -
grep -q '"target": {"pass": false' out.txt || fail "--json - on stdout: $(cat out.txt)"

# (c) Game of Life: a pass-through circuit is not Life. All 512 boards, and
# a 8x8 torus stepped against exact Life: the first mismatch is step 1.
expect 0 "untrained gol model" -- "$train" --backend ref --quiet --preset gol --seed 3 --epochs 0 --save gol0.json
expect 1 "gol: an untrained circuit fails" -- ev --preset gol --model gol0.json --gol-board 8 --steps 4 --png gol.png \
  --json g0.json
grep -q '^gol boards: .* of 4608 values wrong; all 512' out.txt || fail "gol boards line: $(cat out.txt)"
grep -q '^gol board: *first mismatch at step 1 of 4' out.txt || fail "gol board failure line: $(cat out.txt)"
grep -q '^result: *FAIL (2 of 2 checks failed)' out.txt || fail "result line: $(cat out.txt)"
for k in gol_boards gol_board mismatch_cells mismatch_total errors_per_step; do json_has g0.json $k; done
[ "$(json_num g0.json first_mismatch)" = 1 ] || fail "first_mismatch is not 1"
grep -q '"pass": false' g0.json || fail "g0.json does not say pass false"

# (d) a checkerboard of 4 CA steps trained for 2 epochs: far from right, exit
# 1; fresh grids on the training grid, and a 24x24 grid for 6 steps.
expect 0 "train a tiny checkerboard" -- "$train" --backend ref --quiet --preset checkerboard --steps 4 --epochs 2 \
  --save cb.json
expect 1 "checkerboard: fails" -- ev --preset checkerboard --model cb.json --fresh 1 --grid 24x24 --steps 6 \
  --png cb.png --json cb-eval.json
grep -q '^fresh: .*1 batch of 2 on 16x16, 20 steps' out.txt || fail "fresh line: $(cat out.txt)"
grep -q '^generalisation: .*2 fresh grids of 24x24, 6 steps' out.txt || fail "generalisation line: $(cat out.txt)"
grep -q '^result: *FAIL' out.txt || fail "result line: $(cat out.txt)"
for k in fresh generalisation errors total accuracy hard_loss errors_per_step samples; do json_has cb-eval.json $k; done
[ "$(json_num cb-eval.json total)" = 512 ] || fail "fresh total is not 512 (2 grids of 16x16)"
[ -s cb.png ] || fail "no checkerboard picture"
# --scale 2: 32x32 and 40 steps; the same seed gives the same figures.
expect 1 "checkerboard --scale 2" -- ev --preset checkerboard --model cb.json --fresh 1 --scale 2 --json s1.json
grep -q '"generalisation": {"pass": false, "height": 32, "width": 32, "steps": 40' s1.json || fail "scale 2: $(cat s1.json)"
grep -q '"scale": 2' s1.json || fail "scale 2: no scale field"
expect 1 "checkerboard --scale 2 again" -- ev --preset checkerboard --model cb.json --fresh 1 --scale 2 --json s2.json
grep -v wall_s s1.json >s1.fig
grep -v wall_s s2.json | cmp -s - s1.fig || fail "two runs with the same seed differ"

# (e) bad input: exit 2 and one line naming what is wrong
head -c 200 cb.json >truncated.json
bad "corrupt model" "truncated.json" ev --preset checkerboard --model truncated.json
bad "missing model" "missing.json" ev --preset checkerboard --model missing.json
bad "model/preset channel mismatch" "gol0.json: the model has 1 channel, but the checkerboard preset needs 8" \
  ev --preset checkerboard --model gol0.json
bad "impossible grid" "--grid: '0x16'" ev --preset checkerboard --model cb.json --grid 0x16
bad "grid for gol" "--grid" ev --preset gol --model gol0.json --grid 8x8
bad "scale and grid" "--scale S or --grid" ev --preset checkerboard --model cb.json --scale 2 --grid 8x8
bad "gol board for a checkerboard" "--gol-board" ev --preset checkerboard --model cb.json --gol-board 8
bad "target for a checkerboard" "--target" ev --preset checkerboard --model cb.json --target x.png
bad "unknown preset" "--preset" ev --preset nosuch --model cb.json
bad "no model" "--model: missing" ev --preset gol
bad "unknown option" "--nosuch" ev --preset gol --model gol0.json --nosuch
bad "bad backend" "--backend" "$prog" --backend gpu --preset gol --model gol0.json

# An unknown device spec is bad input, where OpenCL exists at all.
"$prog" --preset gol --model gol0.json --device no-such-device-xyz >out.txt 2>err.txt
got=$?
if [ "$got" -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ]; then
  echo "ok: unknown --device (exit 2, one line)"
else
  fail "unknown --device: exit $got, expected 2 and one line"
  sed 's/^/  | /' err.txt
fi

[ "$failures" -eq 0 ] || {
  echo "$failures check(s) failed"
  exit 1
}
echo "all dlca-eval checks passed"
