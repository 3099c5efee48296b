#!/bin/sh
# End-to-end checks of tools/dlca-train on the CPU reference, small enough
# for CI (a few seconds on 2 cores): help and version, same seed same
# losses, resume equals an uninterrupted run, and exit 2 on bad input.
# Exit 77 (automake's "skipped") when the tool was not built.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-train dlca-train

# A tiny checkerboard: 4 CA steps instead of 20, one hard evaluation per
# epoch, the paper's protocol (the preset's recommended recipe is tested below).
cb() { "$prog" --backend ref --quiet --preset checkerboard --recipe reference --steps 4 --eval-every 1 "$@"; }
losses() { cut -d, -f1-4 "$1"; }

# (a) help and version
expect 0 "--help" -- "$prog" --help
grep -q -- "--preset" out.txt || fail "--help does not describe --preset"
expect 0 "--version" -- "$prog" --version
grep -q '[0-9]\.[0-9]' out.txt || fail "--version prints no version: $(cat out.txt)"

# (b) the same seed gives the same loss columns
expect 0 "run A, seed 7" -- cb --seed 7 --epochs 6 --log a.csv
expect 0 "run B, seed 7" -- cb --seed 7 --epochs 6 --log b.csv
head -n 1 a.csv | grep -qx 'epoch,soft_loss,hard_loss,hard_accuracy,epochs_per_s' || fail "CSV header: $(head -n 1 a.csv)"
[ "$(wc -l <a.csv)" -eq 7 ] || fail "a.csv has $(wc -l <a.csv) lines, expected a header and 6 rows"
losses a.csv >a.loss
losses b.csv >b.loss
cmp -s a.loss b.loss || fail "two runs with seed 7 differ"
expect 0 "run C, seed 8" -- cb --seed 8 --epochs 6 --log c.csv
losses c.csv | cmp -s - a.loss && fail "seeds 7 and 8 give identical losses"

# (c) 3 epochs, a checkpoint, then a resume to 6 equals 6 straight epochs
expect 0 "first half" -- cb --seed 7 --epochs 3 --log r.csv --checkpoint r.ckpt
expect 0 "resumed half" -- cb --seed 7 --epochs 6 --log r.csv --resume r.ckpt
losses r.csv | cmp -s - a.loss || {
  fail "resumed run differs from the straight run"
  diff a.loss r.csv
}
# A run that diverges (an absurd --lr) stops with exit 1 and says so, and the
# good checkpoint it resumed from is not overwritten with NaN.
cp r.ckpt div.ckpt
expect 1 "diverging run" -- cb --seed 7 --epochs 30 --resume div.ckpt --checkpoint div.ckpt --lr 3e38
grep -q 'diverged' err.txt || fail "diverging run: no message: $(cat err.txt)"
cmp -s r.ckpt div.ckpt || fail "diverging run: the good checkpoint was overwritten"

# The same for gol, whose boards are uploaded per epoch by the tool.
gol() { "$prog" --backend ref --quiet --preset gol --seed 3 --eval-every 2 "$@"; }
expect 0 "gol straight" -- gol --epochs 8 --log g1.csv
expect 0 "gol first half" -- gol --epochs 4 --checkpoint g.ckpt --log g2.csv
expect 0 "gol resumed" -- gol --epochs 8 --resume g.ckpt --log g2.csv
losses g1.csv >g1.loss
losses g2.csv | cmp -s - g1.loss || fail "gol: resumed run differs from the straight run"

# SIGTERM (like Ctrl-C) stops after the epoch, saves a checkpoint, exits 130.
# The signal waits for the first log row, so the handler is installed.
# (Not through cb: $! must be the tool itself, not a subshell.)
"$prog" --backend ref --quiet --preset checkerboard --steps 4 --eval-every 1 --seed 7 --epochs 1000000 \
  --log int.csv --checkpoint int.ckpt 2>int.err &
