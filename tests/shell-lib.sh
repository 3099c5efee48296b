# Shared set-up of the shell tests, sourced first thing by each:
#   . "$(dirname "$0")/shell-lib.sh"
#   dlca_test_init bench/dlca-bench dlca-bench
# It sets $prog (the tool under test, absolute) and $top (the build tree),
# skips with 77 (automake's "skipped") when the tool was not built, and
# moves into a scratch directory that is removed on exit.

dlca_test_init() {
  top="${DLCA_TOP_BUILDDIR:-.}"
  prog="$top/$1"
  if [ ! -x "$prog" ]; then
    echo "SKIP: $prog not built"
    exit 77
  fi
  case "$prog" in /*) ;; *) prog="$PWD/$prog" top="$PWD/$top" ;; esac
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$2-test.XXXXXX") || exit 99
  trap 'rm -rf "$tmp"' EXIT
  cd "$tmp" || exit 99
  failures=0
}

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect CODE DESCRIPTION -- COMMAND...: runs the command (stdout in out.txt,
# stderr in err.txt) and checks its exit status; on a mismatch shows both.
expect() {
  want=$1 what=$2
  shift 3
  "$@" >out.txt 2>err.txt
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$what: exit $got, expected $want"
    sed 's/^/  | /' out.txt err.txt
  else
    echo "ok: $what (exit $got)"
  fi
  return 0
}

# bad DESCRIPTION PATTERN COMMAND...: a refusal: exit 2 and exactly one
# stderr line "<tool>: ...PATTERN", the tool being $prog's name.
bad() {
  what=$1 pattern=$2
  shift 2
  expect 2 "$what" -- "$@"
  [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "^${prog##*/}: .*$pattern" err.txt ||
    fail "$what: not one ${prog##*/} line matching '$pattern': $(cat err.txt)"
}

# skip_without_platform STATUS: after a device run that exited STATUS with
# its stderr in err.txt, skip (77) the rest where there is no OpenCL
# platform, unless a check has already failed.
skip_without_platform() {
  if [ "$1" -ne 0 ] && grep -qi 'platform' err.txt; then
    echo "SKIP (the rest): no OpenCL platform"
    [ "$failures" -eq 0 ] || exit 1
    exit 77
  fi
}
