/* The grid semantics that trainer.cl and trainer_cpu.cl share: the 3x3
 * neighbourhood's boundaries and the async fire masks (spec/dlca.md
 * section 3). Needs -DPERIODIC and -DASYNC. */
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

#endif
