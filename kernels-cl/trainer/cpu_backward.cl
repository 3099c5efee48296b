/* trainer_cpu.cl: dlca_backward_cpu, one backward step of a chunk of VEC
 * cells; twin lib/ref/backward.c (layer_backward, cell_backward). */

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
                              __global floatA *acc PW_DECL) {
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
      perceive(coef, patch, c, k, x PW_PASS(pwires));
PUNROLL
      for (int i = 0; i < PTOT - S; i++) dx[i] = (floatV)(0.0f);
PUNROLL
      for (int o = 0; o < S; o++) dx[PTOT - S + o] = duin[C + c * S * K + o * K + k];
PUNROLL
      for (int r = 0; r < PG1; r++) {
        const int q = PBQ[r];
        const floatV d = dx[9 + q];
        const int ia = PXA_(q), ib = PXB_(q);
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
    ulong mask_key, float rate, int t, int top, int B, int H, int W, __global float *scratch POP_DECL) {
  (void)rev;
#if POP
  if (pop_on) {
    POP_BEGIN(mask_key);
    POP_AT(states, __global const float *, states), POP_AT(target, __global const float *, target);
    POP_AT(g_next, __global const float *, g0), POP_AT(g_cur, __global float *, g0);
    POP_AT(dP_next, __global const float *, dP0), POP_AT(dP_cur, __global float *, dP0);
    POP_AT(coef, __global const float4 *, coef), POP_AT(dcoef, __global const float4 *, coef);
    POP_AT(wires, __global const int *, wires), POP_AT(partial, __global float *, partial);
    POP_AT(loss_partial, __global float *, loss_partial), POP_AT(masks, __global const uchar *, masks);
    POP_AT(scratch, __global float *, scratch);
  }
#endif
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
    perceive_backward(coef, dcoef, s, acc PW_PASS(wires));
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
