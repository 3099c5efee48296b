#!/usr/bin/env bash
# GPU call 115 (2026-11-26): does NVIDIA's OpenCL compiler take inline PTX (bar.warp.sync, shfl.sync)
# and cl_khr_subgroups' sub_group_barrier? Each is compiled into dlca_start (-DASMTEST=1..3) and run
# once; then the v26 table's checkerboard figures (b2 to b512).
#     bash scripts/gpu/sweep115.sh
set -u
ROOT=$PWD
source scripts/gpu/setup.sh || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tools/dlca-info 2>&1 | grep -io "cl_khr_subgroup[a-z_]*\|OpenCL C [0-9.]*\|cl_nv_[a-z_]*" | sort -u | tr '\n' ' '; echo
python3 - kernels-cl/trainer.cl <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
old = "__kernel void dlca_start(__global float *x, int kind, ulong key, int B, int H, int W) {\n"
assert s.count(old) == 1
s = s.replace(old, old + """#if ASMTEST == 1
  asm volatile("bar.warp.sync -1;" ::: "memory");
#elif ASMTEST == 2
  { uint y = (uint)get_global_id(0), z; asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, -1;" : "=r"(z) : "r"(y)); if (z == 12345678u) x[0] = 1.0f; }
#elif ASMTEST == 3
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
#endif
""")
s = s.replace('#include "rng.cl"', '#if ASMTEST == 3\n#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n#endif\n#include "rng.cl"', 1)
open(p, "w").write(s)
PY
for a in 1 2 3; do
  echo "ASMTEST $a: $(DLCA_CL_CACHE=0 DLCA_CL_BUILD_OPTIONS="-DASMTEST=$a" bench/dlca-bench --preset checkerboard --batch 2 --warmup 1 --repeats 1 2>&1 | grep -E '^checkerboard|rror' | head -3 | cut -c1-300)"
done
tar xzf "$ROOT/.dev/dlca_cl-0.1.0.tar.gz" --strip-components=1 --wildcards '*/kernels-cl/*'
bench/dlca-bench --preset checkerboard --batch 2,8,32,128,512 --repeats 5 --json $R/cb.json > $R/cb.out 2>&1
grep -E '^checkerboard' $R/cb.out | awk '{print $1, $2, $3, $4, $5}'
cd $OUT && tar czf r.tgz r && rm -rf r
