#!/usr/bin/env bash
# GPU call 8 (2026-11-23): growth and colour under the backward's prefetch build options.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
for o in "" "-DRPF=1" "-DRPF=2" "-DRPF=4" "-DCPF=0" "-DPFLAT=0" "-DRPF=4 -DCPF=0"; do
  DLCA_CL_BUILD_OPTIONS="$o" bench/dlca-bench --preset growth,colour --batch 1 --repeats 7 --json /tmp/o.json >/dev/null 2>&1
  python3 -c "
import json; r=json.load(open('/tmp/o.json')); print('$o'.ljust(18), ' '.join('%s %.4f' % (x['preset'], x['ms_per_epoch_median']) for x in r))"
done
