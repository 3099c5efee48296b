/* The forward and backward steps of trainer.cl shaped for CPU devices
 * (PoCL): SIMD across cells instead of threads across gates. All cells share
 * one circuit and one wiring, so one work-item runs VEC cells at once, each
 * activation being a floatVEC with one lane per cell, and a gate is
 * c0 + c1 a + c2 b + c3 a b on whole vectors. A work-group is one work-item
 * and loops over chunks of VEC cells (chunk i = cells i VEC .. i VEC + VEC - 1
 * for i = group, group + groups, ...), with no barriers; its activations
 * live in its slot of a global scratch buffer (plain memory on a CPU).
 * Loops stay rolled, so that each model's program builds in seconds.
 *
 * Semantics are those of dlca_forward and dlca_backward in trainer.cl
 * (spec/dlca.md sections 1-4; doc/kernels.md), and the host (lib/cl/
 * cl_trainer.c) passes them the same arguments, then the scratch buffer.
 * Same -D shape options as trainer.cl. CPU twin: lib/ref/forward.c and
 * lib/ref/backward.c (layer_backward, cell_backward). */
#include "grid.cl"

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
/* one perception stack as a flat list of gates (host: build()): gate q reads
 * x[P_XA[q]], x[P_XB[q]], writes x[9 + q], coefficient P_CO[q] + k P_CG[q];
 * P_BQ is the backward order */
__constant int PXA[PG1] = {P_XA}, PXB[PG1] = {P_XB}, PCO[PG1] = {P_CO}, PCG[PG1] = {P_CG}, PBQ[PG1] = {P_BQ};

/* The gate sums in `partial`, as dlca_adamw reads them: perception
 * [K][PG1][4] (summed over channels), then update [NGU][4]. */
#define ACC_PERC (K * PG1 * 4)
#define ACC_STRIDE (ACC_PERC + NGU * 4)

/* One group's scratch, in floatV units (the host sizes it: cpu_scratch_floats
 * in lib/cl/cl_trainer.c): the update input and every update layer's outputs,
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

/* spec section 1, in the order of gate_eval in trainer.cl */
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

/* Adds a gate's 4 sums d, d a, d b, d a b (spec section 1), lane by lane, to
 * its accumulators acc[0..3]. */
inline void add_sums(__global floatA *acc, floatV d, floatV a, floatV b) {
  const floatV da = d * a;
  acc[0] += to_acc(d), acc[1] += to_acc(da), acc[2] += to_acc(d * b), acc[3] += to_acc(da * b);
}

/* patch[f C + c], lane j = channel c of the neighbour f = 3 dr + dq of cell
 * base + j (spec section 3.1); lanes past the last cell read 0. */
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
inline void perceive(__global const float4 *coef, __global const floatV *patch, int c, int k, XSPACE floatV *x) {
PUNROLL
  for (int f = 0; f < 9; f++) x[f] = patch[f * C + c];
PUNROLL
  for (int q = 0; q < PG1; q++) x[9 + q] = gate_v(coef[PCO[q] + k * PCG[q]], x[PXA[q]], x[PXB[q]]);
}

/* The circuit of the chunk's cells: scratch patch -> act[UTOTAL] (the update
 * input, spec section 3.3, and every update layer's outputs). */
inline void cell_forward(__global const float4 *coef, __global const int *wires, __global floatV *s) {
  __global floatV *act = s + SCR_ACT;
#if PPRIV
  floatV x[PTOT];
#else
  __global floatV *x = s + SCR_X;
#endif
  __global const floatV *patch = s + SCR_PATCH;
  for (int c = 0; c < C; c++) act[c] = patch[4 * C + c];
  for (int c = 0; c < C; c++)
    for (int k = 0; k < K; k++) {
      perceive(coef, patch, c, k, x);
      /* spec section 3.2: output s of kernel k on channel c at C + c*(S*K) + s*K + k */
PUNROLL
      for (int o = 0; o < S; o++) act[C + c * S * K + o * K + k] = x[PTOT - S + o];
    }
  int ao = 0, wo = 2 * PG1, go = NGP;
  for (int l = 0; l < NU; l++) {
    const int n = US[l], G = US[l + 1];
    __global const floatV *in = act + ao;
    __global floatV *out = act + ao + n;
    __global const int *wa = wires + wo, *wb = wires + wo + G;
    __global const float4 *cf = coef + go;
    for (int g = 0; g < G; g++) out[g] = gate_v(cf[g], in[wa[g]], in[wb[g]]);
    ao += n, wo += 2 * G, go += G;
  }
}

