/* trainer_tile.cl: dlca_forward_tile and tile_forward, the circuit of a tile
 * of cells, a cell a lane; twin lib/ref/forward.c. */

/* TFWD_STAGE: a thread's gates g = tid + i TWG of the layer whose wires
 * start at wo and coefficients at go, G gates, loaded into registers
 * (tables_load) and then stored into a staging buffer (tables_store): the
 * loads are issued at the start of a layer's phase and stored at its end,
 * so that their latency hides behind the phase. */
inline void tables_load(__global const float4 *coef, __global const int *wires, int wo, int go, int G, float4 *c,
                        uint *w) {
  const int tid = get_local_id(0);
T_UNROLL
  for (int i = 0; i < TSL; i++) {
    const int g = tid + i * TWG;
    if (g < G) c[i] = coef[go + g], w[i] = (uint)wires[wo + g] | ((uint)wires[wo + G + g] << 16);
  }
}
inline void tables_store(__local float4 *tc, __local uint *tw, int G, const float4 *c, const uint *w) {
  const int tid = get_local_id(0);
T_UNROLL
  for (int i = 0; i < TSL; i++) {
    const int g = tid + i * TWG;
    if (g < G) tc[g] = c[i], tw[TWPOS(g)] = w[i];
  }
}

/* The circuit of the tile's cells: patch -> the update input (spec section
 * 3.3) in buf row 0, then layer l from row l & 1 into row (l + 1) & 1 (rows
 * of DW TL floats), so the last layer's output ends in row NU & 1. With
 * store, every layer's input (the update input and every layer's outputs
 * but the last) also goes to act[i TL + lane], i as in dlca_backward's
 * act. A slice is TLF lanes, lane `lane` evaluating cells TV lane ..
 * TV lane + TV - 1 of each row. Ends with a barrier. */
inline void tile_forward(__global const float4 *coef, __global const int *wires, __local const float *patch,
                         __local float *buf, __global float *act, const int store, __local float4 *tc,
                         __local uint *tw, const int stage) {
  const int tid = get_local_id(0), lane = tid % TLF, sl = tid / TLF;
  /* stage: layer 0's tables into buffer 0 (its stores after the perception
   * stacks, which read their coefficients from buffer 1) */
  float4 nc[TSL];
  uint nw[TSL];
  if (stage) tables_load(coef, wires, 2 * PG1, NGP, US[1], nc, nw);
  for (int i = tid; i < C * TL; i += TWG) {
    const float v = patch[4 * C * TL + i];
    buf[i] = v;
    if (store) act[i] = v;
  }
  for (int p = sl; p < C * K; p += NSF) {
    const int c = p / K, k = p - c * K;
T_UNROLL
    for (int j = 0; j < TV; j++) {
      const int cl = TV * lane + j;
      float x[PTOT];
      if (stage)
        perceive_tl(tc + TABN, patch, c, k, cl, x);
      else
        perceive_t(coef, patch, c, k, cl, x);
      /* doc/semantics.md section 3.2: output s of kernel k on channel c at C + c*(S*K) + s*K + k */
      for (int s = 0; s < S; s++) {
        const int o = (C + c * S * K + s * K + k) * TL + cl;
        buf[o] = x[PTOT - S + s];
        if (store) act[o] = x[PTOT - S + s];
      }
    }
  }
  if (stage) tables_store(tc, tw, US[1], nc, nw);
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  int ao = 0, wo = 2 * PG1, go = NGP;
#if TFWD_UNROLL
T_UNROLL
#endif
  for (int l = 0; l < NU; l++) {
    const int n = US[l], G = US[l + 1], keep = store && l + 1 < NU;
    __local const float *in = buf + (l & 1) * DW * TL;
    __local float *out = buf + ((l + 1) & 1) * DW * TL;
    /* stage: this layer's tables are in buffer l & 1; the next layer's are
     * loaded now and stored into the other buffer at the end of the phase
     * (the layer before read that one, before the last barrier) */
    __local const float4 *lc = tc + (l & 1) * TABN;
    __local const uint *lw = tw + (l & 1) * TABN;
    if (stage && l + 1 < NU) tables_load(coef, wires, wo + 2 * G, go + G, US[l + 2], nc, nw);
    /* the slice's gates of the layer (a chunk of TCH of them at a time) read
     * and evaluated before any is stored: a store into buf between them
     * keeps the compiler from hoisting the next gate's loads above it */
    tvec v[TG];
    uint2 wp = (uint2)(0u, 0u); /* TWPAIR: the wires of gates q and q + 1 (q even) */
T_UNROLL
    for (int q0 = 0; q0 < TG; q0 += TCH) {
T_UNROLL
      for (int q = q0; q < q0 + TCH && q < TG; q++) {
        const int g = sl + q * NSF;
        if (g < G && stage) {
          if (TWPAIR && q % 2 == 0) wp = ((__local const uint2 *)lw)[(q / 2) * NSF + sl];
          const uint w = TWPAIR ? (q % 2 ? wp.y : wp.x) : lw[g];
          v[q] = gate_tv(lc[g], TV_LOAD(in, w & 0xffff), TV_LOAD(in, w >> 16));
        } else if (g < G) {
          v[q] = gate_tv(coef[go + g], TV_LOAD(in, wires[wo + g]), TV_LOAD(in, wires[wo + G + g]));
        }
      }
T_UNROLL
      for (int q = q0; q < q0 + TCH && q < TG; q++) {
        const int g = sl + q * NSF;
        if (g < G) {
          TV_STORE(v[q], out, g);
          if (keep) TV_GSTORE(v[q], act, ao + n + g);
        }
      }
    }
    if (stage && l + 1 < NU) tables_store(tc + ((l + 1) & 1) * TABN, tw + ((l + 1) & 1) * TABN, US[l + 2], nc, nw);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    ao += n, wo += 2 * G, go += G;
  }
}

