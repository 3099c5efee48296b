/* trainer_cpu.cl: the vector width, the scratch layout and the helpers the
 * CPU-shaped steps share: gate sums, the patch, a perception stack. */

/* Cells per work-item: the width of every activation vector (16 was the
 * fastest on every preset on an AVX2 CPU: doc/performance.md). */
// @tunable VEC 16 8 4 | 4, 8, 16
#ifndef VEC
#define VEC 16
#endif
/* Work-groups per compute unit (host side; at most one per chunk of VEC cells). */
// @tunable CPU_GROUPS_PER_CU 2 1 4 | 1..64
#ifndef CPU_GROUPS_PER_CU
#define CPU_GROUPS_PER_CU 2
#endif

#define DLCA_CAT_(a, b) a##b
#define DLCA_CAT(a, b) DLCA_CAT_(a, b)
#define floatV DLCA_CAT(float, VEC)
#if VEC != 4 && VEC != 8 && VEC != 16
#error "VEC must be 4, 8 or 16"
#endif
/* The gate-sum accumulators are ACCW lanes wide: a gate's VEC lanes are
 * folded to ACCW (one add for VEC 16) before they are added, which halves
 * the accumulator traffic at VEC 16 and keeps each sum one AVX register. */
#if VEC > 8
#define ACCW 8
#define to_acc(v) ((v).lo + (v).hi)
#else
#define ACCW VEC
#define to_acc(v) (v)
#endif
#define floatA DLCA_CAT(float, ACCW)
#ifdef __clang__
/* float16 arguments of the helpers without AVX-512 "change the ABI": true
 * and harmless (the helpers are inlined), but PoCL would print the count. */
#pragma clang diagnostic ignored "-Wpsabi"
#endif

__constant int US[NU + 1] = {U_SIZES};
__constant int LOSS[NLOSS] = {LOSS_CH};
/* one perception stack as a flat list of gates (host: build.c, perception_options): gate q reads
 * x[P_XA[q]], x[P_XB[q]], writes x[9 + q], coefficient P_CO[q] + k P_CG[q];
 * P_BQ is the backward order */
#include "trainer/pwires.cl"
__constant int PCO[PG1] = {P_CO}, PCG[PG1] = {P_CG}, PBQ[PG1] = {P_BQ};

/* The gate sums in `partial`, as dlca_adamw reads them: perception
 * [K][PG1][4] (summed over channels), then update [NGU][4]. */
#define ACC_PERC (K * PG1 * 4)
#define ACC_STRIDE (ACC_PERC + NGU * 4)

/* One group's scratch, in floatV units (the host sizes it: cpu_scratch_floats
 * in lib/cl/trainer/footprint.c): the update input and every update layer's outputs,
 * two gradient rows (ping-pong), the patch and its gradient, the output
 * gradient, one perception stack's values and gradients (where they are not
 * private, PPRIV 0), then the gate-sum accumulators, ACC_STRIDE floatA. */
#define SCR_ACT 0
#define SCR_DACT (SCR_ACT + UTOTAL)
#define SCR_PATCH (SCR_DACT + 2 * DW)
#define SCR_DPATCH (SCR_PATCH + 9 * C)
#define SCR_DOUT (SCR_DPATCH + 9 * C)
#define SCR_X (SCR_DOUT + C)
#define SCR_DX (SCR_X + PTOT)
#define SCR_ACC (SCR_DX + PTOT)
#define SCR_SIZE (SCR_ACC + ACC_STRIDE * ACCW / VEC)

/* 1: a perception stack's values live in private arrays and its loops are
 * unrolled (the wires are compile-time tables, so every index is a
 * constant); short stacks only, to keep the build fast. */
#define PPRIV (PG1 <= 32)
#if PPRIV
#define XSPACE __private
#define PUNROLL _Pragma("unroll")
#else
#define XSPACE __global
#define PUNROLL
#endif

/* doc/semantics.md section 1, in the order of gate_eval in trainer/common.cl */
inline floatV gate_v(float4 c, floatV a, floatV b) { return c.x + c.y * a + c.z * b + c.w * a * b; }

/* (sum of the lanes of s0, of s1, of s2, of s3), in a fixed order. */
inline float4 lane_sums(floatA s0, floatA s1, floatA s2, floatA s3) {
#if ACCW == 8
  float4 q0 = s0.lo + s0.hi, q1 = s1.lo + s1.hi, q2 = s2.lo + s2.hi, q3 = s3.lo + s3.hi;
#else
  float4 q0 = s0, q1 = s1, q2 = s2, q3 = s3;
#endif
  float4 a = (float4)(q0.lo + q0.hi, q1.lo + q1.hi), b = (float4)(q2.lo + q2.hi, q3.lo + q3.hi);
  return (float4)(a.even + a.odd, b.even + b.odd);
}

/* Adds a gate's 4 sums d, d a, d b, d a b (doc/semantics.md section 1), lane by lane, to
 * its accumulators acc[0..3]. */
inline void add_sums(__global floatA *acc, floatV d, floatV a, floatV b) {
  const floatV da = d * a;
  acc[0] += to_acc(d), acc[1] += to_acc(da), acc[2] += to_acc(d * b), acc[3] += to_acc(da * b);
}

/* patch[f C + c], lane j = channel c of the neighbour f = 3 dr + dq of cell
 * base + j (doc/semantics.md section 3.1); lanes past the last cell read 0. */
inline void load_patch(__global const float *grid, int base, int cells, int H, int W, __global float *patch) {
  for (int j = 0; j < VEC; j++) {
    const int cell = base + j;
    if (cell >= cells) {
      for (int i = 0; i < 9 * C; i++) patch[i * VEC + j] = 0.0f;
      continue;
    }
    const int b = cell / (H * W), r = (cell / W) % H, q = cell % W;
    for (int f = 0; f < 9; f++) {
      int rr = r + f / 3 - 1, qq = q + f % 3 - 1;
      if (!wrap_ok(&rr, &qq, H, W)) {
        for (int c = 0; c < C; c++) patch[(f * C + c) * VEC + j] = 0.0f;
        continue;
      }
      __global const float *src = grid + (((size_t)b * H + rr) * W + qq) * C;
      for (int c = 0; c < C; c++) patch[(f * C + c) * VEC + j] = src[c];
    }
  }
}

/* Perception stack (channel c, kernel k) of the patch into x[PTOT]. */
inline void perceive(__global const float4 *coef, __global const floatV *patch, int c, int k, XSPACE floatV *x PW_DECL) {
PUNROLL
  for (int f = 0; f < 9; f++) x[f] = patch[f * C + c];
PUNROLL
  for (int q = 0; q < PG1; q++) x[9 + q] = gate_v(coef[PCO[q] + k * PCG[q]], x[PXA_(q)], x[PXB_(q)]);
}
