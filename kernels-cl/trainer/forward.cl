/* trainer.cl: dlca_forward, one forward step, a work-group per cell, and
 * cell_forward, the circuit of a cell that dlca_backward recomputes; twin
 * lib/ref/forward.c. */

/* The first update layer's wires and coefficients of a thread's FSLOTS gates. */
inline void first_layer_tables(__global const float4 *coef, __global const int *wires, int *pa, int *pb, float4 *pc) {
  const int tid = get_local_id(0), wo = 2 * PG1, go = NGP;
  for (int i = 0; i < FSLOTS; i++) {
    const int g = tid + i * WG;
    pa[i] = pb[i] = 0, pc[i] = (float4)(0.0f);
    if (g < US[1]) pa[i] = wires[wo + g], pb[i] = wires[wo + US[1] + g], pc[i] = coef[go + g];
  }
}

/* The whole circuit of one cell: patch -> act[UTOTAL] (update input and every
 * update layer's outputs). Ends with a barrier. */
inline void cell_forward(__global const float4 *coef, __local const float4 *pcoef, __global const int *wires,
                         __local const float *patch, __local float *act, const int ncell, const int pstride,
                         const int astride, const int tail) {
  const int tid = get_local_id(0);
  /* BWD_TAIL: the lane's tail gate (layer lt, gate tg; tables at tgo, two) */
  int tg = 0, tgo = 0, two = 0;
  const int lt = tail ? tail_gate(tid, &tg, &tgo, &two) : NU;
  /* The update layers' tables: a thread's gates of each layer (tid, tid +
   * WG, ..., up to FSLOTS of them) have their wires and coefficients loaded
   * one layer ahead, so that their global-memory latency hides behind the
   * layer in flight (doc/kernels.md), the first layer's before the
   * perception stacks; gates past FSLOTS load theirs
   * where they are used. */
  int ao = 0, wo = 2 * PG1, go = NGP;
  int pa[FSLOTS], pb[FSLOTS];
  float4 pc[FSLOTS];
  first_layer_tables(coef, wires, pa, pb, pc);
  for (int j = 0; j < ncell; j++)
    for (int c = tid; c < C; c += WG) act[j * astride + c] = patch[j * pstride + 4 * C + c];
  for (int p = tid; p < C * K; p += WG) {
    int c = p / K, k = p - c * K;
    for (int j = 0; j < ncell; j++) {
      float x[PTOT];
      perceive_forward(pcoef, patch + j * pstride, c, k, x PW_PASS(wires));
      /* doc/semantics.md section 3.2: output s of kernel k on channel c at C + c*(S*K) + s*K + k */
      for (int s = 0; s < S; s++) act[j * astride + C + c * S * K + s * K + k] = x[PTOT - S + s];
    }
  }
  /* The update layers; every barrier serves all ncell cells. */
  barrier(CLK_LOCAL_MEM_FENCE);
/* no #pragma unroll here: PoCL 3.1 miscompiles this loop unrolled */
  for (int l = 0; l < (tail ? TAIL_L : NU); l++) {
    const int n = US[l], G = US[l + 1];
    int wa0[FSLOTS], wb0[FSLOTS];
    float4 c0[FSLOTS];
    for (int i = 0; i < FSLOTS; i++) wa0[i] = pa[i], wb0[i] = pb[i], c0[i] = pc[i];
    if (tail && l + 1 == TAIL_L) {
      /* the lane's tail gate's tables, in slot 0 */
      if (lt < NU) pa[0] = wires[two + tg], pb[0] = wires[two + US[lt + 1] + tg], pc[0] = coef[tgo + tg];
    } else if (l + 1 < NU) {
      const int G2 = US[l + 2];
      for (int i = 0; i < FSLOTS; i++) {
        const int g = tid + i * WG;
        if (g < G2) pa[i] = wires[wo + 2 * G + g], pb[i] = wires[wo + 2 * G + G2 + g], pc[i] = coef[go + G + g];
      }
    }
    /* (gate by gate: reading all of a phase's gates before any store, which
     * the tile forward gains from, made dlca_backward slower) */
    for (int i = 0; i < FSLOTS; i++) {
      const int g = tid + i * WG;
      if (g < G)
        for (int j = 0; j < ncell; j++) {
          __local float *a = act + j * astride + ao;
          a[n + g] = gate_eval(c0[i], a[wa0[i]], a[wb0[i]]);
        }
    }
    for (int g = tid + FSLOTS * WG; g < G; g += WG) {
      const int ia = wires[wo + g], ib = wires[wo + G + g];
      const float4 cf = coef[go + g];
      for (int j = 0; j < ncell; j++) {
        __local float *a = act + j * astride + ao;
        a[n + g] = gate_eval(cf, a[ia], a[ib]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ao += n, wo += 2 * G, go += G;
  }
  if (tail) {
    /* BWD_TAIL: layers TAIL_L .. NU - 1 in warp 0, a gate a lane; ao is
     * layer TAIL_L's input offset */
    if (!NV_PTX || tid < 32)
      for (int l = TAIL_L; l < NU; l++) {
        if (l == lt)
          for (int j = 0; j < ncell; j++) {
            __local float *a = act + j * astride + ao;
            a[US[l] + tg] = gate_eval(pc[0], a[pa[0]], a[pb[0]]);
          }
        ao += US[l];
        TAIL_SYNC();
      }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* One forward step. Work-group `grp` handles cells grp, grp + NWG, ... */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void dlca_forward(
    __global const float *cur_base, ulong cur_off, __global float *nxt_base, ulong nxt_off,
    __global const float4 *coef, __global const int *wires,
    __global const uchar *masks, int use_masks, ulong mask_key, float rate, int t, int B, int H, int W,
    __local float *act, __local float *patch, __local float4 *pcoef POP_DECL_G) {
#if POP
  if (pop_on) {
    POP_BEGIN(mask_key);
    POP_MOVE(cur_base, __global const float *, pop_gs), POP_MOVE(nxt_base, __global float *, pop_gs);
    POP_AT(coef, __global const float4 *, coef), POP_AT(wires, __global const int *, wires);
    POP_AT(masks, __global const uchar *, masks);
  }
#endif
  const int tid = get_local_id(0), cells = B * H * W;
  /* the perception coefficients are read by every stack of every cell: stage them once */
  stage_perc_coef(coef, pcoef);
  __global const float *cur = cur_base + cur_off;
  __global float *nxt = nxt_base + nxt_off;
  for (int cell = get_group_id(0); cell < cells; cell += get_num_groups(0)) {
    const int fired = fires(masks, use_masks, mask_key, rate, t, cells, cell);
    load_patch(cur, cell, H, W, patch);
    barrier(CLK_LOCAL_MEM_FENCE);
    cell_forward(coef, pcoef, wires, patch, act, 1, 0, 0, 0);
    /* an async cell that did not fire keeps its state (doc/semantics.md section 3) */
    for (int c = tid; c < C; c += WG) nxt[(size_t)cell * C + c] = fired ? act[UTOTAL - C + c] : patch[4 * C + c];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