pid=$!
rows() { if [ -f int.csv ]; then wc -l <int.csv; else echo 0; fi; }
# waits (at most 30 s) for the log's first row: the handler is installed by then
first_row() {
  tries=0
  while [ "$(rows)" -lt 2 ] && [ $tries -lt 300 ]; do
    sleep 0.1
    tries=$((tries + 1))
  done
}
first_row
kill -TERM $pid
wait $pid
got=$?
[ "$got" -eq 130 ] || fail "SIGTERM: exit $got, expected 130"
[ -s int.ckpt ] || fail "SIGTERM: no checkpoint written"
grep -q 'checkpoint saved to int.ckpt' int.err || fail "SIGTERM: no notice: $(cat int.err)"
expect 0 "resume after SIGTERM" -- cb --seed 7 --epochs 6 --resume int.ckpt
# The same request twice within half a second (timeout(1) signals the tool,
# then its process group, and a busy process's threads can take both) is
# one: the run still ends with its summary. A growth epoch on the CPU takes
# longer than the 0.05 s between them, so the second comes while it stops.
rm -f int.csv
"$prog" --backend ref --preset growth --eval-every 1 --epochs 1000000 --log int.csv >int.out 2>int.err &
pid=$!
first_row
kill -TERM $pid
sleep 0.05
kill -TERM $pid
wait $pid
got=$?
[ "$got" -eq 130 ] || fail "SIGTERM twice: exit $got, expected 130"
grep -q '^wall time:' int.out || fail "SIGTERM twice: no summary: $(cat int.out int.err)"

# Issue 6: a cooldown schedule with early stop, --keep-best and a fresh
# evaluation; the summary describes the saved model's circuit.
expect 0 "cooldown, early stop, keep-best, eval-fresh" -- "$prog" --backend ref --preset gol --seed 3 --epochs 20 \
  --eval-every 5 --lr-schedule cooldown --early-stop 2 --keep-best --eval-fresh 2 --save best.json
grep -q '^active gates: *[0-9][0-9]* of [0-9]' out.txt || fail "no active-gate count in the summary: $(cat out.txt)"
grep -q '^gate histogram:' out.txt || fail "no gate histogram in the summary"
grep -q '^fresh accuracy:' out.txt || fail "no fresh accuracy in the summary"
grep -q 'keep-best' out.txt || fail "the summary does not say the best logits were saved"
[ -s best.json ] || fail "--keep-best --save wrote no model"
# --reference-protocol is --recipe reference, and for a preset without a
# recommended recipe it is the default: the same losses.
expect 0 "reference protocol" -- cb --seed 7 --epochs 6 --log p.csv --reference-protocol
expect 0 "recipe reference" -- cb --seed 7 --epochs 6 --log q.csv --recipe reference
losses p.csv >p.loss
losses q.csv | cmp -s - p.loss || fail "--reference-protocol differs from --recipe reference"
losses p.csv | cmp -s - a.loss || fail "--reference-protocol differs from --recipe reference's run"
# the checkerboard's recommended recipe: temperature 2, Gumbel noise 0.5,
# cooldown, the preset's batch 2; options on the command line win
expect 0 "checkerboard's recommended recipe" -- "$prog" --backend ref --preset checkerboard --steps 2 --epochs 1
grep -q '^recipe: *recommended for checkerboard: temperature 2, Gumbel noise 0.5' out.txt ||
  fail "checkerboard default is not the recipe: $(cat out.txt)"
grep -q 'batch 2,' err.txt || fail "the recipe does not train the preset's batch 2: $(cat err.txt)"
grep -q '^lr: *cooldown' out.txt || fail "the recipe has no cooldown: $(cat out.txt)"
expect 0 "recipe with --batch 4" -- "$prog" --backend ref --preset checkerboard --steps 2 --epochs 1 --batch 4
grep -q 'batch 4,' err.txt || fail "--batch 4 does not override the recipe: $(cat err.txt)"
# gol has a recommended recipe: the default says so, the reference protocol turns it off
expect 0 "gol's recommended recipe" -- "$prog" --backend ref --preset gol --epochs 2 --eval-every 1
grep -q '^recipe: *recommended for gol: temperature 2' out.txt || fail "gol default is not the recipe: $(cat out.txt)"
expect 0 "gol reference protocol" -- "$prog" --backend ref --preset gol --epochs 2 --eval-every 1 --reference-protocol
grep -q "^recipe: *the paper's" out.txt || fail "--reference-protocol still relaxes: $(cat out.txt)"
expect 2 "recipe recommended with reference protocol" -- "$prog" --backend ref --preset gol --epochs 1 \
  --recipe recommended --reference-protocol
