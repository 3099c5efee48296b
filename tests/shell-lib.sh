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
