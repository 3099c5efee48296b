/* trainer.cl: dlca_backward_perc, the perception stacks' backward of a step
 * in a launch of its own after dlca_backward (PSPLIT); twin lib/ref/backward.c. */

#if PSPLIT
/* dlca_backward_perc's loads at a unit's start: PNL a thread, issued
 * PERC_BATCH at a time before they are stored; by default all of them (at
 * most 24), one round trip a unit instead of one a load (6% faster than a
 * load at a time on an H200 at checkerboard batch 512; doc/kernels.md) */
#define PNL ((CPWP * (9 * C + UIN) + WG - 1) / WG)
#define PERC_BATCH (PNL < 24 ? PNL : 24)
/* The perception stacks' backward of step t, after dlca_backward of step t
 * (PSPLIT: at batch 512 that kernel then holds no perception sums, 159-168
 * registers a thread instead of 250 on an H100/H200, and 3 groups fit an SM
 * where 2 did; doc/performance.md). Work-group `grp` handles units of CPWP
 * cells (PERC_SPLIT_UNIT_CELLS) grp, grp + NWG, ...: each (channel, kernel)
 * pair recomputes its
 * stack from the patch of state t, backprops the update input's gradient
 * that dlca_backward left in dU, and the unit's patch gradients go to
 * dP[t % 2]. The perception sums are added to the group's own slot of
 * `partial` at the end (the slots of dlca_backward's groups; it adds only
 * update sums under PSPLIT): fixed order, no atomics. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void dlca_backward_perc(
    __global const float *states, ulong grid, int t, __global const float *dU, __global float *dP0,
    __global float *dP1, __global const float4 *coef, __global const float4 *dcoef, __global float *partial, int B,
    int H, int W, __local float *cols, __local float *patch, __local float *din, __local float *dout,
    __local float4 *pcoef, __local float4 *pdcoef_st PW_DECL POP_DECL) {
#if POP
  if (pop_on) {
    ulong pop_key;
    POP_BEGIN(pop_key);
    (void)pop_key;
    POP_AT(states, __global const float *, states), POP_AT(dU, __global const float *, dU);
    POP_AT(dP0, __global float *, dP0), POP_AT(dP1, __global float *, dP1);
    POP_AT(coef, __global const float4 *, coef), POP_AT(dcoef, __global const float4 *, coef);
    POP_AT(partial, __global float *, partial);
#if P_WIRES_ARG
    POP_AT(pwires, __global const int *, wires);
#endif
  }
#endif
  const int tid = get_local_id(0), grp = get_group_id(0), nwg = get_num_groups(0), cells = B * H * W;
  __local const float4 *pdcoef = stage_perc_coefs(coef, dcoef, pcoef, pdcoef_st);
  float accP[PACC][PG1 * 4];
  for (int i = 0; i < PACC; i++)
    for (int j = 0; j < PG1 * 4; j++) accP[i][j] = 0.0f;
  __global const float *state_t = states + (size_t)t * grid;
  __global float *dP_cur = (t & 1) ? dP1 : dP0;
  for (int base = grp * CPWP; base < cells; base += nwg * CPWP) {
    /* the unit's patches (a missing cell past the end: the last one's grid;
     * its results are not written) and update-input gradients (zeros past
     * the end), PERC_BATCH loads a thread in flight before their stores */
    for (int s0 = 0; s0 < PNL; s0 += PERC_BATCH) {
      float v[PERC_BATCH];
DLCA_UNROLL
      for (int u = 0; u < PERC_BATCH; u++) {
        const int x = tid + (s0 + u) * WG, y = x - CPWP * 9 * C, j = y / UIN;
        v[u] = x < CPWP * 9 * C ? unit_patch_value(state_t, x, base, cells, H, W)
               : y < CPWP * UIN && base + j < cells ? dU[(size_t)base * UIN + y] : 0.0f;
      }
DLCA_UNROLL
      for (int u = 0; u < PERC_BATCH; u++) {
        const int x = tid + (s0 + u) * WG;
        if (x < CPWP * 9 * C) patch[x] = v[u];
        else if (x < CPWP * (9 * C + UIN)) din[x - CPWP * 9 * C] = v[u];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
DLCA_UNROLL
    for (int ps = 0; ps < PAIR_SLOTS; ps++) {
      const int p = tid + ps * WG;
      if (p < C * K)
        for (int j = 0; j < CPWP; j++)
          perceive_backward(pcoef, pdcoef, patch + j * 9 * C, din + j * UIN, p / K, p % K,
                            accP[PACC == 1 ? 0 : ps], cols + (j * C * K + p) * 9 PW_PASS(pwires));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int ji = tid; ji < CPWP * 9 * C; ji += WG) {
      const int j = ji / (9 * C), i = ji - j * 9 * C, f = i / C, c = i - f * C;
      if (base + j < cells)
        dP_cur[(size_t)(base + j) * 9 * C + i] = patch_gradient(din + j * UIN, cols + j * C * K * 9, f, c);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  flush_perc_sums(accP, cols, dout, partial + (size_t)grp * ACC_STRIDE);
}
#endif