expect 2 "unknown recipe" -- "$prog" --backend ref --preset gol --epochs 1 --recipe fancy
# --restarts: a circuit that is wrong on fresh grids trains again with seed + 1000 k, at most N times
expect 0 "restarts" -- "$prog" --backend ref --preset checkerboard --steps 2 --epochs 2 --restarts 2 --eval-fresh 1 \
  --seed 5 --save re.json --log re.csv
grep -v '^wall time' out.txt >re.out
# the chain's own lines, less their times
chain_lines() { grep -E 'restart [0-9]+ of|none of the|right on every' "$1" | sed 's/ in [^,]*, [0-9.]* s a run,/,/'; }
chain_lines err.txt >re.chain
grep -q 'restart 1 of 2 with seed 1005' err.txt || fail "--restarts: no first restart: $(cat err.txt)"
grep -q 'restart 2 of 2 with seed 2005' err.txt || fail "--restarts: no second restart: $(cat err.txt)"
grep -q 'none of the 3 runs' err.txt || fail "--restarts: no final word: $(cat err.txt)"
[ -s re.json ] || fail "--restarts: the last run's model was not saved"
expect 2 "restarts with resume" -- cb --epochs 2 --restarts 1 --resume r.ckpt
# --restart-from K: the chain goes on at run K (seed + 1000 K)
expect 0 "restart-from" -- "$prog" --backend ref --preset checkerboard --steps 2 --epochs 2 --restarts 1 \
  --restart-from 3 --eval-fresh 1 --seed 5
grep -q 'restart 4 of 4 with seed 4005' err.txt || fail "--restart-from: no restart at run 4: $(cat err.txt)"
grep -q 'none of the 2 runs .*seed 4005' err.txt || fail "--restart-from: no final word: $(cat err.txt)"
expect 2 "restart-from without restarts" -- "$prog" --backend ref --preset checkerboard --epochs 1 --restart-from 2
# --jobs N: the runs of the chain side by side in child processes; the same
# summaries, files and final word as the chain one by one (tests/test_jobs.c
# checks the order and the stop where a run is right)
expect 0 "restarts, jobs 3" -- "$prog" --backend ref --preset checkerboard --steps 2 --epochs 2 --restarts 2 \
  --eval-fresh 1 --seed 5 --save rj.json --log rj.csv --jobs 3
cmp -s re.json rj.json || fail "--jobs 3: the model differs from the chain's one by one"
losses re.csv >re.loss
losses rj.csv >rj.loss
cmp -s re.loss rj.loss || fail "--jobs 3: the log differs"
grep -v '^wall time' out.txt | sed 's/rj\.json/re.json/; s/rj\.csv/re.csv/' | cmp -s - re.out ||
  fail "--jobs 3: the summaries differ: $(grep -v '^wall time' out.txt | diff - re.out)"
grep -q 'restart 2 of 2 with seed 2005' err.txt || fail "--jobs 3: no second restart: $(cat err.txt)"
chain_lines err.txt | cmp -s - re.chain || fail "--jobs 3: the chain's lines differ: $(chain_lines err.txt | diff - re.chain)"
grep -q 'none of the 3 runs' err.txt || fail "--jobs 3: no final word: $(cat err.txt)"
ls rj.*.run* >/dev/null 2>&1 && fail "--jobs 3: run files left: $(ls rj.*.run*)"
expect 2 "jobs without restarts" -- "$prog" --backend ref --preset checkerboard --epochs 1 --jobs 2
expect 2 "jobs 0" -- "$prog" --backend ref --preset checkerboard --epochs 1 --restarts 1 --jobs 0
# --repair on the packed-bits circuit, then --evolve: gol's 512 boards, so
# that a search has something to fix; the same seed gives the same circuit
# on 1 thread and on 2 (the draws do not depend on the threads)
evo() { "$prog" --backend ref --preset gol --seed 3 --epochs 20 --eval-every 10 --repair 1 --evolve 40 \
  --evolve-lineages 8 "$@"; }
