/* The forward and backward steps of trainer.cl shaped for many cells on a
 * GPU (trainer KERNELS 2; with KERNELS 0 the forward step alone, from
 * TILE_CELLS cells per step on, next to trainer.cl's backward step):
 * a work-group runs a tile of TL cells side by side, one cell per lane.
 * Thread tid is lane tid % TL of slice tid / TL; the NSL = TWG / TL slices
 * share the gates of each layer, and every activation of the tile is a row
 * of TL floats, one per cell. All cells run one circuit with one wiring, so
 * the lanes of a slice read the same row: a gate's two gathered reads are
 * contiguous, conflict-free local-memory accesses instead of the random
 * addresses of dlca_backward's cell-per-group layout (doc/kernels.md). The tile's update-layer activations go to the group's slot of the
 * global `scratch` buffer during the recompute, coalesced, for the backward
 * pass to read; two local rows ping-pong the forward pass and the gradients.
 *
 * Semantics are those of dlca_forward and dlca_backward in trainer.cl
 * (spec/dlca.md sections 1-4; doc/kernels.md); the host (lib/cl/
 * cl_trainer.c) passes the arguments of trainer_cpu.cl's steps, then local
 * memory (the forward step takes no scratch). Same -D shape options as trainer.cl (ACTF: the floats of one
 * lane's scratch). CPU twin: lib/ref/forward.c and lib/ref/backward.c. */
#include "grid.cl"

/* Cells per tile: the lanes of a slice (a multiple of 4). */
// @tunable TL 8 4 16 32 | 4..64 step 4
#ifndef TL
#define TL 8
#endif
/* Threads per work-group: TWG / TL slices. */
// @tunable TWG 256 128 512 | 4..4096 pow2
#ifndef TWG
#define TWG 256
#endif
/* Work-groups per compute unit of the backward and of the forward steps
 * (host side; at most one per tile). */
// @tunable TILE_GROUPS_PER_CU 2 1 4 | 1..64
#ifndef TILE_GROUPS_PER_CU
#define TILE_GROUPS_PER_CU 2
#endif
// @tunable TILE_FWD_GROUPS_PER_CU 4 1 2 8 | 1..64
#ifndef TILE_FWD_GROUPS_PER_CU
#define TILE_FWD_GROUPS_PER_CU 4
#endif
/* 1: unroll the layer loops, so that the gate sums get compile-time
 * indices and live in registers (GPUs); 0: rolled (PoCL builds it faster). */
// @tunable TUNROLL 1 0 | 0, 1
#ifndef TUNROLL
#define TUNROLL 1
#endif
#if TUNROLL
#define T_UNROLL _Pragma("unroll")
#else
#define T_UNROLL
#endif
/* The update layers of tile_forward (the forward step, and the recompute of
 * KERNELS 2): 0 a loop over layers; 1 unrolled, so that each layer's gate
 * loop has a constant trip count and its gates overlap (doc/kernels.md).
 * Only with TUNROLL. (2, which also unrolled a gate-by-gate form since
 * removed, is accepted and is 1.) */
// @tunable TFWD_UNROLL 0 1 | 0..2
#ifndef TFWD_UNROLL
#define TFWD_UNROLL 0
#endif

#define NSL (TWG / TL)
/* Cells a lane of tile_forward (the forward step and the recompute of
 * KERNELS 2): with 2 or 4, a slice of tile_forward is TL / TV lanes, each
 * evaluating a gate for TV adjacent cells of the tile from one read of the
 * gate's tables and 8- or 16-byte reads of its rows, so that the tables'
 * local reads are shared by TV cells (doc/kernels.md). The tile, its
 * rows and every other step keep TL cells and a lane each. */
// @tunable TV 1 2 4 | 1, 2, 4
#ifndef TV
#define TV 1
#endif
#define TLF (TL / TV)
#define NSF (TWG / TLF)
#if TV != 1 && TV != 2 && TV != 4
#error "TV must be 1, 2 or 4"
#endif
/* a lane's TV cells of row i: tvec is float, float2 or float4 */
#define TV_PASTE_(a, b) a##b
#define TV_PASTE(a, b) TV_PASTE_(a, b)
#if TV == 1
typedef float tvec;
#define TV_GSTORE(v, p, i) ((p)[(size_t)(i) * TL + lane] = (v))
#else
typedef TV_PASTE(float, TV) tvec;
#define TV_GSTORE(v, p, i) TV_PASTE(vstore, TV)((v), 0, (p) + (size_t)(i) * TL + TV * lane)
#endif
#define TV_LOAD(rows, i) (((__local const tvec *)(rows))[(i) * TLF + lane])
#define TV_STORE(v, rows, i) (((__local tvec *)(rows))[(i) * TLF + lane] = (v))
/* tile_forward's layers read and evaluate a slice's gates (at most TG)
 * before they store them */
