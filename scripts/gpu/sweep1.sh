#!/usr/bin/env bash
# GPU call 1 (2026-11-23): tuning variants of the v5.2 kernels for the small
# workloads (batch 2, growth, async) and batch 512; colour relaxation runs.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
export DLCA_CL_DEVICE=gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mk() { # name WG BWD CPG MIN FWD
  cat > /tmp/t-$1.json <<J
{"format":"dlca-tuning","version":1,"entries":[{"vendor":"NVIDIA Corporation","params":{"trainer":{"WG":$2,"FWD_GROUPS_PER_CU":$6,"BWD_GROUPS_PER_CU":$3,"CELLS_PER_GROUP":$4,"CELLS_PER_GROUP_MIN":$5}}}]}
J
}
mk base 256 2 4 2 8
mk w128b2 128 2 4 2 8
mk w128b4 128 4 4 2 8
mk w128b4m1 128 4 4 1 8
mk w128b4c2 128 4 2 1 8
mk w128b8 128 8 4 2 8
mk w64b8 64 8 4 2 8
mk w256b1 256 1 4 2 8
mk w512b1 512 1 4 2 8
for v in base w128b2 w128b4 w128b4m1 w128b4c2 w128b8 w64b8 w256b1 w512b1; do
  echo "== $v"
  DLCA_CL_TUNING=/tmp/t-$v.json timeout 120 bench/dlca-bench --preset checkerboard --batch 2,512 --repeats 5 --warmup 3 --json $OUT/sw-$v-cb.json 2>&1 | grep -E "^\| 2026|error|Error" | cut -c1-160
  DLCA_CL_TUNING=/tmp/t-$v.json timeout 120 bench/dlca-bench --preset checkerboard-async,growth --batch 1 --repeats 5 --warmup 3 --json $OUT/sw-$v-oth.json 2>&1 | grep -E "^\| 2026|error|Error" | cut -c1-160
done
python3 - <<P
import json,glob,os
for f in sorted(glob.glob(os.environ['OUT']+'/sw-*.json')):
    for r in json.load(open(f)):
        print(os.path.basename(f), r['preset'], r['batch'], r.get('status'), r.get('ms_per_epoch_median'), r.get('ms_per_epoch_min'))
P
# colour: relaxations (issue 6), 5 seeds, 3000 epochs, keep-best
for rc in "t2|--temperature 2" "t2g05|--temperature 2 --gumbel 0.5" "g05|--gumbel 0.5" "t15|--temperature 1.5"; do
  n=${rc%%|*}; o=${rc#*|}
  timeout 100 scripts/recipe-sweep.sh --bin tools/dlca-train --out $OUT/colour --save-models colour $n -- --epochs 3000 --eval-every 50 --keep-best $o 2>&1 | tail -5
done
