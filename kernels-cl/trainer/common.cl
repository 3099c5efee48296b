/* trainer.cl: the configuration every step of the device epoch shares (its
 * tunables, the host-set shape tables) and the helpers of several steps:
 * patches, the perception stacks forward and backward (doc/kernels.md). */

/* The reduction of the gate sums and the logit gradient p (dp - p . dp)
 * cancel badly when a gate is nearly one-hot (the pass-through
 * initialisation), and at t = 1 AdamW turns even tiny gradients into full
 * steps of lr. They run in double where the device has it, as in the CPU
 * twin. They are cheap: one thread per gate, once per epoch. */
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real_t;
#else
typedef float real_t;
#endif

#ifndef NPG
#define NPG 16
#endif

// @tunable WG 256 128 64 32 16 512 | 1..4096 pow2
#ifndef WG
#define WG 256
#endif
/* Work-groups per compute unit of the forward and the backward steps (host
 * side: each work-group loops over cells). */
// @tunable FWD_GROUPS_PER_CU 8 1 2 4 16 32 | 1..64
#ifndef FWD_GROUPS_PER_CU
#define FWD_GROUPS_PER_CU 8
#endif
/* 1: fully unroll the layer loops, so that per-gate sums and perception
 * stacks get compile-time indices and live in registers (GPUs). 0: leave the
 * loops rolled; PoCL compiles that 3x faster and runs it faster too. */
// @tunable UNROLL 1 0 | 0, 1
#ifndef UNROLL
#define UNROLL 1
#endif
#if UNROLL
#define DLCA_UNROLL _Pragma("unroll")
#else
#define DLCA_UNROLL
#endif
/* Cells each backward work-group runs side by side, sharing every barrier
 * (host side: the host passes CPW, capped by local memory). */
// @tunable CELLS_PER_GROUP 1 2 4 | 1..16
#ifndef CELLS_PER_GROUP
#define CELLS_PER_GROUP 1
#endif
/* Where a small batch would leave compute units without a group, the host
 * halves CELLS_PER_GROUP, but not below CELLS_PER_GROUP_MIN. */
// @tunable CELLS_PER_GROUP_MIN 1 2 | 1..16
#ifndef CELLS_PER_GROUP_MIN
#define CELLS_PER_GROUP_MIN 1
#endif
// @tunable BWD_GROUPS_PER_CU 2 1 4 8 16 | 1..64
#ifndef BWD_GROUPS_PER_CU
#define BWD_GROUPS_PER_CU 2
#endif
/* A narrower work-group for narrow models on many cells (0: never). Where the
 * backward pass at WG threads would need more groups than compute units x
 * BWD_GROUPS_PER_CU, and a thread of WG_NARROW still holds one perception
 * stack (C K <= WG_NARROW) and two gates of the widest update layer, the host
 * builds every kernel with WG_NARROW threads (-DLWG) and runs WG / WG_NARROW
 * times the backward groups per compute unit: more groups resident per compute
 * unit for the same registers (lib/cl/trainer/plan.c: plan_groups). */
// @tunable WG_NARROW 0 128 64 | 0, 1..4096 pow2
#ifndef WG_NARROW
#define WG_NARROW 0
#endif
/* The work-group size the host chose (WG or WG_NARROW). */
#ifdef LWG
#undef WG
#define WG LWG
#endif
/* N > 0: the backward pass of the whole epoch in one launch where a step
 * has at most N rounds of backward groups and T > 1 (host side, which sets
 * PERSIST; for devices that run every backward group at once). Group g takes tasks g,
 * g + NWG, ... of the list (step T-1, every unit of CPW cells; step T-2, ...)
 * and waits, per task, only for the units next to its cells to have finished
 * the step before: a step's last cells overlap the next step's first ones
 * instead of a launch per step leaving most compute units idle at its end
 * (growth: 400 cells on 132 SMs, 4 rounds where 3.03 would do). The gate
 * sums are flushed once per epoch instead of once per step. doc/kernels.md */
// @tunable BWD_PERSIST 0 16 4 64 | 0..1024
#ifndef BWD_PERSIST
#define BWD_PERSIST 0
#endif
/* A population's trainer group (lib/cl/trainer/group.c) with BWD_PERSIST
 * planned: 1 keeps it, one backward launch per model (the bits of a single
 * run: the one-launch pass sums the gate sums in another order); 0 turns it
 * off, one batched launch per step for every model (fewer launches; the
 * models' bits then differ from single runs that plan BWD_PERSIST). */
