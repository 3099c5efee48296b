#!/usr/bin/env bash
# GPU call 43 (2026-11-25): tests/main schedule on the H100 after its set_lr tolerance became relative
# to the lr (sweep42: 1.24e-4 at lr 0.3 against the old absolute 1e-4).
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s tests/main >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu DLCA_CL_KERNEL_PATH=$PWD/kernels-cl
timeout 120 tests/main schedule 2>&1 | grep -E "set_lr|Checks|:F:|:E:"