export OMP_NUM_THREADS=1
expect 0 "repair and evolve, 1 thread" -- evo --save evo1.json
grep -q '^repair: .* on packed bits' out.txt || fail "--repair: not on packed bits: $(cat out.txt)"
grep -q '^evolve: .* 8 lineages x 4' out.txt || fail "--evolve: no summary line: $(cat out.txt)"
sed -n 's/^evolve: *\([0-9]* -> [0-9]*\).*/\1/p' out.txt >evo1.txt
export OMP_NUM_THREADS=2
expect 0 "repair and evolve, 2 threads" -- evo --save evo2.json
sed -n 's/^evolve: *\([0-9]* -> [0-9]*\).*/\1/p' out.txt | cmp -s - evo1.txt || fail "--evolve: 1 and 2 threads differ"
cmp -s evo1.json evo2.json || fail "--evolve: the saved circuits of 1 and 2 threads differ"
unset OMP_NUM_THREADS
expect 2 "evolve-lineages 0" -- evo --evolve-lineages 0
# --evolve-max-wrong: a circuit with more values wrong is left as it is
expect 0 "evolve-max-wrong" -- evo --repair 0 --evolve-max-wrong 0
grep -q '^evolve: *not run: [1-9][0-9]* values wrong, more than --evolve-max-wrong 0' out.txt ||
  fail "--evolve-max-wrong: evolution ran: $(cat out.txt)"
# --repair-max-wrong: likewise for the repair
expect 0 "repair-max-wrong" -- evo --repair-max-wrong 0 --evolve 0
grep -q '^repair: *not run: [1-9][0-9]* values wrong, more than --repair-max-wrong 0' out.txt ||
  fail "--repair-max-wrong: the repair ran: $(grep '^repair' out.txt)"
expect 0 "repair-max-wrong, large" -- evo --repair-max-wrong 100000 --evolve 0
grep -q '^repair: *[0-9]* -> [0-9]* of [0-9]* values wrong' out.txt || fail "--repair-max-wrong 100000: $(grep '^repair' out.txt)"
expect 2 "repair-max-wrong negative" -- evo --repair-max-wrong -1
# --rescale-logits: the same hard circuit, softer; with --keep-best the start
# is a candidate, so going on from it never saves a worse circuit
gol() { "$prog" --backend ref --preset gol --seed 3 --eval-every 5 "$@"; }
hard_of() { sed -n 's/^hard loss: *//p' out.txt; }
expect 0 "model as saved" -- gol --model evo1.json --epochs 0
h0=$(hard_of)
expect 0 "rescale-logits 0.5" -- gol --model evo1.json --rescale-logits 0.5 --epochs 0
[ "$(hard_of)" = "$h0" ] || fail "--rescale-logits changed the hard circuit: $(hard_of) against $h0"
expect 0 "rescale-logits, keep-best" -- gol --model evo1.json --rescale-logits 0.1 --epochs 10 --keep-best
b=$(sed -n 's/^best hard loss: *\([0-9.e+-]*\) at epoch.*/\1/p' out.txt)
awk -v b="$b" -v h="$h0" 'BEGIN { exit !(b != "" && b + 0 <= h + 0) }' ||
  fail "--keep-best from --model: best $b is worse than the start's $h0"
expect 2 "rescale-logits without model" -- cb --epochs 1 --rescale-logits 0.5
expect 2 "rescale-logits 0" -- gol --model evo1.json --rescale-logits 0
expect 2 "rescale-logits overflowing" -- gol --model evo1.json --rescale-logits 1e38
grep -q 'no longer finite' err.txt || fail "--rescale-logits 1e38: $(cat err.txt)"
# a float option whose value is not finite as a float is refused by name (issue 35)
expect 2 "rescale-logits beyond a float" -- gol --model evo1.json --rescale-logits 1e300
grep -q -- '--rescale-logits: 1e300 overflows' err.txt || fail "--rescale-logits 1e300: $(cat err.txt)"
# growth's recommended recipe evolves only a circuit at most 1 value from the target
expect 0 "growth recipe" -- "$prog" --backend ref --preset growth --epochs 1 --eval-every 1 --save g1.json
grep -q '^recipe: *recommended for growth: early stop 1, keep-best, a hard evaluation every 2 epochs, repair 2 (at most 2 values wrong), evolve 1500 (at most 1 value wrong), with restarts or a population abandon 250:75,500:35,750:25,1500:10, 16 models side by side on a device' out.txt ||
  fail "growth recipe: $(grep '^recipe' out.txt)"
