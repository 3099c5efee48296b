#!/bin/sh
# An outside program against an installed prefix (issue 30): `make install`
# of this build into a DESTDIR, tests/outside/checkerboard.c compiled with
# `pkg-config --cflags --libs dlca_cl` and -Wall -Wextra -Werror, run with
# the installed library and kernels, and its result compared with
# dlca-train's for the same seed: the same summary lines, the same model.
# The CPU reference and 10 epochs keep it to seconds.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/shell-lib.sh"
dlca_test_init tools/dlca-train outside-program

command -v pkg-config >/dev/null 2>&1 || {
  echo "SKIP: no pkg-config"
  exit 77
}
cc=${CC:-cc}
dest="$tmp/dest"
# DESTDIR keeps the configured prefix in the installed files (the .pc, the
# library's own paths), as a packager's staging install does; pkg-config
# is told that the prefix now lies under $dest.
${MAKE:-make} -C "$top" install DESTDIR="$dest" >install.log 2>&1 || {
  tail -n 20 install.log
  echo "FAIL: make install DESTDIR=$dest"
  exit 1
}
pc=$(find "$dest" -name dlca_cl.pc | head -n 1)
kernels=$(find "$dest" -type d -name kernels | head -n 1)
[ -n "$pc" ] || fail "no dlca_cl.pc under $dest"
[ -n "$kernels" ] || fail "no kernels directory under $dest"
libdir=$(dirname "$(dirname "$pc")")
PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
prefix=$(pkg-config --variable=prefix dlca_cl)
flags=$(pkg-config --define-variable=prefix="$dest$prefix" --cflags --libs dlca_cl) ||
  fail "pkg-config --cflags --libs dlca_cl failed"
case "$flags" in *"-I$dest"*"-L$dest"* | *"-L$dest"*"-I$dest"*) ;; *) fail "pkg-config does not point into $dest: $flags" ;; esac
# shellcheck disable=SC2086 # the flags are words
expect 0 "compile against the installed prefix" -- \
  # under scripts/run-sanitizers.sh the library is instrumented, so the program is too
  $cc -Wall -Wextra -Werror ${DLCA_SANITIZER_FLAGS:-} -o outside "$here/outside/checkerboard.c" $flags
[ -x outside ] || {
  echo "$failures check(s) failed"
  exit 1
}

LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" DLCA_CL_KERNEL_PATH="$kernels"
export LD_LIBRARY_PATH DLCA_CL_KERNEL_PATH
# the program must run on the installed library, not the build tree's
ldd ./outside 2>/dev/null | grep -q "$dest" || fail "outside does not load the installed library: $(ldd ./outside | grep dlca)"

seed=3 epochs=10
expect 0 "outside program, checkerboard seed $seed" -- ./outside checkerboard $seed $epochs outside.json
grep -E '^(epochs|soft loss|hard loss|hard accuracy|best hard loss):' out.txt >outside.txt
expect 0 "dlca-train, checkerboard seed $seed" -- \
  "$prog" --backend ref --preset checkerboard --seed $seed --epochs $epochs --save train.json
grep -E '^(epochs|soft loss|hard loss|hard accuracy|best hard loss):' out.txt | sed 's/ (the model below)$//' |
  sed 's/^epochs: *\([0-9]*\) (.*/epochs:         \1/' >train.txt
[ -s outside.txt ] || fail "the outside program printed no summary"
cmp -s outside.txt train.txt || {
  fail "the outside program and dlca-train disagree"
  diff outside.txt train.txt
}
cmp -s outside.json train.json || fail "the outside program's model differs from dlca-train's"
cat outside.txt

[ "$failures" -eq 0 ] || {
  echo "$failures check(s) failed"
  exit 1
}
echo "the outside program gets dlca-train's result"