#define TG ((GMAX + NSF - 1) / NSF)
/* ... in chunks of TFWD_CHUNK gates: a chunk's stores come before the next
 * chunk's loads (0: all TG at once): fewer registers in flight; on an H100
 * (staged, TL 16, TWG 256) 2 is 4% faster than 0 (doc/kernels.md) */
// @tunable TFWD_CHUNK 0 1 2 4 | 0, 1..64 pow2
#ifndef TFWD_CHUNK
#define TFWD_CHUNK 0
#endif
#define TCH (TFWD_CHUNK > 0 && TFWD_CHUNK < TG ? TFWD_CHUNK : TG)
/* 1: dlca_forward_tile stages each update layer's tables (wires packed in a
 * uint, coefficients) in local memory one layer ahead, one global load per
 * gate and group, and the perception coefficients before each tile's
 * stacks; its lanes then read them from local memory instead of each lane
 * loading them from global memory (doc/kernels.md). The host sizes
 * the group's local memory by it (2 TABN float4 and 2 TABN uint more). */
// @tunable TFWD_STAGE 1 0 | 0, 1
#ifndef TFWD_STAGE
#define TFWD_STAGE 1
#endif
/* TFWD_MAXNREG (0: none): on devices whose binaries are PTX (NVIDIA), the
 * most registers ptxas may give dlca_forward_tile (".maxnreg", written by
 * lib/cl/ptx.c); the staged kernel takes 98-128, so one 256-thread group
 * short of what local memory allows fits an SM (doc/kernels.md).
 * Other devices ignore it. */
// @tunable TFWD_MAXNREG 0 64 80 | 0, 16..255
// @ptx-maxnreg dlca_forward_tile TFWD_MAXNREG
#ifndef TFWD_MAXNREG
#define TFWD_MAXNREG 0
#endif
/* gates of a layer a thread stages, and the entries of each half of the
 * staging buffer: a layer's tables, or the perception coefficients */
#define TSL ((GMAX + TWG - 1) / TWG)
#define TABN (GMAX > NGP ? GMAX : NGP)
/* 1: the staged wires of a slice's gates q and q + 1 (q even) lie side by
 * side, and one 8-byte local read gets both (doc/kernels.md);
 * where a slice's gates are odd in number, or chunks would split a pair,
 * or the pairs' places would pass TABN (or TABN is odd), it is 0. */
// @tunable TFWD_WPAIR 0 1 | 0, 1
#ifndef TFWD_WPAIR
#define TFWD_WPAIR 0
#endif
#define TWPAIR (TFWD_WPAIR && TG % 2 == 0 && TCH % 2 == 0 && TG * NSF <= TABN && TABN % 2 == 0)
/* where gate g's packed wires are staged: slot (q / 2) NSF + slice of
 * uint2s, half q % 2, for g = slice + q NSF; else entry g */
#define TWPOS(g) (TWPAIR ? (((g) / NSF / 2) * NSF + (g) % NSF) * 2 + ((g) / NSF) % 2 : (g))
/* The reverse pass of the backward step runs 4 lanes per thread (a float4 of
 * 4 cells): thread tid is quad tid % (TL / 4) of quad-slice tid / (TL / 4),
 * NSQ of them, so that the work every lane shares (reverse entries,
 * coefficients, addresses) is done once per 4 cells (19% faster on an H100;
 * the forward gates ran slower that way and stay a lane per thread;
 * doc/kernels.md). */
#define TQ (TL / 4)
#define NSQ (TWG / TQ)
#if TWG % TL != 0 || TL % 4 != 0
#error "TL must be a multiple of 4 that divides TWG"
#endif