/* One forward step: states at step t (cur) -> step t + 1 (nxt). */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void dlca_forward_cpu(
    __global const float *cur_base, ulong cur_off, __global float *nxt_base, ulong nxt_off,
    __global const float4 *coef, __global const int *wires, __global const uchar *masks, int use_masks,
    ulong mask_key, float rate, int t, int B, int H, int W, __global float *scratch) {
  const int grp = get_group_id(0), ngr = get_num_groups(0), cells = B * H * W;
  const int chunks = (cells + VEC - 1) / VEC;
  __global const float *cur = cur_base + cur_off;
  __global float *nxt = nxt_base + nxt_off;
  __global floatV *s = (__global floatV *)scratch + (size_t)grp * SCR_SIZE;
  __global const float *y = (__global const float *)(s + SCR_ACT + UTOTAL - C);
  __global const float *centre = (__global const float *)(s + SCR_PATCH + 4 * C);
  for (int ch = grp; ch < chunks; ch += ngr) {
    const int base = ch * VEC;
    load_patch(cur, base, cells, H, W, (__global float *)(s + SCR_PATCH));
    cell_forward(coef, wires, s);
    for (int j = 0; j < VEC && base + j < cells; j++) {
      /* an async cell that did not fire keeps its state (spec section 3) */
      const int fired = fires(masks, use_masks, mask_key, rate, t, cells, base + j);
      __global const float *src = fired ? y : centre;
      for (int c = 0; c < C; c++) nxt[(size_t)(base + j) * C + c] = src[c * VEC + j];
    }
  }
}

/* dL/d(state_{t+1}) of the chunk's cells into g_cur and (times the fire mask
 * of step t, 0 past the last cell) into dout: at the top 2 (s_T - y) on the
 * loss channels, else the sum of the 9 neighbours' dP_{t+1} entries that
 * read the cell, plus g_{t+2} for an async cell that did not fire at t + 1
 * (the gather of step t + 1, fused as in dlca_backward). Adds the loss. */
inline float chunk_dout(__global const float *state_T, __global const float *target, __global const float *g_next,
                        __global float *g_cur, __global const float *dP_next, __global const uchar *masks,
                        int use_masks, ulong mask_key, float rate, int t, int top, int base, int B, int H, int W,
                        __global float *dout) {
  const int cells = B * H * W;
  float loss = 0.0f;
  for (int j = 0; j < VEC; j++) {
    const int cell = base + j;
    if (cell >= cells) {
      for (int c = 0; c < C; c++) dout[c * VEC + j] = 0.0f;
      continue;
    }
    const float fired = fires(masks, use_masks, mask_key, rate, t, cells, cell) ? 1.0f : 0.0f;
    __global float *g = g_cur + (size_t)cell * C;
    if (top) {
      for (int c = 0; c < C; c++) {
        const size_t k = (size_t)cell * C + c;
        float d = 0.0f;
        for (int i = 0; i < NLOSS; i++)
          if (LOSS[i] == c) {
            const float e = state_T[k] - target[k];
            d = 2.0f * e;
            loss += e * e;
          }
        g[c] = d;
      }
    } else {
      for (int c = 0; c < C; c++)
        g[c] = gathered_grad(dP_next, g_next, masks, use_masks, mask_key, rate, t, cells, cell, c, H, W);
    }
    /* a cell that did not fire at step t runs its circuit with dout = 0,
     * which adds exact zeros */
    for (int c = 0; c < C; c++) dout[c * VEC + j] = g[c] * fired;
  }
  return loss;
}

/* Backward through the update layers, last to first, as layer_backward in
 * lib/ref/backward.c: gate by gate, the 4 sums, and d (c1 + c3 b) to input a,
 * d (c2 + c3 a) to input b (c from dcoef). Layer l reads its output
 * gradients from dact row (l + 1) & 1 and writes its input gradients to row
 * l & 1; the update input's gradient ends in row 0. */
inline void update_backward(__global const float4 *dcoef, __global const int *wires, __global floatV *s,
                            __global floatA *acc) {
  __global const floatV *act = s + SCR_ACT, *dout = s + SCR_DOUT;
  __global floatV *dact = s + SCR_DACT;
  for (int c = 0; c < C; c++) dact[(NU & 1) * DW + c] = dout[c];
  int ao = UTOTAL - C, go = NGU, wo = 2 * PG1 + 2 * NGU;
  for (int l = NU - 1; l >= 0; l--) {
    const int n = US[l], G = US[l + 1];
    ao -= n, go -= G, wo -= 2 * G;
    __global const floatV *in = act + ao, *dg = dact + ((l + 1) & 1) * DW;
    __global floatV *di = dact + (l & 1) * DW;
    __global const int *wa = wires + wo, *wb = wires + wo + G;
    __global const float4 *cf = dcoef + NGP + go;
    for (int i = 0; i < n; i++) di[i] = (floatV)(0.0f);
    for (int g = 0; g < G; g++) {
      const floatV d = dg[g];
      const int ia = wa[g], ib = wb[g];
      const floatV a = in[ia], b = in[ib];
      const float4 c = cf[g];
      add_sums(acc + ACC_PERC + (go + g) * 4, d, a, b);
      di[ia] += d * (c.y + c.w * b);
      di[ib] += d * (c.z + c.w * a);
    }
  }
}

