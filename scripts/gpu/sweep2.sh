#!/usr/bin/env bash
# GPU call 2 (2026-11-23): parity and the benchmark of the WG_NARROW rule,
# BWD_GROUPS_PER_CU 1 and the FSLOTS prefetch; FPF_SLOTS=1 as the A/B.
set -u
source .dev/gpu-env.sh .dev/debs >/dev/null 2>&1
tar xzf .dev/dlca_cl-*.tar.gz -C /tmp && cd /tmp/dlca_cl-* || exit 1
./configure -q >/dev/null 2>&1 && make -j16 -s >/dev/null 2>&1 || { echo BUILD FAILED; exit 1; }
make -j16 -s tests/main >/dev/null 2>&1
export DLCA_CL_DEVICE=gpu
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== parity"
for p in checkerboard checkerboard-async growth gol colour; do tools/dlca-parity --preset $p --random 2 2>&1 | tail -1; done
for v in /tmp/refv/*.json; do :; done
timeout 200 tests/main trainer relax vectors tuning device 2>&1 | tail -2
echo "== bench default"
bench/dlca-bench --preset checkerboard --batch 1,2,8,32,128,512,1024 --repeats 5 --json $R/cb.json --markdown $R/bench.md 2>&1 | grep -E "^\| 2026" | cut -d'|' -f3,4,8,9,12
bench/dlca-bench --preset checkerboard-async,growth,colour --batch 1 --repeats 5 --json $R/oth.json --markdown $R/bench.md 2>&1 | grep -E "^\| 2026" | cut -d'|' -f3,4,8,9,12
bench/dlca-bench --preset gol --repeats 5 --json $R/gol.json --markdown $R/bench.md 2>&1 | grep -E "^\| 2026" | cut -d'|' -f3,4,8,9,12
echo "== FPF_SLOTS=1"
DLCA_CL_BUILD_OPTIONS=-DFPF_SLOTS=1 bench/dlca-bench --preset checkerboard --batch 2,512 --repeats 5 --json $R/fpf1-cb.json 2>&1 | grep -E "^\| 2026" | cut -d'|' -f3,4,8,9,12
DLCA_CL_BUILD_OPTIONS=-DFPF_SLOTS=1 bench/dlca-bench --preset checkerboard-async,growth --batch 1 --repeats 5 --json $R/fpf1-oth.json 2>&1 | grep -E "^\| 2026" | cut -d'|' -f3,4,8,9,12
echo "== b2 repeat"
bench/dlca-bench --preset checkerboard --batch 2 --repeats 20 2>&1 | grep -E "^\| 2026" | cut -d'|' -f3,4,8,9,12
echo "== colour gumbel long"
timeout 150 scripts/recipe-sweep.sh --bin tools/dlca-train --out $R/colour --save-models colour g05-10k -- --epochs 10000 --eval-every 100 --keep-best --gumbel 0.5 2>&1 | tail -5
cd $OUT && tar czf r.tgz r && rm -rf r
