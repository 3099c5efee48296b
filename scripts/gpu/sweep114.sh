#!/usr/bin/env bash
# GPU call 114 (2026-11-26): the staged tile forward's shape (TL, TWG, -DTFWD_CHUNK, groups a CU) at
# b512, and the two best at b8, b32, b128 against the shipped shape.
#     bash scripts/gpu/sweep114.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
cp $ROOT/scripts/gpu/settab.py .
cp tuning/default.json /tmp/shipped.json
tab() { cp /tmp/shipped.json tuning/default.json; [ $# -gt 0 ] && python3 settab.py "$@"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B() { n=$1 b=$2 opts=$3; shift 3; tab "$@"
  DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-cl-nv-verbose $opts" bench/dlca-bench --preset checkerboard --batch $b \
    --warmup 2 --repeats 5 --json $R/$n.json > $R/$n.out 2> $R/$n.err
  echo "$n b$b [$opts $*]: $(grep -E '^checkerboard' $R/$n.out | awk '{print $5 " ms"}'); $(grep -E 'forward_tile' $R/$n.out | tail -1 | sed 's/.*forward_tile/forward_tile/; s/, backward.*//'); $(tr '\\' '\n' < $R/$n.err | grep -A3 "entry function 'dlca_forward_tile'" | grep -o 'Used [0-9]* registers' | head -1)"; }
B base 512 "" TFWD_STAGE=1
B a 512 "-DTFWD_CHUNK=4" TWG=256
B b 512 "" TWG=256 TILE_FWD_GROUPS_PER_CU=2
B c 512 "" TWG=1024 TILE_FWD_GROUPS_PER_CU=2
B d 512 "-DTFWD_CHUNK=4" TWG=1024 TILE_FWD_GROUPS_PER_CU=2
B e 512 "" TL=8 TWG=256
B f 512 "" TL=8 TWG=512
B g 512 "" TL=8 TWG=1024 TILE_FWD_GROUPS_PER_CU=2
B h 512 "" TWG=128 TILE_FWD_GROUPS_PER_CU=8
B i 512 "-DTFWD_CHUNK=2" TWG=256
B j 512 "" TL=8 TWG=128 TILE_FWD_GROUPS_PER_CU=8
for b in 8 32 128; do
  B base-$b $b "" TFWD_STAGE=1
  B a-$b $b "-DTFWD_CHUNK=4" TWG=256
  B s0-$b $b "" TFWD_STAGE=0
done
cd $OUT && tar czf r.tgz r && rm -rf r
