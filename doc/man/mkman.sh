#!/bin/sh
# mkman.sh PROGRAM OUTPUT: the man page of a tool, made by help2man from its
# --help and --version (doc/local.mk runs it; the pages ship in the tarball).
#
# The tools write --help as a man page reads (NAME, SYNOPSIS, DESCRIPTION,
# OPTIONS, ENVIRONMENT, EXIT STATUS, EXAMPLES, ...: headings in capitals,
# text indented by 4). help2man reads the GNU layout ("Usage:", "Options:",
# "*Section*"), so `mkman.sh --filter PROGRAM OPTION` is the program as
# help2man sees it: its --help rewritten to that layout.
set -eu

# The rewrite: NAME goes (help2man gets it as --name), SYNOPSIS becomes the
# Usage lines, an indented prose line loses its indent (a paragraph), a line
# with a tag and its text ("0    success") keeps some (a tagged paragraph),
# and an example becomes "$ command".
filter() {
  awk -v prog="$1" '
    function heading(h) {
      if (h == "NAME" || h == "SYNOPSIS" || h == "DESCRIPTION") return ""
      if (h == "OPTIONS" || h ~ / OPTIONS$/) {
        if (h == "OPTIONS") return opts++ ? "" : "Options:"
        return (opts++ ? "" : "Options:\n") substr(h, 1, 1) tolower(substr(h, 2)) ":"
      }
      if (h == "ENVIRONMENT") return "Environment:"
      if (h == "EXAMPLES") return "Examples:"
      return "*" substr(h, 1, 1) tolower(substr(h, 2)) "*"
    }
    function flush_usage(i) {
      for (i = 1; i <= nu; i++) print (i == 1 ? "Usage: " : "  or:  ") usage[i]
      if (nu) print ""
      nu = 0
    }
    /^[A-Z][A-Z ]*[A-Z]$/ {
      flush_usage()
      sect = $0
      h = heading(sect)
      if (h != "") print h
      next
    }
    sect == "NAME" { next }
    sect == "SYNOPSIS" {
      line = $0
      sub(/^ +/, "", line)
      if (line == "") next
      if (index(line, prog) == 1) usage[++nu] = line
      else usage[nu] = usage[nu] " " line
      next
    }
    sect !~ /OPTIONS$/ && /^    -/ {
      print "mkman.sh: " prog ": this line of " sect " would read as an option; rewrap it: " $0 > "/dev/stderr"
    }
    sect == "EXAMPLES" && /^    dlca-/ { print "  $ " substr($0, 5); next }
    /^    [^ -]/ && substr($0, 5) !~ /[^ ]  +[^ ]/ { print substr($0, 5); next }
    /^    / { print substr($0, 3); next }
    { print }
    END { flush_usage() }'
}

if [ "${1:-}" = --filter ]; then
  shift
  prog=$1
  case "${2:-}" in
    --help) "$prog" --help | filter "$(basename "$prog")" ;;
    *) "$prog" "$2" ;;
  esac
  exit
fi

prog=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
name=$("$prog" --help | sed -n '/^NAME$/{n;s/^ *[^ ]* - //p;q;}')
"$prog" --help | filter "$(basename "$prog")" >/dev/null # its warnings, which help2man would hide
tmp="$out.tmp$$"
${HELP2MAN:-help2man} --no-info --name="$name" --include="$here/common.h2m" \
  --output="$tmp" "${SHELL:-/bin/sh} $here/mkman.sh --filter $prog"
mv "$tmp" "$out"
