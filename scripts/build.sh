#!/usr/bin/env bash
# Configures and builds libdlca_cl in build/ (out of tree), after deps.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
cd "$top"
[ -x configure ] || autoreconf -fi >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure -q
make -j"$(nproc)" -s
