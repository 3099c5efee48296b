/* trainer.cl: dlca_backward, one backward step fused with the gather of the
 * step after it (with PERSIST, every step in one launch); twin
 * lib/ref/backward.c. */

/* floats of one cell's act row in dlca_backward (host: ACTF, or under PUSH
 * the planned row) */
#define BACT PACT
/* BWD_PUSH: the gradient of value i of a vector of n whose slots start at D:
 * the sum of its `readers` slots in their order (the first two at i and
 * n + i, the rest at D[ovf ..]); maxr, the most readers of any value, is a
 * compile-time constant at every call, so that the loop unrolls (a runtime
 * trip count keeps the cells' loop around it rolled, which is slower) */
inline float slot_sum(__local const float *D, int n, int i, int readers, int ovf, const int maxr) {
  float d = readers > 0 ? D[i] : 0.0f;
  if (maxr > 1 && readers > 1) d += D[n + i];
  for (int k = 2; k < maxr; k++)
    if (k < readers) d += D[ovf + k - 2];
  return d;
}
#if PUSH
/* BWD_PUSH: gate g of a layer of G gates (its pwire entry w, derivative
 * coefficients cf; its inputs at ao, its output's slots at din with at most
 * RO readers) in each of the CPW cells of act: its output gradient d, its 4
 * sums added to acc, and d (c1 + c3 b), d (c2 + c3 a) stored into its inputs'
 * slots (at dou). Every cell's loads come before the stores: a store into act
 * between them keeps the compiler from hoisting the next cell's loads above it. */
inline void push_gate(__local float *act, int4 w, float4 cf, int g, int G, int ao, int din, int dou, const int RO,
                      float *acc) {
  const int ia = w.x & 0xffff, ib = w.y & 0xffff;
  const int sa = (int)((uint)w.x >> 16), sb = (int)((uint)w.y >> 16);
  float ga[CPW], gb[CPW];
  for (int j = 0; j < CPW; j++) {
    __local const float *A = act + j * BACT;
    const float d = slot_sum(A + din, G, g, w.z, w.w, RO), a = A[ao + ia], bb = A[ao + ib];
    acc[0] += d, acc[1] += d * a, acc[2] += d * bb, acc[3] += d * a * bb;
    ga[j] = d * (cf.y + cf.w * bb);
    gb[j] = d * (cf.z + cf.w * a);
  }
  for (int j = 0; j < CPW; j++) act[j * BACT + dou + sa] = ga[j], act[j * BACT + dou + sb] = gb[j];
}
#endif

#if PERSIST
/* Reads of what other groups wrote in this launch bypass the (incoherent)
 * first-level cache. */
#define PVOL volatile
/* A fence that orders this work-item's global writes before its later ones
 * for every work-group of the device. OpenCL 1.2's mem_fence promises that
 * only within the work-item, and NVIDIA's compiler emits nothing for it
 * (its PTX, H100 2026-11-25), so on NVIDIA (the host sets NV_PTX) it is
 * PTX's own membar.gl. */
#if NV_PTX
#define DEVICE_FENCE() __asm__ volatile("membar.gl;" ::: "memory")
#else
#define DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
/* Waits until every unit (CPW consecutive cells) that holds a neighbour of
 * cells base .. base + CPW - 1 has finished `need` steps of this epoch
 * (flags[v], written by dlca_backward after the unit's patch gradients).
 * flags[units] is the status word: 1 once any wait gave up. */
