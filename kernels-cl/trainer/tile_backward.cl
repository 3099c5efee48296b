/* trainer_tile.cl: dlca_backward_tile, one backward step of a tile of
 * cells; twin lib/ref/backward.c. */

/* The phases of dlca_backward_tile below, in the order it runs them. Each
 * is always inlined, and a phase with a barrier is one every work-item of
 * the group reaches. */
#define TILE_PHASE static inline __attribute__((always_inline))

/* 1. The sum of the 9 neighbours' dP_{t+1} entries that read the cell
 * (f = 0 .. 8, as dlca_backward), plus g_{t+2} for an async cell that did
 * not fire at t + 1; at the top 2 (s_T - y) on the loss channels (their
 * squared errors added to *loss). Into g_cur, and times the cell's fire mask
 * of step t into dout (a cell that did not fire runs its circuit with
 * dout = 0, which adds exact zeros). */
TILE_PHASE void tile_bwd_state_grad(__global const float *state_T, __global const float *target,
                                    __global const float *g_next, __global float *g_cur,
                                    __global const float *dP_next, __global const uchar *masks, int use_masks,
                                    ulong mask_key, float rate, int t, int top, int base, int cells, int H, int W,
                                    __local float *dout, float *loss) {
  for (int i = get_local_id(0); i < C * TL; i += TWG) {
    const int c = i % C, ln = i / C, cell = base + ln;
    if (cell >= cells) {
      dout[c * TL + ln] = 0.0f;
      continue;
    }
    const size_t k = (size_t)cell * C + c;
    float d = 0.0f;
    if (top) {
      for (int j = 0; j < NLOSS; j++)
        if (LOSS[j] == c) {
          const float e = state_T[k] - target[k];
          d = 2.0f * e;
          *loss += e * e;
        }
    } else {
      d = gathered_grad(dP_next, g_next, masks, use_masks, mask_key, rate, t, cells, cell, c, H, W);
    }
    g_cur[k] = d;
    dout[c * TL + ln] = fires(masks, use_masks, mask_key, rate, t, cells, cell) ? d : 0.0f;
  }
}

/* The 4 sums d, d a, d b, d a b of the layer's gate g (G gates, wires at wo;
 * input rows in, output gradient rows dg) over the tile's lanes, added to
 * acc[i] for the thread's gates g = tid + i TWG. */
TILE_PHASE void tile_bwd_gate_sums(__global const int *wires, __local const float *in, __local const float *dg,
                                   int wo, int G, float (*acc)[4]) {
  const int tid = get_local_id(0);
T_UNROLL
  for (int i = 0; i < (G + TWG - 1) / TWG; i++) {
    const int g = tid + i * TWG;
    if (g < G) {
      const int ia = wires[wo + g], ib = wires[wo + G + g];
      float4 s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
T_UNROLL
      for (int j = 0; j < TL; j += 4) {
        const float4 d = vload4(0, dg + g * TL + j), a = vload4(0, in + ia * TL + j);
        const float4 bb = vload4(0, in + ib * TL + j), da = d * a;
        s0 += d, s1 += da, s2 += d * bb, s3 += da * bb;
      }
      acc[i][0] += (s0.x + s0.y) + (s0.z + s0.w);
      acc[i][1] += (s1.x + s1.y) + (s1.z + s1.w);
      acc[i][2] += (s2.x + s2.y) + (s2.z + s2.w);
      acc[i][3] += (s3.x + s3.y) + (s3.z + s3.w);
    }
  }
}

/* Input i of the layer (n inputs, R reverse entries each from rb; the
 * layer's gates' coefficients from go): the gates that read it, in entry
 * order (rev, as in dlca_backward): d (c1 + c3 b) on side a, d (c2 + c3 a)
 * on side b, into row i of di; 4 lanes per thread. */