// @tunable POP_PERSIST 1 0 | 0, 1
#ifndef POP_PERSIST
#define POP_PERSIST 1
#endif
/* dlca_train_config's population_plan (a population's models, and single
 * runs that give their bits), for models whose perception stacks (C K)
 * outnumber WG_NARROW threads (growth, colour): the backward pass planned
 * as for a batch of POP_PLAN_MODELS models (cells a group, the perception
 * backward apart, BWD_PUSH), with no one-launch pass and POP_GROUPS groups
 * a model in each backward launch, whatever the population's size, so that
 * a model's sums do not depend on it. H200, 2026-11-28, a population step
 * (dlca-bench --population): growth x16 12.4 -> 10.0 ms, colour x16 8.5 ->
 * 6.7; POP_GROUPS 8: 12.3, 24: 11.5, 32: 10.4. The narrow models keep a
 * single run's plan: with it the checkerboard x8 went 4.67 -> 6.11 ms and
 * checkerboard-async x8 8.74 -> 9.79. 0: never. */
// @tunable POP_PLAN_MODELS 16 0 4 64 | 0..4096
#ifndef POP_PLAN_MODELS
#define POP_PLAN_MODELS 16
#endif
// @tunable POP_GROUPS 16 8 24 32 | 1..4096
#ifndef POP_GROUPS
#define POP_GROUPS 16
#endif
/* 1: this build runs the one-launch backward pass (set by the host) */
#ifndef PSPLIT
#define PSPLIT 0
#endif

#ifndef PERSIST
#define PERSIST 0
#endif
/* A persistent group that waits this many polls for a neighbour gives up
 * and raises the status word: a device that does not keep every group
 * resident gets an error from the host, not a hang. */
#ifndef SPIN_MAX
#define SPIN_MAX (1u << 25)
#endif
/* Tests only (-DPERSIST_NEVER, tests/test_trainer.c): every wait asks for a
 * step that never comes, so that the give-up path and its error run. */
#ifdef PERSIST_NEVER
#define NEED_MORE T
#else
#define NEED_MORE 0
#endif
/* Which forward and backward steps the host runs (lib/cl/trainer/plan.c):
 * 0 dlca_forward and dlca_backward below (a work-group per cell, barriers
 * per layer: GPUs); 1 those of trainer_cpu.cl (SIMD across cells, one
 * work-item per group, no barriers: CPU devices); 2 those of trainer_tile.cl
 * (a tile of cells per work-group, a cell per lane: GPUs, many cells).
 * coef, start, adamw and eval always come from this file. */
// @tunable KERNELS 0 1 2 | 0, 1, 2
#ifndef KERNELS
#define KERNELS 0
#endif
/* With KERNELS 0: from this many cells per step on (batch x H x W), the
 * forward steps (soft and hard) are trainer_tile.cl's dlca_forward_tile,
 * where its tile fits in local memory; the backward steps stay these
 * (0: never). */
// @tunable TILE_CELLS 0 8192 32768 | 0..2147483647
#ifndef TILE_CELLS
#define TILE_CELLS 0
#endif
/* With KERNELS 0, where the backward pass runs a launch per step (not
 * BWD_PERSIST): from this many cells per step on, the perception stacks'
 * backward of a step is dlca_backward_perc, a launch of its own after
 * dlca_backward (PSPLIT), which then holds fewer registers (0: never). */
// @tunable PERC_SPLIT_CELLS 0 32768 | 0..2147483647
#ifndef PERC_SPLIT_CELLS
#define PERC_SPLIT_CELLS 0
#endif
/* The backward groups per compute unit under PSPLIT (0: BWD_GROUPS_PER_CU) */
// @tunable PERC_SPLIT_GROUPS_PER_CU 0 2 3 4 | 0..64
#ifndef PERC_SPLIT_GROUPS_PER_CU
#define PERC_SPLIT_GROUPS_PER_CU 0
#endif
/* Cells side by side in a unit of dlca_backward_perc under PSPLIT (0: the
 * backward's CELLS_PER_GROUP; the host lowers it to what fits in local
 * memory and passes the result as CPWP) */
// @tunable PERC_SPLIT_UNIT_CELLS 0 3 6 8 | 0..64
#ifndef PERC_SPLIT_UNIT_CELLS
#define PERC_SPLIT_UNIT_CELLS 0
#endif
/* dlca_backward_perc's own groups per compute unit under PSPLIT (times
 * WG / WG_NARROW, as PERC_SPLIT_GROUPS_PER_CU; 0: dlca_backward's groups):
 * host only (lib/cl/trainer/plan.c: plan_perc_groups) */
// @tunable PERC_GROUPS_PER_CU 0 3 2 4 | 0..64
#ifndef PERC_GROUPS_PER_CU
#define PERC_GROUPS_PER_CU 0
#endif
#ifndef CPWP
#define CPWP CPW
#endif