grep -q '^evolve: *not run: [0-9]* values wrong, more than --evolve-max-wrong 1' out.txt ||
  fail "growth recipe: evolution not gated: $(grep '^evolve' out.txt)"
grep -q '^repair: *not run: [0-9]* values wrong, more than --repair-max-wrong 2' out.txt ||
  fail "growth recipe: repair not gated: $(grep '^repair' out.txt)"
# growth's recipe abandons far runs only in a chain of --restarts
grep -q '^abandoned:' out.txt && fail "growth recipe: a single run was abandoned: $(grep '^abandoned' out.txt)"
# (an lr of 1e-9 keeps the start's nearly empty grid, above 75 cells wrong at epoch 250)
expect 0 "growth recipe in a chain" -- "$prog" --backend ref --preset growth --steps 1 --epochs 251 --eval-every 250 \
  --lr 1e-9 --evolve 0 --restarts 1 --save g2.json
[ "$(grep -c '^abandoned: *at epoch 250, the lowest hard loss [0-9]* is above 75 (--abandon 250:75)' out.txt)" -eq 2 ] ||
  fail "growth recipe, --restarts: not abandoned at 250: $(grep -i 'abandon\|^recipe' out.txt)"
# --evolve 0 turns the recipe's evolution off
expect 0 "growth recipe, --evolve 0" -- "$prog" --backend ref --preset growth --epochs 1 --eval-every 1 --evolve 0
! grep -q '^evolve:' out.txt || fail "--evolve 0: $(grep '^evolve' out.txt)"
# --evolve given evolves any circuit: the recipe's gate is for its own evolution
expect 0 "growth, --evolve given" -- "$prog" --backend ref --preset growth --model g1.json --epochs 0 --evolve 2 \
  --evolve-lineages 2 --evolve-lambda 2
grep -q '^evolve: *[0-9]* -> [0-9]* of 400 values wrong' out.txt || fail "--evolve given was gated: $(grep '^evolve' out.txt)"
# --abandon E:W: a run whose lowest hard loss is above W at epoch E stops there;
# one that never crosses its thresholds trains exactly as without it
expect 0 "abandon" -- cb --seed 7 --epochs 6 --log ab.csv --abandon 2:0
[ "$(wc -l <ab.csv)" -eq 3 ] || fail "--abandon 2:0: $(($(wc -l <ab.csv) - 1)) rows logged, expected 2"
expect 0 "abandon, never" -- cb --seed 7 --epochs 6 --log an.csv --abandon 2:1e9,4:1e9
losses an.csv | cmp -s - a.loss || fail "--abandon with thresholds never crossed changed the losses"
expect 0 "abandon, summary" -- "$prog" --backend ref --preset checkerboard --recipe reference --steps 4 \
  --eval-every 1 --seed 7 --epochs 6 --abandon 1:1e9,3:0
grep -q '^abandoned: *at epoch 3, the lowest hard loss [0-9.e+]* is above 0 (--abandon 3:0)' out.txt ||
  fail "--abandon: summary: $(grep -i aband out.txt)"
expect 0 "abandon in a chain" -- cb --seed 7 --epochs 6 --abandon 2:0 --restarts 1
grep -q 'abandoned at epoch 2: restart 1 of 1 with seed 1007' err.txt && grep -q 'none of the 2 runs .*(2 abandoned' err.txt ||
  fail "--abandon --restarts: $(cat err.txt)"
for a in 5 0:1 5:-1 5:x 5:1,3:1 5:1, 1:1,2:1,3:1,4:1,5:1,6:1,7:1,8:1,9:1; do
  expect 2 "abandon $a" -- cb --epochs 1 --abandon "$a"