TILE_PHASE void tile_bwd_input_grads(__global const int2 *rev, __global const float4 *dcoef, __local const float *in,
                                     __local const float *dg, __local float *di, int go, int rb, int n, int R) {
  const int tid = get_local_id(0);
  for (int i = tid / TQ; i < n; i += NSQ) {
    const int o4 = 4 * (tid % TQ);
    float4 sum = 0.0f;
T_UNROLL
    for (int k = 0; k < R; k++) {
      const int2 ent = rev[rb + k * n + i];
      if (ent.x >= 0) {
        const int g = ent.x >> 1;
        const float4 cf = dcoef[NGP + go + g];
        const float4 d = vload4(0, dg + g * TL + o4), o = vload4(0, in + ent.y * TL + o4);
        sum += d * (((ent.x & 1) ? cf.z : cf.y) + cf.w * o);
      }
    }
    vstore4(sum, 0, di + i * TL + o4);
  }
}

/* 4. Update layers, last to first; layer l reads its output gradients from
 * dbuf row (l + 1) & 1 and writes its input gradients to row l & 1. Its
 * input is first staged from the scratch (act) into xin: every read is then
 * local (a gather from the L2 per reverse entry was the bottleneck). */
TILE_PHASE void tile_bwd_layers(__global const int *wires, __global const int2 *rev, __global const float4 *dcoef,
                                __global const float *act, int n_rev, __local float *dbuf, __local float *xin,
                                float (*accU)[4]) {
  const int tid = get_local_id(0);
  int ao = UTOTAL - C, go = NGU, wo = 2 * PG1 + 2 * NGU, rb = n_rev, slot = 0;
  for (int l = 0; l < NU; l++) slot += (US[l + 1] + TWG - 1) / TWG;
T_UNROLL
  for (int l = NU - 1; l >= 0; l--) {
    const int n = US[l], G = US[l + 1], R = UF[l];
    ao -= n, go -= G, wo -= 2 * G, rb -= R * n, slot -= (G + TWG - 1) / TWG;
    __global const float *src = act + (size_t)ao * TL;
    for (int i = tid; i < n * TL / 4; i += TWG) vstore4(vload4(i, src), i, xin);
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const float *in = xin;
    __local const float *dg = dbuf + ((l + 1) & 1) * DW * TL;
    __local float *di = dbuf + (l & 1) * DW * TL;
    tile_bwd_gate_sums(wires, in, dg, wo, G, accU + slot);
    tile_bwd_input_grads(rev, dcoef, in, dg, di, go, rb, n, R);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* 5. Perception stacks (the update input's gradient duin is dbuf row 0):
 * each pair's dL/dpatch column goes to act, row (pair 9 + f), then, after
 * a barrier, the patch gradients summed over kernels to dP_cur. Ends with a
 * barrier: the next tile overwrites dbuf, patch and act. */
TILE_PHASE void tile_bwd_perc(__global const float4 *coef, __global const float4 *dcoef, __local const float *patch,
                              __local const float *duin, __global float *act, float (*accP)[PG1 * 4], int base,
                              int cells, __global float *dP_cur) {
  const int tid = get_local_id(0), lane = tid % TL, sl = tid / TL;
T_UNROLL
  for (int ps = 0; ps < PSLOTS; ps++) {
    const int p = sl + ps * NSL;
    if (p < C * K) {
      const int c = p / K, k = p - c * K;
      float x[PTOT], dx[PTOT];
      perceive_t(coef, patch, c, k, lane, x);
T_UNROLL
      for (int i = 0; i < PTOT; i++) dx[i] = 0.0f;
T_UNROLL
      for (int s = 0; s < S; s++) dx[PTOT - S + s] = duin[(C + c * S * K + s * K + k) * TL + lane];
      float *A = accP[PACC == 1 ? 0 : ps];
T_UNROLL
      for (int r = 0; r < PG1; r++) {
        const int q = PBQ[r], ia = PXA[q], ib = PXB[q];
        const float d = dx[9 + q], a = x[ia], bb = x[ib];
        const float4 cf = dcoef[PCO[q] + k * PCG[q]];
        A[q * 4 + 0] += d, A[q * 4 + 1] += d * a, A[q * 4 + 2] += d * bb, A[q * 4 + 3] += d * a * bb;
        dx[ia] += d * (cf.y + cf.w * bb);
        dx[ib] += d * (cf.z + cf.w * a);
      }
T_UNROLL
      for (int f = 0; f < 9; f++) act[(p * 9 + f) * TL + lane] = dx[f];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  for (int i = tid; i < 9 * C * TL; i += TWG) {
    const int fc = i % (9 * C), ln = i / (9 * C), f = fc / C, c = fc - f * C;
    if (base + ln >= cells) continue;
    float s = f == 4 ? duin[c * TL + ln] : 0.0f;
    for (int k = 0; k < K; k++) s += act[((c * K + k) * 9 + f) * TL + ln];
    dP_cur[(size_t)(base + ln) * 9 * C + fc] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

/* 6. The update gates' sums added to the group's slot m4 (float4s past its
 * perception sums), each from the thread that owns it. */
TILE_PHASE void tile_flush_update_sums(float (*accU)[4], __global float4 *m4) {
  const int tid = get_local_id(0);
  int go = 0, slot = 0;
T_UNROLL
  for (int l = 0; l < NU; l++) {
    const int G = US[l + 1];
T_UNROLL
    for (int i = 0; i < (G + TWG - 1) / TWG; i++) {
      const int g = tid + i * TWG;
      if (g < G) m4[go + g] += (float4)(accU[slot + i][0], accU[slot + i][1], accU[slot + i][2], accU[slot + i][3]);
    }
    go += G, slot += (G + TWG - 1) / TWG;
  }
}

/* 6. The perception sums, summed over lanes and channels through local
 * memory (dbuf), a fixed order for each (kernel, sum): thread kj (and
 * kj + TWG, ... where TWG < 4 K) sums (kernel kj / 4, sum kj % 4). */
#define KJ_SLOTS ((K * 4 + TWG - 1) / TWG)
TILE_PHASE void tile_flush_perc_sums(float (*accP)[PG1 * 4], __local float *dbuf, __global float *mine) {
  const int tid = get_local_id(0);
  for (int q = 0; q < PG1; q++) {
    float total[KJ_SLOTS];
    for (int r = 0; r < KJ_SLOTS; r++) total[r] = 0.0f;
    for (int ps = 0; ps < PACC; ps++) {
      for (int j = 0; j < 4; j++) dbuf[tid * 4 + j] = accP[ps][q * 4 + j];
      barrier(CLK_LOCAL_MEM_FENCE);
      for (int r = 0; r < KJ_SLOTS; r++) {
        const int kj = tid + r * TWG, k = kj >> 2, j = kj & 3;
        if (kj < K * 4)
          for (int s2 = 0; s2 < NSL; s2++)
            if ((s2 + ps * NSL) % K == k)
              for (int ln = 0; ln < TL; ln++) total[r] += dbuf[(s2 * TL + ln) * 4 + j];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int r = 0; r < KJ_SLOTS; r++) {
      const int kj = tid + r * TWG;
      if (kj < K * 4) mine[((kj >> 2) * PG1 + q) * 4 + (kj & 3)] += total[r];
    }
  }
}

/* The fixed-tree reduction of the loss over the work-group into
 * loss_partial[group] (through dbuf). */
TILE_PHASE void tile_loss_sum(float loss, __local float *dbuf, __global float *loss_partial) {
  const int tid = get_local_id(0);
  dbuf[tid] = loss;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = TWG / 2; s > 0; s >>= 1) {
    if (tid < s) dbuf[tid] += dbuf[tid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) loss_partial[get_group_id(0)] = dbuf[0];
}

/* One backward step t, fused with the gather of step t + 1, as dlca_backward
 * (trainer.cl) and dlca_backward_cpu (trainer_cpu.cl), whose arguments it
 * takes, then local memory: dbuf (2 DW TL floats, at least 4 TWG), xin (DW TL:
 * one layer's input), patch (9 C TL) and dout (C TL). Per tile:
 *   1. dout = dL/d(state_{t+1}) of each cell (times its fire mask of step t);
 *   2-3. the patch of step t and the recomputed circuit, every layer's input
 *      stored in the group's scratch (ACTF TL floats);
 *   4. the update layers, last to first: the 4 sums of each gate (a thread
 *      per gate walks the TL lanes of its rows) and each input's gradient
 *      through the reverse wiring (4 lanes per thread), as dlca_backward;
 *   5. the perception stacks, recomputed privately, whose patch gradients go
 *      to the scratch (now free), then summed over kernels into dP_cur.
 * The gate sums stay in registers through the launch and are added to the
 * group's slot of `partial` at its end: a fixed order, no atomics. */
__kernel __attribute__((reqd_work_group_size(TWG, 1, 1))) void dlca_backward_tile(
    __global const float *states, ulong t_off, ulong T_off, __global const float *target,
    __global const float *g_next, __global float *g_cur, __global const float *dP_next, __global float *dP_cur,
    __global const float4 *coef, __global const float4 *dcoef, __global const int *wires, __global const int2 *rev,
    __global float *partial, __global float *loss_partial, __global const uchar *masks, int use_masks,
    ulong mask_key, float rate, int t, int top, int B, int H, int W, __global float *scratch, __local float4 *dbuf4,
    __local float *xin, __local float *patch, __local float *dout) {
  __local float *dbuf = (__local float *)dbuf4; /* aligned for TV 2 and 4, as dlca_forward_tile's buf */
  const int tid = get_local_id(0);
  const int grp = get_group_id(0), ngr = get_num_groups(0), cells = B * H * W, tiles = (cells + TL - 1) / TL;
  __global const float *state_t = states + t_off, *state_T = states + T_off;
  __global float *act = scratch + (size_t)grp * ACTF * TL;
  float accP[PACC][PG1 * 4];
  float accU[USLOTS][4];
  for (int i = 0; i < PACC; i++)
    for (int j = 0; j < PG1 * 4; j++) accP[i][j] = 0.0f;
  for (int i = 0; i < USLOTS; i++) accU[i][0] = accU[i][1] = accU[i][2] = accU[i][3] = 0.0f;
  float loss = 0.0f;
  int n_rev = 0;
  for (int l = 0; l < NU; l++) n_rev += UF[l] * US[l];

  for (int tile = grp; tile < tiles; tile += ngr) {
    const int base = tile * TL;
    tile_bwd_state_grad(state_T, target, g_next, g_cur, dP_next, masks, use_masks, mask_key, rate, t, top, base, cells,
                        H, W, dout, &loss);
    /* 2-3. recompute step t, keeping every layer's input in act */
    tile_patch(state_t, base, cells, H, W, patch);
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_forward(coef, wires, patch, dbuf, act, 1, (__local float4 *)dbuf, (__local uint *)dbuf, 0);
    for (int i = tid; i < C * TL; i += TWG) dbuf[(NU & 1) * DW * TL + i] = dout[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_bwd_layers(wires, rev, dcoef, act, n_rev, dbuf, xin, accU);
    tile_bwd_perc(coef, dcoef, patch, dbuf, act, accP, base, cells, dP_cur);
  }

  /* 6. add the sums to this group's slot of `partial`: update gates from the
   * thread that owns them; perception sums summed over lanes and channels
   * through local memory (dbuf), a fixed order for each (kernel, sum) */
  __global float *mine = partial + (size_t)grp * (ACC_PERC + NGU * 4);
  tile_flush_update_sums(accU, (__global float4 *)(mine + ACC_PERC));
  tile_flush_perc_sums(accP, dbuf, mine);
  if (top) tile_loss_sum(loss, dbuf, loss_partial);
}
