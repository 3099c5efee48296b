/* The grid semantics that trainer.cl, trainer_cpu.cl and trainer_tile.cl
 * share: the 3x3 neighbourhood's boundaries, the async fire masks
 * (doc/semantics.md section 3) and the gather of a state gradient from the
 * neighbours' patch gradients. Needs -DPERIODIC, -DASYNC and -DC. */
#ifndef DLCA_GRID_CL
#define DLCA_GRID_CL
#include "rng.cl"

/* The fire mask of cell `cell` at step t, as dlca_fire_mask() in lib/ref/forward.c. */
inline int fires(__global const uchar *masks, int use_masks, ulong key, float rate, int t, int cells, int cell) {
#if ASYNC
  if (use_masks) return masks[(size_t)t * cells + cell] != 0;
  uint u = dlca_rng_u32(key, 1u + (uint)t, (uint)cell) >> 8;
  return (float)u * (1.0f / 16777216.0f) < rate;
#else
  return 1;
#endif
}

/* Row rr, column qq of a neighbour: wrapped (periodic) or whether it is
 * inside the grid (zero boundaries: outside reads as 0). */
inline int wrap_ok(int *rr, int *qq, int H, int W) {
#if PERIODIC
  *rr = (*rr + H) % H;
  *qq = (*qq + W) % W;
  return 1;
#else
  return *rr >= 0 && *rr < H && *qq >= 0 && *qq < W;
#endif
}

/* Channel c of neighbour f = 3 dr + dq, cell (r + dr - 1, q + dq - 1), of
 * cell (r, q) of sample b of the batch's grid (doc/semantics.md section 3.1): wrapped,
 * or 0 outside a zero-padded grid. */
inline float neighbour_value(__global const float *grid, int b, int r, int q, int f, int c, int H, int W) {
  int rr = r + f / 3 - 1, qq = q + f % 3 - 1;
  return wrap_ok(&rr, &qq, H, W) ? grid[(((size_t)b * H + rr) * W + qq) * C + c] : 0.0f;
}

/* The same, of cell `cell` (b H W + r W + q) */
inline float cell_neighbour_value(__global const float *grid, int cell, int f, int c, int H, int W) {
  return neighbour_value(grid, cell / (H * W), (cell / W) % H, cell % W, f, c, H, W);
}

/* dL/d(state_{t+1}), channel c of cell `cell`, below the top step: the sum
 * of the 9 neighbours' dP_{t+1} entries that read the cell (cell (r, q) is
 * patch element f = 3 dr + dq of its neighbour (r - dr + 1, q - dq + 1);
 * f = 0 .. 8, the order of every kernel's sum), plus g_{t+2} for an async
 * cell that did not fire at t + 1. dP_next is [cell][9][C], g_next
 * [cell][C]. (dlca_backward keeps its own copy: with PERSIST it reads both
 * through volatile pointers.) */
inline float gathered_grad(__global const float *dP_next, __global const float *g_next, __global const uchar *masks,
                           int use_masks, ulong key, float rate, int t, int cells, int cell, int c, int H, int W) {
  const int b = cell / (H * W), r = (cell / W) % H, q = cell % W;
  float d = 0.0f;
  for (int f = 0; f < 9; f++) {
    int rr = r - f / 3 + 1, qq = q - f % 3 + 1;
    if (wrap_ok(&rr, &qq, H, W)) d += dP_next[((((size_t)b * H + rr) * W + qq) * 9 + f) * C + c];
  }
  if (ASYNC && !fires(masks, use_masks, key, rate, t + 1, cells, cell)) d += g_next[(size_t)cell * C + c];
  return d;
}

#endif