done
expect 2 "abandon with the reference protocol" -- cb --epochs 1 --reference-protocol --abandon 1:0
# --eval-scale: the saved circuit on 8 fresh grids S times larger for S times the steps
expect 0 "eval-scale" -- "$prog" --backend ref --preset checkerboard --steps 2 --epochs 2 --eval-scale 2 --seed 5
grep -q '^generalisation: .* of 8192 values wrong; 8 fresh grids of 32x32, 4 steps, scale 2' out.txt ||
  fail "--eval-scale: no generalisation line: $(cat out.txt)"
expect 2 "eval-scale on gol" -- "$prog" --backend ref --preset gol --epochs 1 --eval-scale 2
grep -q 'checkerboard presets' err.txt || fail "--eval-scale on gol: $(cat err.txt)"
expect 2 "eval-scale 0" -- cb --epochs 1 --eval-scale 0
expect 2 "reference protocol with a schedule" -- cb --epochs 1 --reference-protocol --lr-schedule cosine
expect 2 "cooldown option without cooldown" -- cb --epochs 1 --plateau 5
expect 2 "unknown schedule" -- cb --epochs 1 --lr-schedule nosuch
expect 0 "warmup-cosine" -- cb --seed 7 --epochs 6 --log w.csv --lr-schedule warmup-cosine --warmup 3
losses w.csv | cmp -s - a.loss && fail "warmup-cosine gives the constant-lr losses"

# Issue 6: input-wise gates. The summary says so, the saved model is IWP and
# brings its parametrisation with it, a resume is bit for bit, and
# contradictory options are refused.
iwp() { "$prog" --backend ref --quiet --preset gol --seed 3 --eval-every 2 --param iwp "$@"; }
expect 0 "iwp: straight" -- "$prog" --backend ref --preset gol --seed 3 --eval-every 2 --param iwp --epochs 8 \
  --log i1.csv --save iwp.json
grep -q '^gates: *iwp, the input-wise parametrisation: 4 logits per gate, pass-through init z = 3' out.txt ||
  fail "iwp: the summary does not name the parametrisation: $(cat out.txt)"
grep -q "^recipe: *the paper's" out.txt || fail "iwp: gol's softmax16 recipe was applied: $(cat out.txt)"
grep -q '"parametrisation":"iwp"' iwp.json || fail "iwp: the saved model is not iwp"
expect 0 "iwp: first half" -- iwp --epochs 4 --checkpoint i.ckpt --log i2.csv
expect 0 "iwp: resumed" -- iwp --epochs 8 --resume i.ckpt --log i2.csv
losses i1.csv >i1.loss
losses i2.csv | cmp -s - i1.loss || fail "iwp: resumed run differs from the straight run"
losses i1.csv | cmp -s - g1.loss && fail "iwp and softmax16 give the same losses"
expect 0 "iwp: --model brings its parametrisation" -- "$prog" --backend ref --preset gol --model iwp.json --epochs 2
grep -q '^gates: *iwp.*from iwp.json' out.txt || fail "iwp: --model summary: $(cat out.txt)"
expect 0 "iwp: --iwp-init 5" -- iwp --epochs 0 --iwp-init 5 --save iwp5.json
grep -q '"logits":\[\[\[\[-5.0,-5.0,5.0,5.0\]' iwp5.json || fail "iwp: --iwp-init 5 is not (-5, -5, 5, 5)"
expect 2 "iwp: --param contradicts --model" -- "$prog" --backend ref --preset gol --model iwp.json --param softmax16
grep -q 'the model iwp.json is iwp' err.txt || fail "iwp: contradiction message: $(cat err.txt)"
expect 2 "iwp: softmax16 checkpoint" -- iwp --epochs 8 --resume g.ckpt
expect 2 "--iwp-init without iwp" -- "$prog" --backend ref --preset gol --iwp-init 2
expect 2 "--iwp-init 0" -- iwp --iwp-init 0
expect 2 "--iwp-init with --model" -- iwp --model iwp.json --iwp-init 2
expect 2 "unknown --param" -- "$prog" --backend ref --preset gol --param iwp4
expect 2 "iwp: no recommended recipe" -- iwp --epochs 1 --recipe recommended

# (d) bad input exits 2
expect 2 "unknown preset" -- "$prog" --backend ref --preset nosuch
expect 2 "unknown option" -- "$prog" --backend ref --preset gol --nosuch
expect 2 "bad number" -- "$prog" --backend ref --preset gol --epochs ten