__constant int US[NU + 1] = {U_SIZES};
__constant int UF[NU] = {U_FANOUT};
__constant int LOSS[NLOSS] = {LOSS_CH};
/* one perception stack as a flat list of gates (host: build()), as in trainer.cl */
__constant int PXA[PG1] = {P_XA}, PXB[PG1] = {P_XB}, PCO[PG1] = {P_CO}, PCG[PG1] = {P_CG}, PBQ[PG1] = {P_BQ};

/* The gate sums in `partial`, as dlca_adamw reads them: perception
 * [K][PG1][4] (summed over channels), then update [NGU][4]. */
#define ACC_PERC (K * PG1 * 4)
/* Perception pairs (channel, kernel) per thread: pair p = slice + ps NSL.
 * Where NSL is a multiple of K every pair of a thread has kernel
 * slice % K, and one set of PG1 x 4 sums serves them all. */
#define PSLOTS ((C * K + NSL - 1) / NSL)
#define PACC (NSL % K == 0 ? 1 : PSLOTS)
/* Update gates per thread, for the gate sums: g = tid + i TWG of each layer. */
#define USLOTS (NGU / TWG + NU)

inline float gate_t(float4 c, float a, float b) { return c.x + c.y * a + c.z * b + c.w * a * b; }
inline tvec gate_tv(float4 c, tvec a, tvec b) { return c.x + c.y * a + c.z * b + c.w * a * b; }

/* patch[(f C + c) TL + lane] = channel c of neighbour f = 3 dr + dq of cell
 * base + lane (spec section 3.1); 0 outside a zero-padded grid and past the
 * last cell. */
/* A thread's TPN patch values, loaded TPATCH_BATCH at a time before they
 * are stored (by default all, at most 16: one round trip a tile instead of
 * one per value) */
#define TPN ((9 * C * TL + TWG - 1) / TWG)
#define TPATCH_BATCH (TPN < 16 ? TPN : 16)
inline float tile_patch_value(__global const float *grid, int i, int base, int cells, int H, int W) {
  const int rest = i / C, cell = base + rest % TL;
  return cell < cells ? cell_neighbour_value(grid, cell, rest / TL, i % C, H, W) : 0.0f;
}
inline void tile_patch(__global const float *grid, int base, int cells, int H, int W, __local float *patch) {
  const int tid = get_local_id(0);
  for (int s0 = 0; s0 < TPN; s0 += TPATCH_BATCH) {
    float v[TPATCH_BATCH];
T_UNROLL
    for (int u = 0; u < TPATCH_BATCH; u++) {
      const int i = tid + (s0 + u) * TWG;
      v[u] = i < 9 * C * TL ? tile_patch_value(grid, i, base, cells, H, W) : 0.0f;
    }
T_UNROLL
    for (int u = 0; u < TPATCH_BATCH; u++) {
      const int i = tid + (s0 + u) * TWG;
      if (i < 9 * C * TL) {
        const int c = i % C, rest = i / C, lane = rest % TL, f = rest / TL;
        patch[(f * C + c) * TL + lane] = v[u];
      }
    }
  }
}

/* Perception stack (channel c, kernel k) of one lane's patch into x[PTOT],
 * with the coefficients in global memory (perceive_t) or staged in local
 * memory (perceive_tl, TFWD_STAGE). */
#define PERCEIVE_T(coef)                                                                   \
  T_UNROLL for (int f = 0; f < 9; f++) x[f] = patch[(f * C + c) * TL + lane];              \
  T_UNROLL for (int q = 0; q < PG1; q++) x[9 + q] = gate_t(coef[PCO[q] + k * PCG[q]], x[PXA[q]], x[PXB[q]]);