inline void wait_for_neighbours(__global volatile int *flags, int units, int need, int base, int cells, int H,
                                int W) {
  for (int i = get_local_id(0); i < CPW * 9; i += WG) {
    const int cell = base + i / 9, f = i % 9;
    int rr = (cell / W) % H + f / 3 - 1, qq = cell % W + f % 3 - 1;
    if (cell >= cells || !wrap_ok(&rr, &qq, H, W)) continue;
    const int v = ((cell / (H * W) * H + rr) * W + qq) / CPW;
    if (flags[units]) continue;
    for (uint n = 0; flags[v] < need; n++)
      if (n == SPIN_MAX) {
        atomic_xchg(&flags[units], 1);
        break;
      }
    /* only the waiting threads fence (NVIDIA: each membar.gl of a warp costs
     * microseconds), then the barrier hands on what they saw, as CUDA's grid
     * barrier does */
    DEVICE_FENCE();
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
#else
#define PVOL
#endif

/* the perception sums of gate q of every (channel, kernel) row a thread holds, to act[row * 4 + j]
 * (a loop: put DLCA_UNROLL before it) */
#define STAGE_PERC_ROWS(q)                                                                         \
  for (int ps = 0; ps < PACC; ps++) {                                                              \
    const int p = tid + ps * WG;                                                                   \
    if (p < C * K) {                                                                               \
      act[p * 4 + 0] = accP[ps][(q) * 4 + 0], act[p * 4 + 1] = accP[ps][(q) * 4 + 1];              \
      act[p * 4 + 2] = accP[ps][(q) * 4 + 2], act[p * 4 + 3] = accP[ps][(q) * 4 + 3];              \
    }                                                                                              \
  }
/* Adds a work-group's perception gate sums to mine[0 .. ACC_PERC): accP holds
 * a thread's PACC rows of (channel, kernel) sums, first summed over the
 * PROWS channel rows through local memory (act: at least C K 4 floats,
 * dout: WG), in a fixed order (doc/kernels.md). Every thread calls
 * it; it starts with a barrier. */
inline void flush_perc_sums(float (*accP)[PG1 * 4], __local float *act, __local float *dout, __global float *mine) {
  const int tid = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
#if K * 4 <= WG
  /* FPARTS threads per (kernel, sum) each add every FPARTS-th row, then
   * thread (kernel, sum) adds the FPARTS parts in order; its PG1 results are
   * added to `mine` together after the loop. */
#define FPARTS (WG / (K * 4))
  float psum[PG1];
  const int fkj = tid % (K * 4), fpart = tid / (K * 4);
DLCA_UNROLL
  for (int q = 0; q < PG1; q++) {
DLCA_UNROLL
    STAGE_PERC_ROWS(q);
    barrier(CLK_LOCAL_MEM_FENCE);
    float part = 0.0f;
    if (fpart < FPARTS)
      for (int c = fpart; c < PROWS; c += FPARTS) part += act[(c * K + (fkj >> 2)) * 4 + (fkj & 3)];
    dout[tid] = part; /* dout holds max(CPW * C, WG) floats */
    barrier(CLK_LOCAL_MEM_FENCE);
    /* (the next q's rows go to act only after this barrier, whose reads of
     * act are done; its parts go to dout only after its own barrier above) */
    if (tid < K * 4) {
      float sum = 0.0f;
      for (int pp = 0; pp < FPARTS; pp++) sum += dout[pp * K * 4 + tid];
      psum[q] = sum;
    }
  }
  if (tid < K * 4) {
    const int k = tid >> 2, j = tid & 3;
DLCA_UNROLL
    for (int q = 0; q < PG1; q++) mine[(k * PG1 + q) * 4 + j] += psum[q];
  }
#else
DLCA_UNROLL
  for (int q = 0; q < PG1; q++) {
    barrier(CLK_LOCAL_MEM_FENCE);
DLCA_UNROLL
    STAGE_PERC_ROWS(q);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kj = tid; kj < K * 4; kj += WG) {
      const int k = kj >> 2, j = kj & 3;
      float sum = 0.0f;
      for (int c = 0; c < PROWS; c++) sum += act[(c * K + k) * 4 + j];
      mine[(k * PG1 + q) * 4 + j] += sum;
    }
  }
#endif
}

/* The phases of dlca_backward below, in the order it runs them. Each is
 * always inlined, and a phase with a barrier is one every work-item of the
 * group reaches, as the kernel's own loop body. */
#define BWD_PHASE static inline __attribute__((always_inline))

#if PATCH_FIRST
/* 0. the unit's patch values into pv[PSL], loaded before step 1's loads and
 * stored after them (bwd_patch_store), so that a thread waits for one round
 * trip, not two */
BWD_PHASE void bwd_patch_load(__global const float *state_t, int base, int cells, int H, int W, float *pv) {
  const int tid = get_local_id(0);
DLCA_UNROLL
  for (int s = 0; s < PSL; s++) {
    const int x = tid + s * WG;
    pv[s] = x < CPW * 9 * C ? unit_patch_value(state_t, x, base, cells, H, W) : 0.0f;
  }
}

BWD_PHASE void bwd_patch_store(const float *pv, __local float *patch) {
  const int tid = get_local_id(0);
DLCA_UNROLL
  for (int s = 0; s < PSL; s++)
    if (tid + s * WG < CPW * 9 * C) patch[tid + s * WG] = pv[s];
}
#endif

/* 1. dL/d(state_{t+1}) of each cell of the unit into g_cur and dout: at the
 * top 2 (s_T - y) on the loss channels (their squared errors added to
 * *loss), else the sum of the 9 neighbours' dP_{t+1} entries that read the
 * cell, plus g_{t+2} for an async cell that did not fire at t + 1 */
BWD_PHASE void bwd_state_grad(__global const float *state_T, __global const float *target,
                              __global PVOL const float *g_next, __global PVOL const float *dP_next,
                              __global float *g_cur, __global const uchar *masks, int use_masks, ulong mask_key,
                              float rate, int t, int top, int base, int cells, int H, int W, __local float *dout,
                              float *loss) {
  const int tid = get_local_id(0);
  for (int jc = tid; jc < CPW * C; jc += WG) {
    const int j = jc / C, c = jc - j * C, cell = base + j;
    if (cell >= cells) {
      dout[jc] = 0.0f;
      continue;
    }
    const int b = cell / (H * W), r = (cell / W) % H, q = cell % W;
    size_t k = (size_t)cell * C + c;
    float d = 0.0f;
    if (top) {
      for (int j = 0; j < NLOSS; j++)
        if (LOSS[j] == c) {
          float e = state_T[k] - target[k];
          d = 2.0f * e;
          *loss += e * e;
        }
    } else {
      for (int dr = 0; dr < 3; dr++)
        for (int dq = 0; dq < 3; dq++) {
          int rr = r - dr + 1, qq = q - dq + 1;
          if (wrap_ok(&rr, &qq, H, W))
            d += dP_next[(((size_t)b * H + rr) * W + qq) * 9 * C + (3 * dr + dq) * C + c];
        }
      if (ASYNC && !fires(masks, use_masks, mask_key, rate, t + 1, cells, cell)) d += g_next[k];
    }
    g_cur[k] = d;
    dout[jc] = d;
  }
}

/* 2. fired[j]: whether cell base + j fired at step t (a cell that did not
 * passes nothing through its circuit: its circuit runs with dout = 0, which
 * adds exact zeros; no early exit: a barrier-free path out of the unit's
 * loop miscompiles on PoCL); 3. without PATCH_FIRST, the patches of the
 * recompute (a missing cell past the end reuses the last one's grid: its
 * results are discarded) */
BWD_PHASE void bwd_fired(__global const float *state_t, __global const uchar *masks, int use_masks, ulong mask_key,
                         float rate, int t, int base, int cells, int H, int W, float *fired, __local float *patch) {
  for (int j = 0; j < CPW; j++) {
    const int cell = base + j;
    fired[j] = cell < cells && fires(masks, use_masks, mask_key, rate, t, cells, cell) ? 1.0f : 0.0f;
#if !PATCH_FIRST
    load_patch(state_t, cell < cells ? cell : cells - 1, H, W, patch + j * 9 * C);
#endif
  }
}

#if PUSH
/* 4 (BWD_PUSH). The output gradient: PUSH_OFF[NU], one slot (over the last
 * layer's outputs, which nothing reads). */
BWD_PHASE void bwd_push_out_grad(__local const float *dout, const float *fired, __local float *act) {
  for (int jc = get_local_id(0); jc < CPW * C; jc += WG) {
    const int j = jc / C, c = jc - j * C;
    act[j * BACT + PUSH_OFF[NU] + c] = dout[jc] * fired[j];
  }
}

#if TAIL
/* BWD_TAIL: warp 0 pushes layers NU - 1 .. TAIL_L first, a gate a lane, its
 * sums in accU[slot] (past the group layers' slots); layer TAIL_L - 1's
 * slot-0 tables load meanwhile (into *pw, *pc; *ao and *go move to layer
 * TAIL_L). Ends with the group's barrier. */
BWD_PHASE void bwd_push_tail(__global const int4 *pwire, __global const float4 *dcoef, __local float *act,
                             float (*accU)[4], int slot, int *ao, int *go, int4 *pw, float4 *pc) {
  const int tid = get_local_id(0);
  int tg, tgo, two;
  const int lt = tail_gate(tid, &tg, &tgo, &two);
  int4 tw = (int4)(0);
  float4 tk = (float4)(0.0f);
  if (lt < NU) tw = pwire[tgo - NGP + tg], tk = dcoef[tgo + tg];
  for (int l = TAIL_L; l < NU; l++) *ao -= US[l], *go -= US[l + 1];
  if (tid < US[TAIL_L]) *pw = pwire[*go - US[TAIL_L] + tid], *pc = dcoef[NGP + *go - US[TAIL_L] + tid];
  int tao = UTOTAL - C;
  if (!NV_PTX || tid < 32) {
DLCA_UNROLL
    for (int l = NU - 1; l >= TAIL_L; l--) {
      const int G = US[l + 1], din = PUSH_OFF[l + 1], dou = PUSH_OFF[l], RO = l + 1 < NU ? UF[l + 1] : 1;
      tao -= US[l];
      if (l == lt) push_gate(act, tw, tk, tg, G, tao, din, dou, RO, accU[slot]);
      TAIL_SYNC();
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

/* 4 (BWD_PUSH). Update layers, last to first, one barrier per layer: gate g
 * of layer l reads its output gradient d (the sum of its UF[l + 1] slots),
 * adds its 4 sums d, d a, d b, d a b, and stores d (c1 + c3 b) and
 * d (c2 + c3 a) into its inputs' slots (pwire). The pwire entry and the
 * coefficients of slot 0's gate are loaded one layer ahead, slot 1's at the
 * start of the phase (BWD_EARLY). */
BWD_PHASE void bwd_push_layers(__global const int4 *pwire, __global const float4 *dcoef, __local float *act,
                               float (*accU)[4]) {
  const int tid = get_local_id(0);
  int ao = UTOTAL - C, go = NGU, slot = group_slots();
  int4 pw = (int4)(0);
  float4 pc = (float4)(0.0f);
#if TAIL
  bwd_push_tail(pwire, dcoef, act, accU, slot, &ao, &go, &pw, &pc);
#else
  if (tid < US[NU]) pw = pwire[NGU - US[NU] + tid], pc = dcoef[NGP + NGU - US[NU] + tid];
#endif
DLCA_UNROLL
  for (int l = TAIL_L - 1; l >= 0; l--) {
    const int n = US[l], G = US[l + 1];
    const int din = PUSH_OFF[l + 1], dou = PUSH_OFF[l], RO = l + 1 < NU ? UF[l + 1] : 1;
    ao -= n, go -= G, slot -= (G + WG - 1) / WG;
    const int4 w0 = pw;
    const float4 k0 = pc;
    int4 w1 = (int4)(0);
    float4 k1 = (float4)(0.0f);
    if (BWD_EARLY && G > WG && tid + WG < G) w1 = pwire[go + tid + WG], k1 = dcoef[NGP + go + tid + WG];
    if (l > 0 && tid < US[l]) pw = pwire[go - US[l] + tid], pc = dcoef[NGP + go - US[l] + tid];
    /* a slot's loads for all its cells first, then its stores (push_gate);
     * the loads of both slots before any store take too many registers */
DLCA_UNROLL
    for (int i = 0; i < (G + WG - 1) / WG; i++) {
      const int g = tid + i * WG;
      if (g < G) {
        const int4 w = i == 0 ? w0 : BWD_EARLY && i == 1 ? w1 : pwire[go + g];
        const float4 cf = i == 0 ? k0 : BWD_EARLY && i == 1 ? k1 : dcoef[NGP + go + g];
        push_gate(act, w, cf, g, G, ao, din, dou, RO, accU[slot + i]);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* 5 (BWD_PUSH). The update input's gradient of each cell (the sum of its
 * slots) to dU: the perception stacks' backward is dlca_backward_perc's. */
BWD_PHASE void bwd_push_dU(__global const int4 *pwire, __local const float *act, int base, int cells,
                           __global float *dU) {
  for (int ji = get_local_id(0); ji < CPW * UIN; ji += WG) {
    const int j = ji / UIN, i = ji - j * UIN;
    __local const float *D = act + j * BACT + PUSH_OFF[0];
    const int2 r = ((__global const int2 *)(pwire + NGU))[i];
    if (base + j < cells) dU[(size_t)(base + j) * UIN + i] = slot_sum(D, UIN, i, r.x, r.y, UF[0]);
  }
}
#else
/* 4 (pull). dact ping-pongs between two rows of DW floats: layer l's output
 * gradients are in row (l + 1) & 1, its input gradients go to row l & 1, so
 * the update input's gradient ends in row 0; the output gradient first. */
BWD_PHASE void bwd_pull_out_grad(__local const float *dout, const float *fired, __local float *dact) {
  for (int jc = get_local_id(0); jc < CPW * C; jc += WG) {
    const int j = jc / C, c = jc - j * C;
    dact[j * 2 * DW + (NU & 1) * DW + c] = dout[jc] * fired[j];
  }
}

/* The tables one layer ahead: the wires of slot 0's gate of a layer of G
 * gates (wires ending at wo) and the first RPF reverse entries, with their
 * coefficients, of slot 0's input of its input layer (n1 values, R1 entries
 * each, ending at rb). */
BWD_PHASE void bwd_pull_ahead(__global const int *wires, __global const int2 *rev, __global const float2 *rcoef,
                              int wo, int rb, int G, int n1, int R1, int *pa, int *pb, int2 *pe, float2 *pcf) {
  const int tid = get_local_id(0);
  if (tid < G) *pa = wires[wo - 2 * G + tid], *pb = wires[wo - G + tid];
DLCA_UNROLL
  for (int k = 0; k < RPF; k++) {
    const int e = rb - R1 * n1 + k * n1 + tid, in = k < R1 && tid < n1;
    pe[k] = in ? rev[e] : (int2)(-1, 0);
    pcf[k] = in ? rcoef[e] : (float2)(0.0f);
  }
}

/* BWD_EARLY: slot 1's wires and first EARLY_R reverse entries and
 * coefficients of layer l (n inputs, G gates, R entries an input), at the
 * start of its phase (with 0 the compiler drops these) */
BWD_PHASE void bwd_pull_early(__global const int *wires, __global const int2 *rev, __global const float2 *rcoef,
                              int wo, int rb, int n, int G, int R, int *ew1a, int *ew1b, int2 *ee1, float2 *ec1) {
  const int tid = get_local_id(0);
  if (BWD_EARLY && G > WG && tid + WG < G) *ew1a = wires[wo + tid + WG], *ew1b = wires[wo + G + tid + WG];
DLCA_UNROLL
  for (int k = 0; k < EARLY_R; k++) {
    const int in1 = BWD_EARLY && k < R && n > WG && tid + WG < n, e = rb + k * n + tid + WG;
    ee1[k] = in1 ? rev[e] : (int2)(-1, 0);
    ec1[k] = in1 ? rcoef[e] : (float2)(0.0f);
  }
}

/* Gate g of a layer of G gates (wires at wo, inputs at ao of each cell's act
 * row, output gradients in dg) adds its 4 sums d, d a, d b, d a b over the
 * unit's cells to acc[i], i its slot (slot 0's wires wa0, wb0, slot 1's
 * ew1a, ew1b loaded ahead). */
BWD_PHASE void bwd_pull_gate_sums(__global const int *wires, __local const float *act, __local const float *dg,
                                  int ao, int wo, int G, int wa0, int wb0, int ew1a, int ew1b, float (*acc)[4]) {
  const int tid = get_local_id(0);
DLCA_UNROLL
  for (int i = 0; i < (G + WG - 1) / WG; i++) {
    const int g = tid + i * WG;
    if (g < G) {
      const int ia = i == 0 ? wa0 : BWD_EARLY && i == 1 ? ew1a : wires[wo + g];
      const int ib = i == 0 ? wb0 : BWD_EARLY && i == 1 ? ew1b : wires[wo + G + g];
      for (int j = 0; j < CPW; j++) {
        float d = dg[j * 2 * DW + g], a = act[j * BACT + ao + ia], bb = act[j * BACT + ao + ib];
        acc[i][0] += d, acc[i][1] += d * a, acc[i][2] += d * bb;
        acc[i][3] += d * a * bb;
      }
    }
  }
}

/* Input i of a layer (n inputs at ao, R reverse entries each from rb; slot
 * 0's first RPF entries e0, c0 and slot 1's first EARLY_R ee1, ec1 loaded
 * ahead) walks the gates that read it and writes the sum of d (c1 + c3 b)
 * (side a) or d (c2 + c3 a) (side b), in entry order, to di[i]. */
BWD_PHASE void bwd_pull_input_grads(__global const int2 *rev, __global const float2 *rcoef, __local const float *act,
                                    __local const float *dg, __local float *di, int ao, int rb, int n, int R,
                                    const int2 *e0, const float2 *c0, const int2 *ee1, const float2 *ec1) {
  const int tid = get_local_id(0);
DLCA_UNROLL
  for (int ii = 0; ii < (n + WG - 1) / WG; ii++) {
    const int i = tid + ii * WG;
    if (i < n) {
      float sum[CPW];
      for (int j = 0; j < CPW; j++) sum[j] = 0.0f;
      for (int k = 0; k < R; k++) {
        const int pf = ii == 0 && k < RPF, pf1 = BWD_EARLY && ii == 1 && k < EARLY_R;
        const int2 ent = pf ? e0[k < RPF ? k : 0] : pf1 ? ee1[k < EARLY_R ? k : 0] : rev[rb + k * n + i];
        /* (loaded for padding entries too: made to wait for ent, the load
         * costs more than the padding's loads) */
        const float2 cc = pf ? c0[k < RPF ? k : 0] : pf1 ? ec1[k < EARLY_R ? k : 0] : rcoef[rb + k * n + i];
        if (ent.x >= 0) {
          const int g = ent.x >> 1;
          for (int j = 0; j < CPW; j++) {
            const float d = dg[j * 2 * DW + g], o = act[j * BACT + ao + ent.y];
            sum[j] += d * (cc.x + cc.y * o);
          }
        }
      }
      for (int j = 0; j < CPW; j++) di[j * 2 * DW + i] = sum[j];
    }
  }
}

/* 4 (pull). Update layers, last to first, one barrier per layer. Layer l
 * reads its output gradients from dact row (l + 1) & 1 and writes its input
 * gradients to row l & 1, so nothing written in a layer is read in it:
 *  - gate g adds its 4 sums d, d a, d b, d a b (bwd_pull_gate_sums);
 *  - input i walks the gates that read it (reverse wiring, ELL: entry k of
 *    input i at rev[rb + k n + i] = (2 gate + side, the gate's other input),
 *    gate < 0 past its fan-out UF[l]) and sums d (c1 + c3 b) (side a) or
 *    d (c2 + c3 a) (side b), in entry order, so no two threads write one
 *    value; its (c1 | c2, c3) is rcoef[the entry's index], which dlca_coef
 *    wrote from dcoef (bwd_pull_input_grads).
 * The wires of slot 0's gate and the first RPF entries of slot 0's input,
 * with their coefficients, are loaded one layer ahead (bwd_pull_ahead). */
BWD_PHASE void bwd_pull_layers(__global const int *wires, __global const int2 *rev, __global const float2 *rcoef,
                               __local const float *act, __local float *dact, float (*accU)[4]) {
  int ao = UTOTAL - C, wo = 2 * PG1, rb = 0, slot = 0;
  for (int l = 0; l < NU; l++) wo += 2 * US[l + 1], rb += UF[l] * US[l], slot += (US[l + 1] + WG - 1) / WG;
  int pa = 0, pb = 0;
  int2 pe[RPF];
  float2 pcf[RPF];
  bwd_pull_ahead(wires, rev, rcoef, wo, rb, US[NU], US[NU - 1], UF[NU - 1], &pa, &pb, pe, pcf);
DLCA_UNROLL
  for (int l = NU - 1; l >= 0; l--) {
    const int n = US[l], G = US[l + 1], R = UF[l];
    ao -= n, wo -= 2 * G, rb -= R * n, slot -= (G + WG - 1) / WG;
    const int wa0 = pa, wb0 = pb;
    int2 e0[RPF];
    float2 c0[RPF];
DLCA_UNROLL
    for (int k = 0; k < RPF; k++) e0[k] = pe[k], c0[k] = pcf[k];
    int ew1a = 0, ew1b = 0;
    int2 ee1[EARLY_R];
    float2 ec1[EARLY_R];
    bwd_pull_early(wires, rev, rcoef, wo, rb, n, G, R, &ew1a, &ew1b, ee1, ec1);
    if (l > 0) bwd_pull_ahead(wires, rev, rcoef, wo, rb, US[l], US[l - 1], UF[l - 1], &pa, &pb, pe, pcf);
    __local const float *dg = dact + ((l + 1) & 1) * DW;
    __local float *di = dact + (l & 1) * DW;
    bwd_pull_gate_sums(wires, act, dg, ao, wo, G, wa0, wb0, ew1a, ew1b, accU + slot);
    bwd_pull_input_grads(rev, rcoef, act, dg, di, ao, rb, n, R, e0, c0, ee1, ec1);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

#if PSPLIT
/* 5 (PSPLIT). The update input's gradient of each cell to dU: the
 * perception stacks' backward is dlca_backward_perc's, a launch of its own. */
BWD_PHASE void bwd_split_dU(__local const float *dact, int base, int cells, __global float *dU) {
  for (int ji = get_local_id(0); ji < CPW * UIN; ji += WG) {
    const int j = ji / UIN, i = ji - j * UIN;
    if (base + j < cells) dU[(size_t)(base + j) * UIN + i] = dact[j * 2 * DW + i];
  }
}
#else
/* 5. Perception stacks: recompute privately, backprop, and leave each pair's
 * dL/dpatch column in act (no longer needed); then, after a barrier, the
 * patch gradients of the unit's cells to dP_cur. */
BWD_PHASE void bwd_perc_stacks(__local const float4 *pcoef, __local const float4 *pdcoef, __local const float *patch,
                               __local const float *dact, __local float *act, float (*accP)[PG1 * 4], int base,
                               int cells, __global float *dP_cur PW_DECL) {
  const int tid = get_local_id(0);
DLCA_UNROLL
  for (int ps = 0; ps < PAIR_SLOTS; ps++) {
    const int p = tid + ps * WG;
    if (p < C * K)
      for (int j = 0; j < CPW; j++)
        perceive_backward(pcoef, pdcoef, patch + j * 9 * C, dact + j * 2 * DW, p / K, p % K,
                          accP[PACC == 1 ? 0 : ps], act + j * BACT + p * 9 PW_PASS(pwires));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int ji = tid; ji < CPW * 9 * C; ji += WG) {
    const int j = ji / (9 * C), i = ji - j * 9 * C, f = i / C, c = i - f * C;
    if (base + j >= cells) continue;
    dP_cur[(size_t)(base + j) * 9 * C + i] = patch_gradient(dact + j * 2 * DW, act + j * BACT, f, c);
  }
}
#endif
#endif

/* 6. The update gates' sums added to the group's slot m4 (float4s past its
 * perception sums): FCHUNK slots of a thread read, then added and written,
 * so that their round trips overlap; with BWD_TAIL the lane's tail gate,
 * its sums in the slot past the group layers'. */
#define NSLOTS (NGU / WG + NU)
#define FCHUNK 8
BWD_PHASE void bwd_flush_update_sums(float (*accU)[4], __global float4 *m4) {
  const int tid = get_local_id(0);
DLCA_UNROLL
  for (int c0 = 0; c0 < NSLOTS; c0 += FCHUNK) {
    float4 old[FCHUNK];
    int go = 0, slot = 0;
DLCA_UNROLL
    for (int l = 0; l < TAIL_L; l++) {
      const int G = US[l + 1];
DLCA_UNROLL
      for (int i = 0; i < (G + WG - 1) / WG; i++) {
        const int g = tid + i * WG, sl = slot + i;
        if (sl >= c0 && sl < c0 + FCHUNK && g < G) old[sl - c0] = m4[go + g];
      }
      go += G, slot += (G + WG - 1) / WG;
    }
    go = 0, slot = 0;
DLCA_UNROLL
    for (int l = 0; l < TAIL_L; l++) {
      const int G = US[l + 1];
DLCA_UNROLL
      for (int i = 0; i < (G + WG - 1) / WG; i++) {
        const int g = tid + i * WG, sl = slot + i;
        if (sl >= c0 && sl < c0 + FCHUNK && g < G)
          m4[go + g] = old[sl - c0] + (float4)(accU[sl][0], accU[sl][1], accU[sl][2], accU[sl][3]);
      }
      go += G, slot += (G + WG - 1) / WG;
    }
  }
#if TAIL
  {
    int tg, tgo, two;
    const int lt = tail_gate(tid, &tg, &tgo, &two), ts = group_slots();
    if (lt < NU) m4[tgo - NGP + tg] += (float4)(accU[ts][0], accU[ts][1], accU[ts][2], accU[ts][3]);
  }
#endif
}

/* The fixed-tree reduction of the loss over the work-group into
 * loss_partial[grp] (dout holds max(CPW * C, WG) floats). */
BWD_PHASE void bwd_loss_sum(float loss, __local float *dout, __global float *loss_partial) {
  const int tid = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  dout[tid] = loss;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG / 2; s > 0; s >>= 1) {
    if (tid < s) dout[tid] += dout[tid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) loss_partial[get_group_id(0)] = dout[0];
}

/* One backward step t, fused with the gather of step t+1 (doc/kernels.md):
 *   dout = g_{t+1}[cell] = top ? 2 (s_T - y) on loss channels
 *                              : sum of the 9 neighbours' dP_{t+1} + (1 - m_{t+1}) g_{t+2}[cell]
 *   g_cur[cell] = dout; then backprop the cell's circuit at step t into dP_cur[cell].
 * Work-group `grp` handles cells grp, grp + NWG, ... (with PERSIST: tasks grp,
 * grp + NWG, ... of every step) and keeps its gate sums in private registers,
 * added once to its own slot of `partial` at the end: fixed order, no
 * atomics, bitwise reproducible. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void dlca_backward(
    __global const float *states, ulong grid, int T, __global const float *target, __global float *g0,
    __global float *g1, __global float *dP0, __global float *dP1, __global const float4 *coef,
    __global const float4 *dcoef, __global const int *wires, __global const int2 *rev,
    __global const float2 *rcoef, __global float *partial, __global float *loss_partial, __global const uchar *masks, int use_masks, ulong mask_key, float rate,
    int t_arg, int B, int H, int W, __global volatile int *flags, __global float *dU, __global const int4 *pwire,
    __local float *act, __local float *dact,
    __local float *patch, __local float *dout, __local float4 *pcoef, __local float4 *pdcoef_st POP_DECL) {
#if POP
  if (pop_on) {
    POP_BEGIN(mask_key);
    POP_AT(states, __global const float *, states), POP_AT(target, __global const float *, target);
    POP_AT(g0, __global float *, g0), POP_AT(g1, __global float *, g1), POP_AT(dP0, __global float *, dP0);
    POP_AT(dP1, __global float *, dP1), POP_AT(coef, __global const float4 *, coef);
    POP_AT(dcoef, __global const float4 *, coef), POP_AT(wires, __global const int *, wires);
    POP_AT(rev, __global const int2 *, rev), POP_AT(rcoef, __global const float2 *, rcoef);
    POP_AT(partial, __global float *, partial), POP_AT(loss_partial, __global float *, loss_partial);
    POP_AT(masks, __global const uchar *, masks), POP_AT(flags, __global volatile int *, flags);
    POP_AT(dU, __global float *, dU), POP_AT(pwire, __global const int4 *, pwire);
  }
#endif
  const int tid = get_local_id(0), grp = get_group_id(0), nwg = get_num_groups(0), cells = B * H * W;
  __global const float *state_T = states + (size_t)T * grid;
  /* coef runs the circuit (recompute); dcoef gives the gate derivatives
   * (c1 + c3 b, c2 + c3 a) */
  __local const float4 *pdcoef = stage_perc_coefs(coef, dcoef, pcoef, pdcoef_st);
  float accP[PACC][PG1 * 4];
  float accU[NGU / WG + NU][4];
  for (int i = 0; i < PACC; i++)
    for (int j = 0; j < PG1 * 4; j++) accP[i][j] = 0.0f;
  for (int i = 0; i < NGU / WG + NU; i++) accU[i][0] = accU[i][1] = accU[i][2] = accU[i][3] = 0.0f;
  float loss = 0.0f;

  /* Tasks of CPW cells (a unit): cells base .. base + CPW - 1 share every
   * barrier. Local arrays hold CPW rows: act (BACT floats each), dact (2 DW),
   * patch (9 C), dout (C). One launch runs the units of step t_arg, or with
   * PERSIST every step, last to first. */
  const int units = (cells + CPW - 1) / CPW;
  for (int task = grp; task < (PERSIST ? T : 1) * units; task += nwg) {
    const int si = PERSIST ? task / units : 0, t = PERSIST ? T - 1 - si : t_arg, top = t == T - 1;
    int u = task - si * units;
    /* on a periodic grid every other step starts half the grid on, so that
     * its first cells do not wait for the last ones of the step before, their
     * neighbours across the wrap */
#if PERSIST && PERIODIC
    if (si & 1) u = (u + units / 2) % units;
#endif
    const int base = u * CPW;
    /* step t writes g and dP [t % 2] and reads those of step t + 1 */
    __global PVOL const float *g_next = (t & 1) ? g0 : g1, *dP_next = (t & 1) ? dP0 : dP1;
    __global float *g_cur = (t & 1) ? g1 : g0, *dP_cur = (t & 1) ? dP1 : dP0;
    __global const float *state_t = states + (size_t)t * grid;
#if PERSIST
    /* dP_next and g_next of the neighbours are written, and what this task
     * overwrites (step t + 2's) is read, by the tasks of step t + 1 of
     * exactly these units */
    if (!top) wait_for_neighbours(flags, units, T - 1 - t + NEED_MORE, base, cells, H, W);
#endif
#if PATCH_FIRST
    float pv[PSL];
    bwd_patch_load(state_t, base, cells, H, W, pv);
#endif
    bwd_state_grad(state_T, target, g_next, dP_next, g_cur, masks, use_masks, mask_key, rate, t, top, base, cells, H,
                   W, dout, &loss);
    float fired[CPW];
    bwd_fired(state_t, masks, use_masks, mask_key, rate, t, base, cells, H, W, fired, patch);
#if PATCH_FIRST
    bwd_patch_store(pv, patch);
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    cell_forward(coef, pcoef, wires, patch, act, CPW, 9 * C, BACT, TAIL);
#if PUSH
    bwd_push_out_grad(dout, fired, act);
    barrier(CLK_LOCAL_MEM_FENCE);
    bwd_push_layers(pwire, dcoef, act, accU);
    bwd_push_dU(pwire, act, base, cells, dU);
#else
    bwd_pull_out_grad(dout, fired, dact);
    barrier(CLK_LOCAL_MEM_FENCE);
    bwd_pull_layers(wires, rev, rcoef, act, dact, accU);
#if PSPLIT
    bwd_split_dU(dact, base, cells, dU);
#else
    bwd_perc_stacks(pcoef, pdcoef, patch, dact, act, accP, base, cells, dP_cur PW_PASS(wires));
#endif
#endif
#if PERSIST
    /* every thread's writes are done (the barrier) and, through thread 0's
     * fence, visible device-wide before the unit's flag */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (tid == 0) {
      DEVICE_FENCE();
      atomic_xchg(&flags[u], T - t);
    }
#else
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }

  /* 6. add this work-group's sums to its own slot. Perception sums are first
   * summed over channels (the PROWS rows of (channel, kernel) sums left after
   * PACC) through local memory, in a fixed order. Every global read-add-write
   * of `mine` is issued in batches, so that their round trips overlap: they
   * end every launch, on its critical path (doc/kernels.md). */
  __global float *mine = partial + (size_t)grp * ACC_STRIDE;
#if !PSPLIT
  flush_perc_sums(accP, act, dout, mine);
#endif
  bwd_flush_update_sums(accU, (__global float4 *)(mine + ACC_PERC));
  if (PERSIST || t_arg == T - 1) bwd_loss_sum(loss, dout, loss_partial);
}