# A 32x32 grey PNG, but the growth grid is 20x20.
base64 -d >wrong.png <<'EOF'
iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAAAAABWESUoAAAANklEQVR42mNgGAXkgf/4ZSGAkDxOFf//41fx/z8BFRQr+P+fJBW0cSTBcCAckoTjgnBsjlwAAFcNlGxd5i/sAAAAAElFTkSuQmCC
EOF
expect 2 "wrong-shape PNG" -- "$prog" --backend ref --preset growth --target wrong.png
grep -q '32x32 image, but the grid is 20x20' err.txt || fail "wrong-shape PNG message: $(cat err.txt)"
printf 'P1\n3 3\n0 1 0\n1 1 1\n0 1 0\n' >wrong.pbm
expect 2 "wrong-shape PBM (P1)" -- "$prog" --backend ref --preset growth --target wrong.pbm
printf 'P4\n8 2\n\377\000' >wrong4.pbm
expect 2 "wrong-shape PBM (P4)" -- "$prog" --backend ref --preset growth --target wrong4.pbm
echo 'not an image' >junk.png
expect 2 "not an image" -- "$prog" --backend ref --preset colour --target junk.png
expect 2 "missing target" -- "$prog" --backend ref --preset growth --target missing.png

head -c 100 r.ckpt >truncated.ckpt
expect 2 "truncated checkpoint" -- cb --seed 7 --epochs 6 --resume truncated.ckpt
expect 2 "missing checkpoint" -- cb --seed 7 --epochs 6 --resume missing.ckpt

expect 0 "save a 1-channel gol model" -- "$prog" --backend ref --quiet --preset gol --epochs 0 --save gol.json
expect 2 "model with the wrong channel count" -- cb --epochs 1 --model gol.json
grep -q 'channel' err.txt || fail "channel mismatch message: $(cat err.txt)"

# An unknown device spec is a usage error, where OpenCL exists at all.
"$prog" --preset checkerboard --device no-such-device-xyz --epochs 0 >out.txt 2>err.txt
got=$?
if [ "$got" -eq 2 ]; then
  echo "ok: unknown --device (exit 2)"
elif [ "$got" -eq 1 ] && grep -qi 'platform' err.txt; then
  echo "skip: unknown --device: no OpenCL platform here"
else
  fail "unknown --device: exit $got, expected 2"
  sed 's/^/  | /' err.txt
fi

# On the OpenCL device (PoCL in CI): 20 epochs twice give identical loss
# columns, and 10 epochs + a checkpoint + 10 resumed give the same as 20
# straight. Skipped where there is no OpenCL platform at all.
clcb() { "$prog" --backend cl --quiet --preset checkerboard --steps 4 --eval-every 2 --seed 5 "$@"; }
if clcb --epochs 1 >out.txt 2>err.txt; then
  expect 0 "cl: run A, 20 epochs" -- clcb --epochs 20 --log ca.csv
  expect 0 "cl: run B, 20 epochs" -- clcb --epochs 20 --log cb.csv
  losses ca.csv >ca.loss
  losses cb.csv >cb.loss
  [ "$(wc -l <ca.loss)" -eq 11 ] || fail "ca.csv has $(wc -l <ca.loss) lines, expected a header and 10 rows"
  cmp -s ca.loss cb.loss || fail "cl: two runs with one seed differ"
  expect 0 "cl: first 10 epochs" -- clcb --epochs 10 --log cr.csv --checkpoint cr.ckpt
  expect 0 "cl: 10 more, resumed" -- clcb --epochs 20 --log cr.csv --resume cr.ckpt
  losses cr.csv | cmp -s - ca.loss || {
    fail "cl: resumed run differs from the straight run"
    losses cr.csv | diff ca.loss -
  }
elif grep -qi 'platform' err.txt; then
  echo "skip: cl determinism and resume: no OpenCL platform here"
else
  fail "cl: one epoch failed: $(cat err.txt)"
fi

