#!/bin/sh
# dlca-eval --gif on the CPU reference: the GIF is read back whole through
# giflib (tests/gifinfo) for its frame count, size, delays and loop; it is
# written atomically (an existing file keeps its mode, no temp file stays);
# bad options exit 2 with one line. In a build without giflib, --gif is
# refused with a message that says so.
# Exit 77 (automake's "skipped") when a tool was not built.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-eval dlca-eval-gif
train="$top/tools/dlca-train"
info="$top/tests/gifinfo"
[ -x "$train" ] || { echo "SKIP: $train not built"; exit 77; }
ev() { "$prog" --backend ref "$@"; }
expect 0 "untrained growth model" -- "$train" --backend ref --quiet --preset growth --epochs 0 --save growth0.json

if [ ! -x "$info" ]; then
  expect 2 "--gif without giflib" -- ev --preset growth --model growth0.json --gif g.gif
  grep -q '^dlca-eval: --gif: this build of dlca-eval lacks giflib' err.txt || fail "no clear refusal: $(cat err.txt)"
  [ ! -e g.gif ] || fail "a GIF was written without giflib"
  [ "$failures" -eq 0 ] || exit 1
  echo "giflib not built in: the refusal checked"
  exit 0
fi

# gif_is FILE LINE: gifinfo's line for FILE is LINE.
gif_is() {
  got=$("$info" "$1" 2>&1) || fail "$1 is not a valid GIF: $got"
  [ "$got" = "$2" ] || fail "$1: '$got', expected '$2'"
}

# (a) growth, 12 steps: the start and every step (13 frames) at 12 pixels a
# cell (20x20 cells), 100 ms each, the last held for a second, looping.
expect 1 "growth --gif" -- ev --preset growth --model growth0.json --gif g.gif --json g.json
gif_is g.gif "frames 13 size 240x240 delays 10,10,10,10,10,10,10,10,10,10,10,10,100 loop yes"
grep -q '^gif: *g.gif (13 frames, every 1 step, 100 ms a frame, 12 pixels a cell)' out.txt ||
  fail "gif line: $(cat out.txt)"
grep -q '"gif": {"file": "g.gif", "frames": 13, "frame_every": 1, "delay_ms": 100, "scale": 12}' g.json ||
  fail "no gif object in --json: $(cat g.json)"
ls | grep -q '\.tmp\.' && fail "a temp file was left: $(ls)"

# (b) --frame-every, --gif-delay, --gif-scale; --png beside it; an existing
# file is replaced and keeps its mode.
echo old >g2.gif
chmod 640 g2.gif
expect 1 "growth --gif with options" -- ev --preset growth --model growth0.json --gif g2.gif --frame-every 5 \
  --gif-delay 250 --gif-scale 3 --png g2.png
gif_is g2.gif "frames 4 size 60x60 delays 25,25,25,100 loop yes"
[ "$(stat -c %a g2.gif)" = 640 ] || fail "the replaced GIF lost its mode: $(stat -c %a g2.gif)"
[ "$(head -c 4 g2.png | tail -c 3)" = PNG ] || fail "--png beside --gif wrote no PNG"

# (c) colour (RGB frames): an untrained circuit keeps the all-black start, 15 steps.
expect 0 "untrained colour model" -- "$train" --backend ref --quiet --preset colour --epochs 0 --save colour0.json
expect 1 "colour --gif" -- ev --preset colour --model colour0.json --gif c.gif --gif-delay 40
gif_is c.gif "frames 16 size 256x256 delays 4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,100 loop yes"

# (d) gol: the --gol-board run, 10 steps on 8x8.
expect 0 "untrained gol model" -- "$train" --backend ref --quiet --preset gol --epochs 0 --save gol0.json
expect 1 "gol --gif" -- ev --preset gol --model gol0.json --gol-board 8 --steps 10 --gif l.gif
gif_is l.gif "frames 11 size 256x256 delays 10,10,10,10,10,10,10,10,10,10,100 loop yes"

# (e) bad input: one line, exit 2, nothing written.
bad "gol --gif without a board" "--gif: for gol, the picture is of --gol-board N" \
  ev --preset gol --model gol0.json --gif x.gif
bad "--gif-scale without --gif" "--gif-scale: only with --gif" ev --preset growth --model growth0.json --gif-scale 4
bad "--gif-delay too short" "--gif-delay" ev --preset growth --model growth0.json --gif x.gif --gif-delay 5
bad "--gif-scale too large for the grid" "more than 8192 pixels a side" \
  ev --preset gol --model gol0.json --gol-board 1024 --steps 1 --gif x.gif --gif-scale 16
[ ! -e x.gif ] || fail "a refused --gif wrote x.gif"

# (f) an unwritable place: a runtime failure (exit 1) naming the file;
# --png goes through the same atomic writer (tools/outfile.c).
expect 1 "--gif into a missing directory" -- ev --preset growth --model growth0.json --gif no/such/dir/g.gif
grep -q '^dlca-eval: --gif no/such/dir/g.gif: cannot create a temporary file beside it' err.txt ||
  fail "unwritable --gif: $(cat err.txt)"
expect 1 "--png into a missing directory" -- ev --preset growth --model growth0.json --png no/such/dir/g.png
grep -q '^dlca-eval: --png no/such/dir/g.png: cannot create a temporary file beside it' err.txt ||
  fail "unwritable --png: $(cat err.txt)"

[ "$failures" -eq 0 ] || {
  echo "$failures check(s) failed"
  exit 1
}
echo "all dlca-eval --gif checks passed"