__constant int PS[NP + 1] = {P_SIZES};
/* one zero past the end, so that an unrolled look-ahead never reads out of bounds */
__constant int US[NU + 2] = {U_SIZES, 0};
__constant int LOSS[NLOSS] = {LOSS_CH};
/* the ELL width of each update layer's reverse wiring (host: layer_fanout) */
__constant int UF[NU + 1] = {U_FANOUT, 0};
/* reverse-wiring entries (and their coefficients) of a thread's first input
 * that dlca_backward loads one layer ahead, after the layer's own work and
 * before its barrier (doc/kernels.md, "The backward step") */
#define RPF 3
/* 1: in dlca_backward's update layers, a thread's second gate and input
 * (slot 1) load their wires and first EARLY_R reverse entries and
 * coefficients at the start of the layer's phase, before its sums, instead
 * of where they are used, so that their L2 round trips overlap the slot-0
 * work (8% faster on an H200 at checkerboard batch 512, doc/performance.md);
 * 0: where they are used. */
// @tunable BWD_EARLY 1 0 | 0, 1
#ifndef BWD_EARLY
#define BWD_EARLY 1
#endif
#define EARLY_R 3
/* BWD_PUSH (host: the tunable, taken with PSPLIT where the plan fits; the
 * kernel sees PUSH): dlca_backward's update layers push each gate's two
 * input gradients into gradient slots of its inputs instead of each input
 * pulling them through the reverse wiring (doc/kernels.md, "The backward
 * step"). Input i of a layer with n inputs, read by gates in the order
 * of rev (gate order, a before b), has slot k at k n + i for its first two
 * readers (k < R2 = min(2, UF)) and at R2 n + ovf(i) + k - 2 past them
 * (ovf packs the few inputs with more readers). Gate g stores d (c1 + c3 b)
 * into its a input's slot and d (c2 + c3 a) into its b input's, and reads
 * its own output gradient d as the sum of its output's slots, in slot
 * order. Slots of layer l start at PUSH_OFF[l] of a cell's act row (PACT
 * floats: its activations, then room the host planned; every layer's slots
 * lie past the activations still to be read), PUSH_OFF[NU] holds the output
 * gradient. pwire[u] of update gate u = (wa | sa << 16, wb | sb << 16, its
 * output's readers, R2 n + ovf of its output in the layer above); after the
 * NGU entries, (readers, R2 n + ovf) of each update input, for dU. */
// @tunable BWD_PUSH 0 1 | 0, 1
#ifndef BWD_PUSH
#define BWD_PUSH 0
#endif
/* BWD_BANKS (host only; with the push): the device runs the model with each
 * hidden update layer's gates in a bank-aware order, so that a warp's
 * gathers and slot stores hit distinct local-memory banks
 * (lib/cl/bank_order.c; doc/kernels.md) */
// @tunable BWD_BANKS 0 1 | 0, 1
#ifndef BWD_BANKS
#define BWD_BANKS 0
#endif
/* BWD_BANKS_EFFORT (host only): the order's search proposes this many swaps
 * a hidden unit (the checkerboard: 150, 1.86 cycles a gather; 1200, 1.2 and
 * about a second of host time; lib/cl/bank_order.c) */
// @tunable BWD_BANKS_EFFORT 1200 150 600 2400 4800 | 1..100000
#ifndef BWD_BANKS_EFFORT
#define BWD_BANKS_EFFORT 1200
#endif
#ifndef PUSH
#define PUSH 0
#endif
#if PUSH
__constant int PUSH_OFF[NU + 1] = {PUSH_OFFS};
#endif
/* BWD_TAIL (host: the tunable, taken with the push where WG >= 32): the
 * last update layers, TAIL_L .. NU - 1, at most 32 gates together, run in
 * dlca_backward's warp 0 alone, a gate a lane (lane q: gate q - LOFF(l) of
 * the layer l with LOFF(l) <= q < LOFF(l) + G, LOFF(TAIL_L) = 0), both in
 * the recompute and in the push, with a warp-level barrier between layers
 * (bar.warp.sync, NV_PTX) instead of the group's: small layers cost a
 * phase's latency each, whatever their width (doc/kernels.md).
 * The lane's gate sums go to one accumulator slot, summed over the cells
 * in the same order, so no value changes. Without NV_PTX the same mapping
 * runs with group barriers (the tests' check of it on CPU devices). */