# (issue 32) --optimizer: adamw with the default hyperparameters is today's
# default bit for bit; sgd with momentum trains and logs, and resumes; every
# suite rule runs; a bad optimizer, hyperparameter or schedule is exit 2 and
# names the value.
expect 0 "--optimizer adamw" -- cb --seed 7 --epochs 6 --log oa.csv --optimizer adamw
losses oa.csv | cmp -s - a.loss || fail "--optimizer adamw differs from the default"
expect 0 "--optimizer sgd" -- cb --seed 7 --epochs 6 --log os.csv --optimizer sgd --lr 0.5 --momentum 0.9
[ "$(wc -l <os.csv)" -eq 7 ] || fail "os.csv has $(wc -l <os.csv) lines, expected a header and 6 rows"
losses os.csv | cmp -s - a.loss && fail "--optimizer sgd gives adamw's losses"
expect 0 "sgd, first half" -- cb --seed 7 --epochs 3 --log osr.csv --checkpoint os.ckpt --optimizer sgd --lr 0.5 --momentum 0.9
expect 0 "sgd, resumed" -- cb --seed 7 --epochs 6 --log osr.csv --resume os.ckpt --optimizer sgd --lr 0.5 --momentum 0.9
losses os.csv >os.loss
losses osr.csv | cmp -s - os.loss || fail "--optimizer sgd: the resumed run differs from the straight run"
expect 2 "sgd checkpoint into adamw" -- cb --seed 7 --epochs 6 --resume os.ckpt
grep -q "sgd" err.txt || fail "the optimizer of the checkpoint is not named: $(cat err.txt)"
for o in "adam --amsgrad" "rmsprop --centered --momentum 0.5" "adagrad --lr-decay 0.01" "sgd --momentum 0.9 --nesterov"; do
  # shellcheck disable=SC2086
  expect 0 "--optimizer $o" -- cb --seed 7 --epochs 2 --optimizer $o
done
expect 2 "--optimizer nosuch" -- cb --epochs 1 --optimizer nosuch
grep -q "'nosuch'" err.txt || fail "--optimizer nosuch is not named: $(cat err.txt)"
expect 2 "amsgrad with sgd" -- cb --epochs 1 --optimizer sgd --amsgrad
grep -q "amsgrad" err.txt || fail "amsgrad with sgd is not named: $(cat err.txt)"
expect 2 "beta2 1" -- cb --epochs 1 --optimizer adam --beta2 1
grep -q "beta2 = 1 is outside \[0, 1)" err.txt || fail "beta2 = 1 is not named with its range: $(cat err.txt)"
expect 2 "nesterov without momentum" -- cb --epochs 1 --optimizer sgd --nesterov
grep -q "nesterov" err.txt || fail "nesterov without momentum is not named: $(cat err.txt)"
expect 2 "negative eps" -- cb --epochs 1 --optimizer adam --eps -1
grep -q "eps = -1" err.txt || fail "eps = -1 is not named: $(cat err.txt)"
# the schedules of torch (closed form) and chains of them
expect 0 "step schedule" -- "$prog" --backend ref --preset gol --epochs 8 --lr-schedule step:step_size=2:gamma=0.5
grep -q "chain from 0.05, last 0.00625" out.txt || fail "step schedule: $(grep '^lr' out.txt)"
expect 0 "warm-up then cosine" -- cb --epochs 4 --lr-schedule linear:start_factor=0.1:total_iters=2,cosine@2:eta_min=0.001
expect 0 "onecycle" -- cb --epochs 4 --lr-schedule onecycle:pct_start=0.25
expect 2 "bad chain" -- cb --epochs 4 --lr-schedule linear,cosine
grep -q "@EPOCH" err.txt || fail "a chain part without its start is not explained: $(cat err.txt)"
expect 2 "bad schedule argument" -- cb --epochs 4 --lr-schedule step:gama=2
grep -q "gama" err.txt || fail "an unknown schedule argument is not named: $(cat err.txt)"

# Every error is one line that starts with the program's name.
expect 2 "one-line errors" -- "$prog" --backend ref --preset nosuch
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q '^dlca-train: ' err.txt || fail "error is not one dlca-train: line: $(cat err.txt)"

[ "$failures" -eq 0 ] || {
  echo "$failures check(s) failed"
  exit 1
}
echo "all dlca-train checks passed"
