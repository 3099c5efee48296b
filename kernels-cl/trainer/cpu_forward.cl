/* trainer_cpu.cl: dlca_forward_cpu and cell_forward, the circuit of a chunk
 * of VEC cells; twin lib/ref/forward.c. */

/* The circuit of the chunk's cells: scratch patch -> act[UTOTAL] (the update
 * input, doc/semantics.md section 3.3, and every update layer's outputs). */
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
      perceive(coef, patch, c, k, x PW_PASS(wires));
      /* doc/semantics.md section 3.2: output s of kernel k on channel c at C + c*(S*K) + s*K + k */
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
    ulong mask_key, float rate, int t, int B, int H, int W, __global float *scratch POP_DECL_G) {
#if POP
  if (pop_on) {
    POP_BEGIN(mask_key);
    POP_MOVE(cur_base, __global const float *, pop_gs), POP_MOVE(nxt_base, __global float *, pop_gs);
    POP_AT(coef, __global const float4 *, coef), POP_AT(wires, __global const int *, wires);
    POP_AT(masks, __global const uchar *, masks), POP_AT(scratch, __global float *, scratch);
  }
#endif
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
      /* an async cell that did not fire keeps its state (doc/semantics.md section 3) */
      const int fired = fires(masks, use_masks, mask_key, rate, t, cells, base + j);
      __global const float *src = fired ? y : centre;
      for (int c = 0; c < C; c++) nxt[(size_t)(base + j) * C + c] = src[c * VEC + j];
    }
  }
}