// @tunable BWD_TAIL 0 1 | 0, 1
#ifndef BWD_TAIL
#define BWD_TAIL 0
#endif
/* BWD_MAXNREG (0: none): on devices whose binaries are PTX (NVIDIA), the
 * most registers ptxas may give dlca_backward under PSPLIT, written into the
 * PTX as ".maxnreg" (lib/cl/ptx.c), since the driver ignores
 * -cl-nv-maxrregcount. There it takes 168, and 3 of its 128-thread groups
 * fit an SM's 64 K registers; at 128, 4 (doc/kernels.md). Without
 * the split it holds the perception sums too (250), so the host passes
 * BWD_NREG = BWD_MAXNREG under PSPLIT, else 0. Other devices ignore it. */
// @tunable BWD_MAXNREG 0 128 96 | 0, 24..255
// @ptx-maxnreg dlca_backward BWD_NREG
#ifndef BWD_MAXNREG
#define BWD_MAXNREG 0
#endif
#if !defined(TAIL_L) || !PUSH
#undef TAIL_L
#define TAIL_L NU
#endif
#define TAIL (TAIL_L < NU)
/* the tail's barrier between layers: warp 0's on NVIDIA (only warp 0
 * runs the tail there: `if (!NV_PTX || tid < 32)`), the group's elsewhere */
#if NV_PTX
#define TAIL_SYNC() __asm__ volatile("bar.warp.sync -1;" ::: "memory")
#else
#define TAIL_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#endif
/* A thread's accumulator slots (accU) of the group layers 0 .. TAIL_L - 1:
 * ceil(gates / WG) a layer. The tail's slot is the one past them. */
inline int group_slots(void) {
  int n = 0;
  for (int l = 0; l < TAIL_L; l++) n += (US[l + 1] + WG - 1) / WG;
  return n;
}
/* The lane's tail gate: its layer (NU if none), its gate index and its
 * layer's gate offset in coef/pwire (go) and wire offset (wo). */
inline int tail_gate(int lane, int *g, int *go, int *wo) {
  int loff = 0, gl = NGP, wl = 2 * PG1, lt = NU;
  *g = 0, *go = 0, *wo = 0;
  for (int l = 0; l < NU; l++) {
    const int G = US[l + 1];
    if (l >= TAIL_L && lane >= loff && lane < loff + G && lt == NU) lt = l, *g = lane - loff, *go = gl, *wo = wl;
    if (l >= TAIL_L) loff += G;
    gl += G, wl += 2 * G;
  }
  return lt;
}

/* A thread's patch values of a backward unit, and whether dlca_backward
 * loads them before the unit's other global loads: where they take at most
 * 4 registers, so that a thread waits for one round trip, not two (more
 * registers measured no faster; doc/kernels.md) */
#define PSL ((CPW * 9 * C + WG - 1) / WG)
#define PATCH_FIRST (PSL <= 4)
/* Gates per thread and update layer whose wires and coefficients
 * cell_forward loads one layer ahead: ceil(GMAX / WG), at most FPF_SLOTS. */
#define FPF_SLOTS 2
#define FSLOTS_ALL ((GMAX + WG - 1) / WG)
#define FSLOTS (FSLOTS_ALL < FPF_SLOTS ? FSLOTS_ALL : FPF_SLOTS)
#include "trainer/pwires.cl"
__constant int PCO[PG1] = {P_CO}, PCG[PG1] = {P_CG}, PBQ[PG1] = {P_BQ};

/* The perception coefficients staged in local memory gate-major: stack gate
 * q of kernel k at dst[q K + k] (in global memory, layer-major, kernel, then
 * gate: PCO[q] + k PCG[q]). A warp's threads run consecutive kernels k of
 * one gate q, so their float4 loads are consecutive instead of PCG[q]
 * float4s apart, 8-way bank conflicts on the widest layer (doc/kernels.md). */
inline void stage_perc_coef(__global const float4 *src, __local float4 *dst) {
  for (int i = get_local_id(0); i < NGP; i += get_local_size(0)) {
    const int q = i / K, k = i - q * K;
    dst[i] = src[PCO[q] + k * PCG[q]];
  }
}

/* Stages the perception coefficients that run the stacks (coef, into
 * pcoef) and returns where those of their derivatives are: pcoef itself,
 * or, under the straight-through relaxation (ST: hard gates forward, the
 * soft gradient backward), dcoef staged into pdcoef_st. */
inline __local const float4 *stage_perc_coefs(__global const float4 *coef, __global const float4 *dcoef,
                                              __local float4 *pcoef, __local float4 *pdcoef_st) {
  stage_perc_coef(coef, pcoef);
#if ST
  stage_perc_coef(dcoef, pdcoef_st);
  return pdcoef_st;
#else
  return pcoef;
#endif
}