/* One forward step: states at step t (cur) -> step t + 1 (nxt). Group grp
 * runs tiles grp, grp + groups, ... */
__kernel __attribute__((reqd_work_group_size(TWG, 1, 1))) void dlca_forward_tile(
    __global const float *cur_base, ulong cur_off, __global float *nxt_base, ulong nxt_off,
    __global const float4 *coef, __global const int *wires, __global const uchar *masks, int use_masks,
    ulong mask_key, float rate, int t, int B, int H, int W, __local float4 *buf4, __local float *patch,
    __local float4 *tab) {
  /* buf is declared float4 so that its base is aligned for the 8- and
   * 16-byte row accesses of TV 2 and 4 (NVIDIA aligns a local argument only
   * to its pointee type, and a misaligned access faults) */
  __local float *buf = (__local float *)buf4;
  const int tid = get_local_id(0), grp = get_group_id(0), ngr = get_num_groups(0), cells = B * H * W;
  const int tiles = (cells + TL - 1) / TL;
  /* TFWD_STAGE: tab holds 2 TABN float4 (two layers' coefficients), then 2
   * TABN uint (their packed wires); otherwise one unused float4 */
  __local uint *tabw = (__local uint *)(tab + 2 * TABN);
  __global const float *cur = cur_base + cur_off;
  __global float *nxt = nxt_base + nxt_off;
  __local const float *y = buf + (NU & 1) * DW * TL;
  for (int tile = grp; tile < tiles; tile += ngr) {
    const int base = tile * TL;
    tile_patch(cur, base, cells, H, W, patch);
    /* the perception coefficients into the staging buffer's second half,
     * which the last tile's last layer read before its last barrier */
    if (TFWD_STAGE)
      for (int i = tid; i < NGP; i += TWG) tab[TABN + i] = coef[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_forward(coef, wires, patch, buf, 0, 0, tab, tabw, TFWD_STAGE); /* nothing stored */
    for (int i = tid; i < C * TL; i += TWG) {
      const int c = i % C, lane = i / C, cell = base + lane;
      /* an async cell that did not fire keeps its state (doc/semantics.md section 3) */
      if (cell < cells)
        nxt[(size_t)cell * C + c] =
            fires(masks, use_masks, mask_key, rate, t, cells, cell) ? y[c * TL + lane] : patch[(4 * C + c) * TL + lane];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
