#!/bin/sh
# dlca-train when a disk fails or an input lies (issue 35), on the CPU
# reference: a checkpoint that cannot be written never costs the --save
# model, a resumed --log is never left half rewritten, disk errors exit 1,
# an image header cannot ask for gigabytes, and a float option that
# overflows a float is refused. Writes fail here without root's permission
# bypass: a path under a directory that does not exist, or RLIMIT_FSIZE.

. "$(dirname "$0")/shell-lib.sh"
dlca_test_init tools/dlca-train dlca-train-disk

cb() { "$prog" --backend ref --quiet --preset checkerboard --recipe reference --steps 4 --eval-every 1 "$@"; }
gol() { "$prog" --backend ref --quiet --preset gol --seed 3 --eval-every 1 "$@"; }

# (a) the checkpoint fails at the end: --save is still written, exit 1, and
# the message names the checkpoint that failed and the model that was saved
expect 1 "last checkpoint fails" -- cb --seed 7 --epochs 3 --checkpoint nodir/c.ckpt --save a.json
[ -s a.json ] || fail "last checkpoint fails: --save a.json was not written"
grep -q 'nodir/c.ckpt' err.txt && grep -q 'saved to a.json' err.txt ||
  fail "last checkpoint fails: the message does not name both files: $(cat err.txt)"
# a periodic checkpoint fails: the run stops there, and the model is still saved
expect 1 "periodic checkpoint fails" -- cb --seed 7 --epochs 6 --checkpoint-every 2 --checkpoint nodir/c.ckpt --save b.json
[ -s b.json ] || fail "periodic checkpoint fails: --save b.json was not written"
# --save fails: the checkpoint is written all the same, and said so
expect 1 "save fails" -- cb --seed 7 --epochs 3 --checkpoint c.ckpt --save nodir/m.json
[ -s c.ckpt ] || fail "save fails: the checkpoint c.ckpt was not written"
grep -q 'c.ckpt was written' err.txt || fail "save fails: the message does not name the checkpoint: $(cat err.txt)"

# (b) a resumed --log whose rewrite fails (a file-size limit below the kept
# rows) keeps every earlier row, and the disk error exits 1, not 2
expect 0 "gol, 60 epochs" -- gol --epochs 60 --log g.csv --checkpoint-every 40 --checkpoint g.ckpt
cp g.csv g.before
[ "$(wc -c <g.csv)" -gt 2048 ] || fail "the log is too small for the test: $(wc -c <g.csv) bytes"
# gol.ckpt is the state at epoch 60; a checkpoint at 40 comes from a run to 40
expect 0 "gol, 40 epochs" -- gol --epochs 40 --checkpoint g40.ckpt
cp g.before g.csv
(
  trap '' XFSZ
  ulimit -f 1
  exec "$prog" --backend ref --quiet --preset gol --seed 3 --eval-every 1 --epochs 60 --log g.csv --resume g40.ckpt
) >out.txt 2>err.txt
got=$?
[ "$got" -eq 1 ] || fail "resumed log on a full disk: exit $got, expected 1: $(cat err.txt)"
cmp -s g.csv g.before || fail "resumed log on a full disk: the earlier rows were lost ($(wc -l <g.csv) lines left of $(wc -l <g.before))"
ls g.csv.tmp.* >/dev/null 2>&1 && fail "resumed log on a full disk: a temporary file was left behind"
# the resume without the limit keeps rows 1-40 and appends 41-60: the same file
expect 0 "resumed log" -- gol --epochs 60 --log g.csv --resume g40.ckpt
cut -d, -f1-4 g.csv >g.loss
cut -d, -f1-4 g.before | cmp -s - g.loss || fail "resumed log differs from the straight run's"

# (c) a 17-byte PBM whose header claims 10301 x 13111 pixels is a bad image
# (exit 2), refused before anything is allocated: under a 1 GB address
# space the 2.1 GB it asks for would fail as "out of memory" (exit 1)
printf 'P110301\n13111\n111' >big.pbm
(
  # not under the sanitizers: ASan reserves terabytes of address space
  [ -n "${DLCA_SANITIZER_FLAGS:-}" ] || ulimit -v 1048576
  exec "$prog" --backend ref --preset growth --target big.pbm
) >out.txt 2>err.txt
got=$?
[ "$got" -eq 2 ] || fail "17-byte PBM: exit $got, expected 2: $(cat err.txt)"
grep -q 'big.pbm' err.txt && ! grep -qi 'out of memory' err.txt || fail "17-byte PBM: $(cat err.txt)"
# a P4 header that claims more rows than the file holds
printf 'P4\n20 20\n\377\377' >short.pbm
expect 2 "short P4" -- "$prog" --backend ref --preset growth --target short.pbm
grep -q 'short.pbm' err.txt || fail "short P4: $(cat err.txt)"

# (d) a float option that is not finite as a float is refused by name
expect 2 "--lr 1e308" -- cb --epochs 1 --lr 1e308
grep -q -- '^dlca-train: --lr: 1e308' err.txt || fail "--lr 1e308: $(cat err.txt)"
expect 2 "--temperature 1e39" -- cb --epochs 1 --temperature 1e39
grep -q -- '--temperature' err.txt || fail "--temperature 1e39: $(cat err.txt)"

[ "$failures" -eq 0 ] || {
  echo "$failures check(s) failed"
  exit 1
}
echo "all dlca-train disk checks passed"