/* Backward through the perception stacks (recomputed), from the update
 * input's gradient (dact row 0), into dpatch[9 C]: the centre's own
 * channels first, then each kernel's stack in order. */
inline void perceive_backward(__global const float4 *coef, __global const float4 *dcoef, __global floatV *s,
                              __global floatA *acc) {
  __global const floatV *duin = s + SCR_DACT, *patch = s + SCR_PATCH;
  __global floatV *dpatch = s + SCR_DPATCH;
#if PPRIV
  floatV x[PTOT], dx[PTOT];
#else
  __global floatV *x = s + SCR_X, *dx = s + SCR_DX;
#endif
  for (int i = 0; i < 9 * C; i++) dpatch[i] = (floatV)(0.0f);
  for (int c = 0; c < C; c++) dpatch[4 * C + c] = duin[c];
  for (int c = 0; c < C; c++)
    for (int k = 0; k < K; k++) {
      perceive(coef, patch, c, k, x);
PUNROLL
      for (int i = 0; i < PTOT - S; i++) dx[i] = (floatV)(0.0f);
PUNROLL
      for (int o = 0; o < S; o++) dx[PTOT - S + o] = duin[C + c * S * K + o * K + k];
PUNROLL
      for (int r = 0; r < PG1; r++) {
        const int q = PBQ[r];
        const floatV d = dx[9 + q];
        const int ia = PXA[q], ib = PXB[q];
        const floatV a = x[ia], b = x[ib];
        const float4 cf = dcoef[PCO[q] + k * PCG[q]];
        add_sums(acc + (k * PG1 + q) * 4, d, a, b);
        dx[ia] += d * (cf.y + cf.w * b);
        dx[ib] += d * (cf.z + cf.w * a);
      }
PUNROLL
      for (int f = 0; f < 9; f++) dpatch[f * C + c] += dx[f];
    }
}

/* One backward step t, fused with the gather of step t + 1 (dlca_backward in
 * trainer.cl; the same arguments, then the scratch; rev is not used). Each
 * group keeps its gate sums lane by lane in its scratch through the T
 * launches of an epoch (cleared at the top, t = T - 1) and, at t = 0, adds
 * their lane sums to its slot of `partial`: a fixed order, no atomics, so
 * the same seed gives bitwise the same sums. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void dlca_backward_cpu(
    __global const float *states, ulong t_off, ulong T_off, __global const float *target,
    __global const float *g_next, __global float *g_cur, __global const float *dP_next, __global float *dP_cur,
    __global const float4 *coef, __global const float4 *dcoef, __global const int *wires, __global const int2 *rev,
    __global float *partial, __global float *loss_partial, __global const uchar *masks, int use_masks,
    ulong mask_key, float rate, int t, int top, int B, int H, int W, __global float *scratch) {
  (void)rev;
  const int grp = get_group_id(0), ngr = get_num_groups(0), cells = B * H * W;
  const int chunks = (cells + VEC - 1) / VEC;
  __global const float *state_t = states + t_off, *state_T = states + T_off;
  __global floatV *s = (__global floatV *)scratch + (size_t)grp * SCR_SIZE;
  __global floatA *acc = (__global floatA *)(s + SCR_ACC);
  if (top)
    for (int i = 0; i < ACC_STRIDE; i++) acc[i] = (floatA)(0.0f);
  __global const float *dpatch = (__global const float *)(s + SCR_DPATCH);
  float loss = 0.0f;
  for (int ch = grp; ch < chunks; ch += ngr) {
    const int base = ch * VEC;
    loss += chunk_dout(state_T, target, g_next, g_cur, dP_next, masks, use_masks, mask_key, rate, t, top, base, B,
                       H, W, (__global float *)(s + SCR_DOUT));
    /* recompute the chunk's circuits at step t (coef: the forward set) */
    load_patch(state_t, base, cells, H, W, (__global float *)(s + SCR_PATCH));
    cell_forward(coef, wires, s);
    update_backward(dcoef, wires, s, acc);
    perceive_backward(coef, dcoef, s, acc);
    for (int j = 0; j < VEC && base + j < cells; j++)
      for (int i = 0; i < 9 * C; i++) dP_cur[(size_t)(base + j) * 9 * C + i] = dpatch[i * VEC + j];
  }
  if (t == 0) {
    /* the layout dlca_adamw reads: perception [K][PG1][4], then update [NGU][4] */
    __global float *mine = partial + (size_t)grp * ACC_STRIDE;
    for (int i = 0; i < ACC_STRIDE; i += 4)
      vstore4(vload4(0, mine + i) + lane_sums(acc[i], acc[i + 1], acc[i + 2], acc[i + 3]), 0, mine + i);
  }
  if (top) loss_partial[grp] = loss;
}
