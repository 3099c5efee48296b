#!/usr/bin/env bash
# The main job: train the checkerboard preset on the best OpenCL device found
# (a GPU if there is one, else PoCL on the CPU). Extra arguments go to
# dlca-train, e.g. --epochs 1000 --seed 3 --log run.csv --save model.json.
# The built tree's library finds the kernels, and the shipped tuning table
# beside them (tuning/), only through DLCA_CL_KERNEL_PATH.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/build.sh"
cd "$top/build"
DLCA_CL_KERNEL_PATH="${DLCA_CL_KERNEL_PATH:-$top/kernels-cl}" exec ./tools/dlca-train --preset checkerboard "$@"
