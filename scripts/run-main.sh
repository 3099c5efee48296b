#!/usr/bin/env bash
# The main job: train the checkerboard preset on the best OpenCL device found
# (a GPU if there is one, else PoCL on the CPU). Extra arguments go to
# dlca-train, e.g. --epochs 1000 --seed 3 --log run.csv --save model.json.
# With --python [OUTDIR] it runs python/examples/train_checkerboard.py
# instead: the same training from the Python binding, then the loss curve
# (OUTDIR/checkerboard-loss.png) and a rollout GIF (checkerboard-rollout.gif).
# The built tree's library finds the kernels, and the shipped tuning table
# beside them (tuning/), only through DLCA_CL_KERNEL_PATH.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-.}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
"$top/scripts/build.sh"
cd "$top/build"
export DLCA_CL_KERNEL_PATH="${DLCA_CL_KERNEL_PATH:-$top/kernels-cl}"
if [ "${1:-}" = --python ]; then
  py=$(sed -n 's/^PYTHON = //p' Makefile)
  export DLCA_CL_LIBRARY="$PWD/.libs/libdlca_cl.so" PYTHONPATH="$top/python${PYTHONPATH:+:$PYTHONPATH}"
  exec "${py:-python3}" "$top/python/examples/train_checkerboard.py" "$out"
fi
exec ./tools/dlca-train --preset checkerboard "$@"