/* The update input's width (doc/semantics.md section 3.3), US[0] */
#define UIN (C + C * S * K)
/* Perception pairs (channel, kernel) per thread, and update gates per thread. */
#define PAIR_SLOTS ((C * K + WG - 1) / WG)
/* A thread's pairs p = tid + ps WG all have kernel k = p mod K when WG is a
 * multiple of K, so their perception sums can share one register set
 * (PACC 1: growth's two slots, 120 floats, become 60); step 6 of
 * dlca_backward then sums PROWS channel rows instead of C. */
#define PACC (WG % K == 0 ? 1 : PAIR_SLOTS)
#define PROWS (PACC == 1 && C * K > WG ? WG / K : C)
/* Per-work-group partial sums: perception [K][PG1][4] (summed over channels
 * inside the work-group), then update [NGU][4]. */
#define ACC_PERC (K * PG1 * 4)
#define ACC_STRIDE (ACC_PERC + NGU * 4)

/* doc/semantics.md section 1: a gate is c0 + c1 a + c2 b + c3 ab (same order as the twin). */
inline float gate_eval(float4 c, float a, float b) { return c.x + c.y * a + c.z * b + c.w * a * b; }

/* Value x of a unit's patches (as load_patch lays them out, one after
 * another from cell base; a missing cell past the end takes the last one's). */
inline float unit_patch_value(__global const float *grid, int x, int base, int cells, int H, int W) {
  const int j = x / (9 * C), i = x - j * 9 * C, f = i / C;
  return cell_neighbour_value(grid, base + j < cells ? base + j : cells - 1, f, i - f * C, H, W);
}

/* patch[f*C + c] = channel c of neighbour f of cell `cell` (neighbour_value). */
inline void load_patch(__global const float *grid, int cell, int H, int W, __local float *patch) {
  const int b = cell / (H * W), r = (cell / W) % H, q = cell % W;
  for (int i = get_local_id(0); i < 9 * C; i += WG) patch[i] = neighbour_value(grid, b, r, q, i / C, i % C, H, W);
}

/* One perception stack (kernel k on channel c) in private memory; x[PTOT].
 * Every loop bound and wire is a compile-time constant: x stays in registers. */
inline void perceive_forward(__local const float4 *coef, __local const float *patch, int c, int k, float *x PW_DECL) {
DLCA_UNROLL
  for (int f = 0; f < 9; f++) x[f] = patch[f * C + c];
DLCA_UNROLL
  for (int q = 0; q < PG1; q++) x[9 + q] = gate_eval(coef[q * K + k], x[PXA_(q)], x[PXB_(q)]);
}

/* One perception stack's backward, kernel k on channel c of one cell:
 * recompute it privately from the patch, backprop its S outputs' gradients
 * (din is the cell's update-input gradient row: output s at
 * C + c S K + s K + k), add its gate sums to A[q * 4 + 0..3], and leave
 * dL/dpatch of channel c in out[0..8]. */
inline void perceive_backward(__local const float4 *pcoef, __local const float4 *pdcoef, __local const float *patch,
                              __local const float *din, int c, int k, float *A, __local float *out PW_DECL) {
  float x[PTOT], dx[PTOT];
  perceive_forward(pcoef, patch, c, k, x PW_PASS(pwires));
DLCA_UNROLL
  for (int i = 0; i < PTOT; i++) dx[i] = 0.0f;
DLCA_UNROLL
  for (int s = 0; s < S; s++) dx[PTOT - S + s] = din[C + c * S * K + s * K + k];
DLCA_UNROLL
  for (int r = 0; r < PG1; r++) {
    const int q = PBQ[r], ia = PXA_(q), ib = PXB_(q);
    float d = dx[9 + q], a = x[ia], bb = x[ib];
    float4 cf = pdcoef[q * K + k];
    A[q * 4 + 0] += d, A[q * 4 + 1] += d * a, A[q * 4 + 2] += d * bb, A[q * 4 + 3] += d * a * bb;
    dx[ia] += d * (cf.y + cf.w * bb);
    dx[ib] += d * (cf.z + cf.w * a);
  }
DLCA_UNROLL
  for (int f = 0; f < 9; f++) out[f] = dx[f];
}

/* dL/dpatch[f] of channel c of one cell: the centre's own gradient (f = 4,
 * din[c]) and the K stacks' columns cols[(c K + k) 9 + f]. */
inline float patch_gradient(__local const float *din, __local const float *cols, int f, int c) {
  float s = f == 4 ? din[c] : 0.0f;
  for (int k = 0; k < K; k++) s += cols[(c * K + k) * 9 + f];
  return s;
}