inline void perceive_t(__global const float4 *coef, __local const float *patch, int c, int k, int lane, float *x) {
  PERCEIVE_T(coef)
}
inline void perceive_tl(__local const float4 *coef, __local const float *patch, int c, int k, int lane, float *x) {
  PERCEIVE_T(coef)
}

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
      /* spec section 3.2: output s of kernel k on channel c at C + c*(S*K) + s*K + k */
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
      /* an async cell that did not fire keeps its state (spec section 3) */
      if (cell < cells)
        nxt[(size_t)cell * C + c] =
            fires(masks, use_masks, mask_key, rate, t, cells, cell) ? y[c * TL + lane] : patch[(4 * C + c) * TL + lane];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
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
  const int tid = get_local_id(0), lane = tid % TL, sl = tid / TL;
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
    /* 1. the sum of the 9 neighbours' dP_{t+1} entries that read the cell
     * (f = 0 .. 8, as dlca_backward), plus g_{t+2} for an async cell that did
     * not fire at t + 1; at the top 2 (s_T - y) on the loss channels */
    for (int i = tid; i < C * TL; i += TWG) {
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
            loss += e * e;
          }
      } else {
        d = gathered_grad(dP_next, g_next, masks, use_masks, mask_key, rate, t, cells, cell, c, H, W);
      }
      g_cur[k] = d;
      /* a cell that did not fire at step t runs its circuit with dout = 0,
       * which adds exact zeros */
      dout[c * TL + ln] = fires(masks, use_masks, mask_key, rate, t, cells, cell) ? d : 0.0f;
    }
    /* 2-3. recompute step t, keeping every layer's input in act */
    tile_patch(state_t, base, cells, H, W, patch);
    barrier(CLK_LOCAL_MEM_FENCE);
    tile_forward(coef, wires, patch, dbuf, act, 1, (__local float4 *)dbuf, (__local uint *)dbuf, 0);
    for (int i = tid; i < C * TL; i += TWG) dbuf[(NU & 1) * DW * TL + i] = dout[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* 4. update layers, last to first; layer l reads its output gradients
     * from dbuf row (l + 1) & 1 and writes its input gradients to row l & 1 */
    {
      int ao = UTOTAL - C, go = NGU, wo = 2 * PG1 + 2 * NGU, rb = n_rev, slot = 0;
      for (int l = 0; l < NU; l++) slot += (US[l + 1] + TWG - 1) / TWG;
T_UNROLL
      for (int l = NU - 1; l >= 0; l--) {
        const int n = US[l], G = US[l + 1], R = UF[l];
        ao -= n, go -= G, wo -= 2 * G, rb -= R * n, slot -= (G + TWG - 1) / TWG;
        /* the layer's input, staged from the scratch: every read below is
         * local (a gather from the L2 per reverse entry was the bottleneck) */
        __global const float *src = act + (size_t)ao * TL;
        for (int i = tid; i < n * TL / 4; i += TWG) vstore4(vload4(i, src), i, xin);
        barrier(CLK_LOCAL_MEM_FENCE);
        __local const float *in = xin;
        __local const float *dg = dbuf + ((l + 1) & 1) * DW * TL;
        __local float *di = dbuf + (l & 1) * DW * TL;
        /* the 4 sums d, d a, d b, d a b of gate g over the tile's lanes */
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
            accU[slot + i][0] += (s0.x + s0.y) + (s0.z + s0.w);
            accU[slot + i][1] += (s1.x + s1.y) + (s1.z + s1.w);
            accU[slot + i][2] += (s2.x + s2.y) + (s2.z + s2.w);
            accU[slot + i][3] += (s3.x + s3.y) + (s3.z + s3.w);
          }
        }
        /* input i: the gates that read it, in entry order (rev, as in
         * dlca_backward): d (c1 + c3 b) on side a, d (c2 + c3 a) on side b */
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
        barrier(CLK_LOCAL_MEM_FENCE);
      }
    }
    /* 5. perception stacks (the update input's gradient is dbuf row 0): each
     * pair's dL/dpatch column goes to act, row (pair 9 + f), then dP_cur */
    {
      __local const float *duin = dbuf;
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
      /* before the next tile overwrites dbuf, patch and act */
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
  }

  /* 6. add the sums to this group's slot of `partial`: update gates from the
   * thread that owns them; perception sums summed over lanes and channels
   * through local memory (dbuf), a fixed order for each (kernel, sum) */
  __global float *mine = partial + (size_t)grp * (ACC_PERC + NGU * 4);
  {
    __global float4 *m4 = (__global float4 *)(mine + ACC_PERC);
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
  /* thread kj (and kj + TWG, ... where TWG < 4 K) sums (kernel kj / 4, sum kj % 4) */
#define KJ_SLOTS ((K * 4 + TWG - 1) / TWG)
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
  if (top) {
    /* fixed-tree reduction of the loss over the work-group */
    dbuf[tid] = loss;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = TWG / 2; s > 0; s >>= 1) {
      if (tid < s) dbuf[tid] += dbuf[tid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) loss_partial[grp] = dbuf[0];
  }
}
