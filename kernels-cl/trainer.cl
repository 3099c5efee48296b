/* The device training epoch (spec/dlca.md sections 1-4; doc/kernels.md): gate
 * coefficients, start grids, one launch per forward step, one fused launch
 * per backward step, and one launch for gradient reduction + clip + AdamW.
 * CPU twin: lib/ref/ (forward.c, backward.c, optim.c, gates.c).
 *
 * A macro these kernels read is one of three kinds:
 *  - a tunable: a `// @tunable NAME DEFAULT CANDIDATES | ALLOWED` line with
 *    an #ifndef fallback; the kernel loader injects its tuned value as a
 *    #define line and refuses one outside ALLOWED (doc/tuning-table.md);
 *  - a constant or a value derived from the others (#define, no #ifndef);
 *  - a value the host sets: the -D options of lib/cl/cl_trainer.c (build),
 *    listed here and nowhere else.
 * Host-set (-D), the model's shape and the plan of this run:
 *   C, K, S, NP, P_SIZES (NP+1 widths), NU, U_SIZES (NU+1 widths), U_FANOUT
 *   (the reverse wiring's width of each update layer), PERIODIC, ASYNC,
 *   NLOSS, LOSS_CH (NLOSS channels), PTOT (sum of P_SIZES), UTOTAL (sum of
 *   U_SIZES), PG1 (gates of one perception stack), NGP (perception gates,
 *   K*PG1), NGU (update gates), DW (widest update vector), GMAX (widest
 *   update layer), ST (1: straight-through forward), NPG (logits per gate:
 *   16 for softmax, 4 for the input-wise parametrisation; only dlca_coef
 *   and dlca_adamw read it), CPW (cells a backward unit), CPWP (cells a unit
 *   of dlca_backward_perc), ACTF (floats of one cell's activations), PACT
 *   (floats of one cell's act row in dlca_backward), LWG (the work-group
 *   size taken: WG or WG_NARROW), PERSIST (1: the one-launch backward pass,
 *   BWD_PERSIST), PSPLIT (1: the perception stacks' backward is
 *   dlca_backward_perc, PERC_SPLIT_CELLS), PUSH and PUSH_OFFS (BWD_PUSH
 *   taken, and its slot offsets), TAIL_L (BWD_TAIL taken: its first layer),
 *   BWD_NREG (dlca_backward's register cap), NV_PTX (1 on NVIDIA: inline PTX
 *   for fences and warp barriers), P_XA, P_XB, P_CO, P_CG, P_BQ (one
 *   perception stack as a flat list of gates: compile-time tables, so that
 *   a stack unrolls into registers) and P_WIRES (passed, not read here);
 *   SPIN_MAX (the persistent waits' polls: the host on CPU devices, tests)
 *   and PERSIST_NEVER (tests only) come from DLCA_CL_BUILD_OPTIONS. */
