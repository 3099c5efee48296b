/* trainer_tile.cl: the tile's tunables and shape, the tile's patch and its
 * perception stacks, which the tile steps share (doc/kernels.md). */

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
/* one perception stack as a flat list of gates (host: build.c, perception_options), as in trainer.cl */
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
 * base + lane (doc/semantics.md section 3.1); 0 outside a zero-padded grid and past the
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