#include "rng.cl"
#include "grid.cl"

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
 * unit for the same registers (lib/cl/cl_trainer.c: plan_groups). */
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
/* Which forward and backward steps the host runs (lib/cl/cl_trainer.c):
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
 * host only (lib/cl/cl_trainer.c: nwg_perc) */
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
 * pulling them through the reverse wiring (doc/kernels.md, "The push
 * backward"). Input i of a layer with n inputs, read by gates in the order
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
__constant int PXA[PG1] = {P_XA}, PXB[PG1] = {P_XB}, PCO[PG1] = {P_CO}, PCG[PG1] = {P_CG}, PBQ[PG1] = {P_BQ};

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

/* The update input's width (spec section 3.3), US[0] */
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

/* spec section 1: a gate is c0 + c1 a + c2 b + c3 ab (same order as the twin). */
inline float gate_eval(float4 c, float a, float b) { return c.x + c.y * a + c.z * b + c.w * a * b; }

/* The reverse wiring's coefficients (rcoef, parallel to rev): an update
 * gate's thread in dlca_coef writes the (c1, c3) that its input a needs and
 * the (c2, c3) of input b to the slots rslot[gate] of its two reverse
 * entries, from the soft set (also under straight-through), so that
 * dlca_backward reads them in the reverse table's order, coalesced, instead
 * of gathering a float4 of dcoef per entry (doc/kernels.md). The
 * padding slots stay zero (the host clears them). */
inline void write_rev_coef(__global const int2 *rslot, __global float2 *rcoef, int g, float4 c) {
  if (g < NGP) return;
  const int2 sl = rslot[g - NGP];
  rcoef[sl.x] = (float2)(c.y, c.w);
  rcoef[sl.y] = (float2)(c.z, c.w);
}

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
inline void perceive_forward(__local const float4 *coef, __local const float *patch, int c, int k, float *x) {
DLCA_UNROLL
  for (int f = 0; f < 9; f++) x[f] = patch[f * C + c];
DLCA_UNROLL
  for (int q = 0; q < PG1; q++) x[9 + q] = gate_eval(coef[q * K + k], x[PXA[q]], x[PXB[q]]);
}

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
      perceive_forward(pcoef, patch + j * pstride, c, k, x);
      /* spec section 3.2: output s of kernel k on channel c at C + c*(S*K) + s*K + k */
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

/* One perception stack's backward, kernel k on channel c of one cell:
 * recompute it privately from the patch, backprop its S outputs' gradients
 * (din is the cell's update-input gradient row: output s at
 * C + c S K + s K + k), add its gate sums to A[q * 4 + 0..3], and leave
 * dL/dpatch of channel c in out[0..8]. */
inline void perceive_backward(__local const float4 *pcoef, __local const float4 *pdcoef, __local const float *patch,
                              __local const float *din, int c, int k, float *A, __local float *out) {
  float x[PTOT], dx[PTOT];
  perceive_forward(pcoef, patch, c, k, x);
DLCA_UNROLL
  for (int i = 0; i < PTOT; i++) dx[i] = 0.0f;
DLCA_UNROLL
  for (int s = 0; s < S; s++) dx[PTOT - S + s] = din[C + c * S * K + s * K + k];
DLCA_UNROLL
  for (int r = 0; r < PG1; r++) {
    const int q = PBQ[r], ia = PXA[q], ib = PXB[q];
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

/* The logits z of gate g in this epoch: the logits, plus one draw of the
 * host's noise table per logit when use_gumbel (issue 6; Gumbel for
 * softmax-16, logistic for IWP; the twin is dlca__noisy_logits in
 * lib/train/relax.c, doc/rng.md). */
inline void noisy_logits(__global const float *l, __global const float *gumbel, int use_gumbel, ulong key, int g,
                         float *z) {
  for (int i = 0; i < NPG; i++) {
    z[i] = l[i];
    if (use_gumbel) z[i] += gumbel[dlca_rng_u32(key, 0xFFFFFF00u, (uint)(NPG * g + i)) >> 16];
  }
}

__constant float4 GATE_M[16] = {
    (float4)(0, 0, 0, 0),   (float4)(0, 0, 0, 1),  (float4)(0, 1, 0, -1),  (float4)(0, 1, 0, 0),
    (float4)(0, 0, 1, -1),  (float4)(0, 0, 1, 0),  (float4)(0, 1, 1, -2),  (float4)(0, 1, 1, -1),
    (float4)(1, -1, -1, 1), (float4)(1, -1, -1, 2), (float4)(1, 0, -1, 0), (float4)(1, 0, -1, 1),
    (float4)(1, -1, 0, 0),  (float4)(1, -1, 0, 1), (float4)(1, 0, 0, -1),  (float4)(1, 0, 0, 0)};

#if NPG == 4
/* IWP: the hard op is the truth table of the signs, bit 3 op(0,0) ... bit 0
 * op(1,1) (spec section 1's numbering); twin: dlca__hard_op. */
inline int hard_op(const float *w) {
  return 8 * (w[0] > 0.0f) + 4 * (w[1] > 0.0f) + 2 * (w[2] > 0.0f) + (w[3] > 0.0f);
}

/* sigmoid(x) and s (1 - s) without cancellation, as sigmoid_d in lib/ref/gates.c */
inline void sigmoid_d(real_t x, real_t *s, real_t *ds) {
  real_t e = exp(-fabs(x)), q = (real_t)1 / ((real_t)1 + e);
  *s = x >= 0 ? q : e * q;
  *ds = e * q * q;
}

/* Per-gate coefficients of the input-wise parametrisation (issue 6):
 * s_ab = sigmoid(z_ab * inv_tau), c = (s00, s10 - s00, s01 - s00,
 * s00 - s01 - s10 + s11), in real_t as the twin computes them in double;
 * the hard sets are rows of M as for softmax-16. One thread per gate. */
__kernel void dlca_coef(__global const float *params, __global float4 *coef, __global float4 *coef_hard,
                        __global float4 *coef_st, int st, __global const float *gumbel, int use_gumbel, ulong key,
                        float inv_tau, int n_gates, __global const int2 *rslot, __global float2 *rcoef,
                        __global const int *gkey) {
  int g = get_global_id(0);
  if (g >= n_gates) return;
  __global const float *l = params + 4 * (size_t)g;
  float z[4], lc[4];
  noisy_logits(l, gumbel, use_gumbel, key, gkey[g], z);
  for (int i = 0; i < 4; i++) lc[i] = l[i];
  real_t sv[4], ds;
  for (int i = 0; i < 4; i++) sigmoid_d((real_t)z[i] * inv_tau, &sv[i], &ds);
  const float4 c = (float4)((float)sv[0], (float)(sv[2] - sv[0]), (float)(sv[1] - sv[0]),
                            (float)(sv[0] - sv[1] - sv[2] + sv[3]));
  coef[g] = c;
  write_rev_coef(rslot, rcoef, g, c);
  coef_hard[g] = GATE_M[hard_op(lc)];
  if (st) coef_st[g] = GATE_M[hard_op(z)];
}
#else
inline int argmax16(const float *z) {
  int best = 0;
  for (int i = 1; i < 16; i++)
    if (z[i] > z[best]) best = i;
  return best;
}

/* Per-gate coefficients c = M^T softmax(z * inv_tau) (soft), the one-hot
 * argmax of the clean logits (hard, ties to the lowest index: evaluation),
 * and, when st, the one-hot argmax of z (the straight-through forward pass).
 * One thread per gate. */
__kernel void dlca_coef(__global const float *params, __global float4 *coef, __global float4 *coef_hard,
                        __global float4 *coef_st, int st, __global const float *gumbel, int use_gumbel, ulong key,
                        float inv_tau, int n_gates, __global const int2 *rslot, __global float2 *rcoef,
                        __global const int *gkey) {
  int g = get_global_id(0);
  if (g >= n_gates) return;
  __global const float *l = params + 16 * (size_t)g;
  float z[16], lc[16];
  noisy_logits(l, gumbel, use_gumbel, key, gkey[g], z);
  for (int i = 0; i < 16; i++) lc[i] = l[i];
  const int bz = argmax16(z);
  float p[16], s = 0;
  for (int i = 0; i < 16; i++) s += (p[i] = exp((z[i] - z[bz]) * inv_tau));
  float inv = 1.0f / s;
  for (int i = 0; i < 16; i++) p[i] *= inv;
  /* c = M^T p with M of spec section 1 (rows: FALSE, AND, A&~B, A, ~A&B, B, XOR, OR,
   * NOR, XNOR, ~B, A|~B, ~A, ~A|B, NAND, TRUE) */
  float c0 = p[8] + p[9] + p[10] + p[11] + p[12] + p[13] + p[14] + p[15];
  float c1 = p[2] + p[3] + p[6] + p[7] - p[8] - p[9] - p[12] - p[13];
  float c2 = p[4] + p[5] + p[6] + p[7] - p[8] - p[9] - p[10] - p[11];
  float c3 = p[1] - p[2] - p[4] - 2.0f * p[6] - p[7] + p[8] + 2.0f * p[9] + p[11] + p[13] - p[14];
  coef[g] = (float4)(c0, c1, c2, c3);
  write_rev_coef(rslot, rcoef, g, (float4)(c0, c1, c2, c3));
  coef_hard[g] = GATE_M[argmax16(lc)];
  if (st) coef_st[g] = GATE_M[bz];
}
#endif

/* Start grids of one epoch (doc/rng.md): kind 0 random bits, 1 seed cell, 2 zeros. */
__kernel void dlca_start(__global float *x, int kind, ulong key, int B, int H, int W) {
  size_t i = get_global_id(0), n = (size_t)B * H * W * C;
  if (i >= n) return;
  float v = 0.0f;
  if (kind == 0) {
    v = (float)(dlca_rng_u32(key, 0u, (uint)i) >> 31);
  } else if (kind == 1) {
    size_t cell = i / C, in_grid = cell % ((size_t)H * W);
    v = in_grid == (size_t)(H / 2) * W + W / 2 ? 1.0f : 0.0f;
  }
  x[i] = v;
}

#if KERNELS == 0
/* (With KERNELS 1 the host runs trainer_cpu.cl's steps: these two are left
 * out, so that the program builds in a fraction of the time.) */

/* One forward step. Work-group `grp` handles cells grp, grp + NWG, ... */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void dlca_forward(
    __global const float *cur_base, ulong cur_off, __global float *nxt_base, ulong nxt_off,
    __global const float4 *coef, __global const int *wires,
    __global const uchar *masks, int use_masks, ulong mask_key, float rate, int t, int B, int H, int W,
    __local float *act, __local float *patch, __local float4 *pcoef) {
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
    /* an async cell that did not fire keeps its state (spec section 3) */
    for (int c = tid; c < C; c += WG) nxt[(size_t)cell * C + c] = fired ? act[UTOTAL - C + c] : patch[4 * C + c];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

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
    __local float *patch, __local float *dout, __local float4 *pcoef, __local float4 *pdcoef_st) {
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
    /* the unit's patch values are loaded before step 1's loads and stored
     * after them, so that a thread waits for one round trip, not two */
    float pv[PSL];
DLCA_UNROLL
    for (int s = 0; s < PSL; s++) {
      const int x = tid + s * WG;
      pv[s] = x < CPW * 9 * C ? unit_patch_value(state_t, x, base, cells, H, W) : 0.0f;
    }
#endif
    /* 1. dL/d(state_{t+1}) of each cell */
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
            loss += e * e;
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
    /* 2. a cell that did not fire at step t passes nothing through its
     * circuit: its circuit runs with dout = 0, which adds exact zeros. (No early
     * exit: a barrier-free path out of this loop miscompiles on PoCL.) */
    float fired[CPW];
    for (int j = 0; j < CPW; j++) {
      const int cell = base + j;
      fired[j] = cell < cells && fires(masks, use_masks, mask_key, rate, t, cells, cell) ? 1.0f : 0.0f;
      /* 3. recompute the forward pass of each cell at step t (a missing cell
       * past the end reuses the last one's grid: its results are discarded) */
#if !PATCH_FIRST
      load_patch(state_t, cell < cells ? cell : cells - 1, H, W, patch + j * 9 * C);
#endif
    }
#if PATCH_FIRST
DLCA_UNROLL
    for (int s = 0; s < PSL; s++)
      if (tid + s * WG < CPW * 9 * C) patch[tid + s * WG] = pv[s];
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    cell_forward(coef, pcoef, wires, patch, act, CPW, 9 * C, BACT, TAIL);
#if PUSH
    /* the output gradient: PUSH_OFF[NU], one slot (over the last layer's
     * outputs, which nothing reads) */
    for (int jc = tid; jc < CPW * C; jc += WG) {
      const int j = jc / C, c = jc - j * C;
      act[j * BACT + PUSH_OFF[NU] + c] = dout[jc] * fired[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* 4. update layers, last to first, one barrier per layer (BWD_PUSH):
     * gate g of layer l reads its output gradient d (the sum of its UF[l + 1]
     * slots), adds its 4 sums d, d a, d b, d a b, and stores d (c1 + c3 b)
     * and d (c2 + c3 a) into its inputs' slots (pwire). The pwire entry and
     * the coefficients of slot 0's gate are loaded one layer ahead, slot 1's
     * at the start of the phase (BWD_EARLY). */
    {
      int ao = UTOTAL - C, go = NGU, slot = group_slots();
      int4 pw = (int4)(0);
      float4 pc = (float4)(0.0f);
#if TAIL
      /* BWD_TAIL: warp 0 pushes layers NU - 1 .. TAIL_L first, a gate a
       * lane, its sums in accU[slot] (past the group layers' slots); layer
       * TAIL_L - 1's slot-0 tables load meanwhile */
      {
        int tg, tgo, two;
        const int lt = tail_gate(tid, &tg, &tgo, &two);
        int4 tw = (int4)(0);
        float4 tk = (float4)(0.0f);
        if (lt < NU) tw = pwire[tgo - NGP + tg], tk = dcoef[tgo + tg];
        for (int l = TAIL_L; l < NU; l++) ao -= US[l], go -= US[l + 1];
        if (tid < US[TAIL_L]) pw = pwire[go - US[TAIL_L] + tid], pc = dcoef[NGP + go - US[TAIL_L] + tid];
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
        /* a slot's loads for all its cells first, then its stores
         * (push_gate); the loads of both slots before any store take too
         * many registers */
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
#else
    /* dact ping-pongs between two rows of DW floats: layer l's output
     * gradients are in row (l + 1) & 1, its input gradients go to row l & 1,
     * so the update input's gradient ends in row 0. */
    for (int jc = tid; jc < CPW * C; jc += WG) {
      const int j = jc / C, c = jc - j * C;
      dact[j * 2 * DW + (NU & 1) * DW + c] = dout[jc] * fired[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* 4. update layers, last to first, one barrier per layer. Layer l reads
     * its output gradients from dact row (l + 1) & 1 and writes its input
     * gradients to row l & 1, so nothing written in a layer is read in it:
     *  - gate g adds its 4 sums d, d a, d b, d a b;
     *  - input i walks the gates that read it (reverse wiring, ELL: entry k of
     *    input i at rev[rb + k n + i] = (2 gate + side, the gate's other input),
     *    gate < 0 past its fan-out UF[l]) and sums d (c1 + c3 b) (side a) or
     *    d (c2 + c3 a) (side b), in entry order, so no two threads write one
     *    value; its (c1 | c2, c3) is rcoef[the entry's index], which
     *    dlca_coef wrote from dcoef.
     * The wires of slot 0's gate and the first RPF entries of slot 0's input
     * (and with CPF their coefficients) are loaded one layer ahead. */
    {
      int ao = UTOTAL - C, wo = 2 * PG1, rb = 0, slot = 0;
      for (int l = 0; l < NU; l++) wo += 2 * US[l + 1], rb += UF[l] * US[l], slot += (US[l + 1] + WG - 1) / WG;
      int pa = 0, pb = 0;
      int2 pe[RPF];
      float2 pcf[RPF];
      {
        const int G = US[NU], n1 = US[NU - 1], R1 = UF[NU - 1];
        if (tid < G) pa = wires[wo - 2 * G + tid], pb = wires[wo - G + tid];
DLCA_UNROLL
        for (int k = 0; k < RPF; k++) {
          const int e = rb - R1 * n1 + k * n1 + tid, in = k < R1 && tid < n1;
          pe[k] = in ? rev[e] : (int2)(-1, 0);
          pcf[k] = in ? rcoef[e] : (float2)(0.0f);
        }
      }
DLCA_UNROLL
      for (int l = NU - 1; l >= 0; l--) {
        const int n = US[l], G = US[l + 1], R = UF[l];
        ao -= n, wo -= 2 * G, rb -= R * n, slot -= (G + WG - 1) / WG;
        const int wa0 = pa, wb0 = pb;
        int2 e0[RPF];
        float2 c0[RPF];
DLCA_UNROLL
        for (int k = 0; k < RPF; k++) e0[k] = pe[k], c0[k] = pcf[k];
        /* BWD_EARLY: slot 1's entries (with 0 the compiler drops these) */
        int ew1a = 0, ew1b = 0;
        int2 ee1[EARLY_R];
        float2 ec1[EARLY_R];
        if (BWD_EARLY && G > WG && tid + WG < G) ew1a = wires[wo + tid + WG], ew1b = wires[wo + G + tid + WG];
DLCA_UNROLL
        for (int k = 0; k < EARLY_R; k++) {
          const int in1 = BWD_EARLY && k < R && n > WG && tid + WG < n, e = rb + k * n + tid + WG;
          ee1[k] = in1 ? rev[e] : (int2)(-1, 0);
          ec1[k] = in1 ? rcoef[e] : (float2)(0.0f);
        }
        if (l > 0) {
          const int G1 = US[l], n1 = US[l - 1], R1 = UF[l - 1];
          if (tid < G1) pa = wires[wo - 2 * G1 + tid], pb = wires[wo - G1 + tid];
DLCA_UNROLL
          for (int k = 0; k < RPF; k++) {
            const int e = rb - R1 * n1 + k * n1 + tid, in = k < R1 && tid < n1;
            pe[k] = in ? rev[e] : (int2)(-1, 0);
            pcf[k] = in ? rcoef[e] : (float2)(0.0f);
          }
        }
        __local const float *dg = dact + ((l + 1) & 1) * DW;
        __local float *di = dact + (l & 1) * DW;
DLCA_UNROLL
        for (int i = 0; i < (G + WG - 1) / WG; i++) {
          const int g = tid + i * WG;
          if (g < G) {
            const int ia = i == 0 ? wa0 : BWD_EARLY && i == 1 ? ew1a : wires[wo + g];
            const int ib = i == 0 ? wb0 : BWD_EARLY && i == 1 ? ew1b : wires[wo + G + g];
            for (int j = 0; j < CPW; j++) {
              float d = dg[j * 2 * DW + g], a = act[j * BACT + ao + ia], bb = act[j * BACT + ao + ib];
              accU[slot + i][0] += d, accU[slot + i][1] += d * a, accU[slot + i][2] += d * bb;
              accU[slot + i][3] += d * a * bb;
            }
          }
        }
DLCA_UNROLL
        for (int ii = 0; ii < (n + WG - 1) / WG; ii++) {
          const int i = tid + ii * WG;
          if (i < n) {
            float sum[CPW];
            for (int j = 0; j < CPW; j++) sum[j] = 0.0f;
            for (int k = 0; k < R; k++) {
              const int pf = ii == 0 && k < RPF, pf1 = BWD_EARLY && ii == 1 && k < EARLY_R;
              const int2 ent = pf ? e0[k < RPF ? k : 0] : pf1 ? ee1[k < EARLY_R ? k : 0] : rev[rb + k * n + i];
              /* (loaded for padding entries too: made to wait for ent, the
               * load costs more than the padding's loads) */
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
        barrier(CLK_LOCAL_MEM_FENCE);
      }
    }
#endif
#if PUSH
    /* 5. the update input's gradient of each cell (the sum of its slots) to
     * dU: the perception stacks' backward is dlca_backward_perc's */
    for (int ji = tid; ji < CPW * UIN; ji += WG) {
      const int j = ji / UIN, i = ji - j * UIN;
      __local const float *D = act + j * BACT + PUSH_OFF[0];
      const int2 r = ((__global const int2 *)(pwire + NGU))[i];
      if (base + j < cells) dU[(size_t)(base + j) * UIN + i] = slot_sum(D, UIN, i, r.x, r.y, UF[0]);
    }
#elif PSPLIT
    /* 5. the update input's gradient of each cell to dU: the perception
     * stacks' backward is dlca_backward_perc's, a launch of its own */
    for (int ji = tid; ji < CPW * UIN; ji += WG) {
      const int j = ji / UIN, i = ji - j * UIN;
      if (base + j < cells) dU[(size_t)(base + j) * UIN + i] = dact[j * 2 * DW + i];
    }
#else
    /* 5. perception stacks: recompute privately, backprop, and leave each
     * pair's dL/dpatch column in act (no longer needed) */
DLCA_UNROLL
    for (int ps = 0; ps < PAIR_SLOTS; ps++) {
      const int p = tid + ps * WG;
      if (p < C * K)
        for (int j = 0; j < CPW; j++)
          perceive_backward(pcoef, pdcoef, patch + j * 9 * C, dact + j * 2 * DW, p / K, p % K,
                            accP[PACC == 1 ? 0 : ps], act + j * BACT + p * 9);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int ji = tid; ji < CPW * 9 * C; ji += WG) {
      const int j = ji / (9 * C), i = ji - j * 9 * C, f = i / C, c = i - f * C;
      if (base + j >= cells) continue;
      dP_cur[(size_t)(base + j) * 9 * C + i] = patch_gradient(dact + j * 2 * DW, act + j * BACT, f, c);
    }
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
  /* update gates: FCHUNK slots of a thread read, then added and written */
  {
    __global float4 *m4 = (__global float4 *)(mine + ACC_PERC);
#define NSLOTS (NGU / WG + NU)
#define FCHUNK 8
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
      /* BWD_TAIL: the lane's tail gate, its sums in the slot past the group
       * layers' */
      int tg, tgo, two;
      const int lt = tail_gate(tid, &tg, &tgo, &two), ts = group_slots();
      if (lt < NU) m4[tgo - NGP + tg] += (float4)(accU[ts][0], accU[ts][1], accU[ts][2], accU[ts][3]);
    }
#endif
  }
  if (PERSIST || t_arg == T - 1) {
    /* fixed-tree reduction of the loss over the work-group */
    barrier(CLK_LOCAL_MEM_FENCE);
    dout[tid] = loss; /* dout holds max(CPW * C, WG) floats */
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
      if (tid < s) dout[tid] += dout[tid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) loss_partial[grp] = dout[0];
  }
}

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
    __local float4 *pcoef, __local float4 *pdcoef_st) {
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
                            accP[PACC == 1 ? 0 : ps], cols + (j * C * K + p) * 9);
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

#endif

/* Gradient reduction + clip + AdamW: one thread per gate. The 4 sums dL/dc
 * are summed over work-groups (and channels, for perception gates) in a fixed
 * order; then dL/dp = M dL/dc, dL/dlogit = p (dL/dp - p . dL/dp) (spec section 1). */
__kernel void dlca_adamw(__global float *params, __global float *grad, __global float *m, __global float *v,
                         __global const float *partial, int nwg, __global const float *loss_partial,
                         __global float *loss_out, __global int *flags, int units, float lr, float b1, float b2,
                         float eps, float wd, float clip, float bc1, float bc2, __global const float *gumbel, int use_gumbel, ulong key,
                         float inv_tau, float gn_sigma, __global const int *gkey) {
  const int g = get_global_id(0);
  if (g == 0) {
    float s = 0.0f;
    for (int i = 0; i < nwg; i++) s += loss_partial[i];
    loss_out[0] = s;
    /* PERSIST: the status word travels with the loss; the step flags are
     * cleared for the next epoch (units is 0 without PERSIST) */
    loss_out[1] = as_float(units ? flags[units] : 0);
  }
  for (int i = g; i < units; i += get_global_size(0)) flags[i] = 0;
  if (g >= NGP + NGU) return;
  real_t dc0 = 0, dc1 = 0, dc2 = 0, dc3 = 0;
  if (g < NGP) {
    /* perception gate g: layer l, kernel k, gate i -> stack index q */
    int rest = g, go = 0, q = 0, k = 0;
    for (int l = 0; l < NP; l++) {
      int G = PS[l + 1];
      if (rest < K * G) {
        k = rest / G;
        q = go + rest % G;
        break;
      }
      rest -= K * G, go += G;
    }
    for (int w = 0; w < nwg; w++) {
      __global const float *a = partial + (size_t)w * ACC_STRIDE + (k * PG1 + q) * 4;
      dc0 += a[0], dc1 += a[1], dc2 += a[2], dc3 += a[3];
    }
  } else {
    for (int w = 0; w < nwg; w++) {
      __global const float *a = partial + (size_t)w * ACC_STRIDE + ACC_PERC + (g - NGP) * 4;
      dc0 += a[0], dc1 += a[1], dc2 += a[2], dc3 += a[3];
    }
  }
  __global float *l = params + NPG * (size_t)g;
  float z[NPG];
  /* the noise of gate g is keyed by its index in the model (gkey: the
   * identity, or the model's order where the device runs another,
   * BWD_BANKS), so that it does not depend on the order */
  const int gk = gkey[g];
  noisy_logits(l, gumbel, use_gumbel, key, gk, z);
  real_t gz[NPG];
#if NPG == 4
  /* IWP: s = sigmoid(z * inv_tau); dL/ds from c = (s00, s10 - s00, s01 - s00,
   * s00 - s01 - s10 + s11), then dL/dz = dL/ds s (1 - s) inv_tau */
  const real_t dsum[4] = {dc0 - dc1 - dc2 + dc3, dc2 - dc3, dc1 - dc3, dc3};
  for (int i = 0; i < 4; i++) {
    real_t sv, ds;
    sigmoid_d((real_t)z[i] * inv_tau, &sv, &ds);
    gz[i] = dsum[i] * ds * inv_tau;
  }
#else
  /* p = softmax(z * inv_tau) of this epoch's (noisy) logits, as dlca_coef;
   * dL/dz = p (dp - p . dp) inv_tau is the gradient of the logits */
  real_t mx = z[0];
  for (int i = 1; i < 16; i++) mx = fmax(mx, (real_t)z[i]);
  real_t p[16], s = 0;
  for (int i = 0; i < 16; i++) s += (p[i] = exp(((real_t)z[i] - mx) * inv_tau));
  real_t dp[16], dot = 0;
  for (int i = 0; i < 16; i++) {
    const float4 M = GATE_M[i];
    p[i] /= s;
    dp[i] = M.x * dc0 + M.y * dc1 + M.z * dc2 + M.w * dc3;
    dot += p[i] * dp[i];
  }
  for (int i = 0; i < 16; i++) gz[i] = p[i] * (dp[i] - dot) * inv_tau;
#endif
  for (int i = 0; i < NPG; i++) {
    size_t j = NPG * (size_t)g + i;
    float gr = (float)gz[i];
    grad[j] = gr;
    if (gn_sigma > 0.0f) {
      /* annealed gradient noise (issue 6), before clipping; twin: dlca__grad_noise */
      const uint jk = (uint)(NPG * gk + i);
      float u1 = ((float)(dlca_rng_u32(key, 0xFFFFFF01u, 2u * jk) >> 8) + 0.5f) * (1.0f / 16777216.0f);
      float u2 = (float)(dlca_rng_u32(key, 0xFFFFFF01u, 2u * jk + 1u) >> 8) * (1.0f / 16777216.0f);
      gr += gn_sigma * (sqrt(-2.0f * log(u1)) * cos(6.2831853f * u2));
    }
    gr = clamp(gr, -clip, clip);
    float mi = b1 * m[j] + (1.0f - b1) * gr, vi = b2 * v[j] + (1.0f - b2) * gr * gr;
    m[j] = mi, v[j] = vi;
    float mh = mi / bc1, vh = vi / bc2;
    l[i] = l[i] - lr * (mh / (sqrt(vh) + eps) + wd * l[i]);
  }
}

/* Hard evaluation: loss and errors over the loss channels, one work-group,
 * fixed-tree reduction. out = (loss, errors). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void dlca_eval(__global const float *s,
                                                                      __global const float *y, int cells,
                                                                      __global float *out, __local float *red) {
  const int tid = get_local_id(0);
  float loss = 0.0f, err = 0.0f;
  for (int i = tid; i < cells; i += WG)
    for (int j = 0; j < NLOSS; j++) {
      size_t k = (size_t)i * C + LOSS[j];
      float d = s[k] - y[k];
      loss += d * d;
      err += fabs(d) >= 0.5f ? 1.0f : 0.0f;
    }
  for (int pass = 0; pass < 2; pass++) {
    red[tid] = pass ? err : loss;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = WG / 2; h > 0; h >>= 1) {
      if (tid < h) red[tid] += red[tid + h];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[pass] = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
